/**
 * Objects made outside the stack: the error names the way out (`adopt: true`), and with it the
 * stack takes them over, sets what it declares, and later deletes them like its own. On both
 * faces: the classes (a project-level integration and its children, each adopting) and the plugin
 * (a YAML program whose NeonAuth alone says `adopt`, which reaches the children declared in it).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { expectNoChanges, pluginStack, programOnProject, useEmulatorStack } from "./harness";
import { branchSnapshot, clearRequestLog, emulator, neonConfig, outOfBand, projectConfig, requestLog, snapshot, yamlDomain } from "./neon";
import { atEmulator } from "./remote";

const P = "p-adopt";
const BRANCH = "br-main-p-adopt";

describe("adopting objects that already exist — the classes", () => {
  const s = useEmulatorStack({
    ...programOnProject("all-kinds", P, { secrets: { clientSecret: "gh-secret-declared-77" }, without: ["keys", "transfer", "user", "email"] }),
    // Made in the console, before the stack existed.
    prepare: async (em) => {
      expect(
        await outOfBand(em, "POST", "/projects/auth/create", { auth_provider: "stack", project_id: P, branch_id: BRANCH }),
      ).toBe(201);
      expect(
        await outOfBand(em, "POST", `/projects/${P}/auth/oauth_providers`, {
          id: "github",
          client_id: "console-client",
          client_secret: "console-secret",
        }),
      ).toBe(200);
      expect(
        await outOfBand(em, "POST", `/projects/${P}/auth/domains`, { domain: "https://app.example.com", auth_provider: "stack" }),
      ).toBe(201);
    },
  });

  it("refuses to take over an existing integration silently", async () => {
    const err = await s.e2e.stack.up({ color: "never" }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(String(err?.message)).toContain(
      `AuthIntegration: project ${P}'s "stack" integration already exists and was not made by this stack under this name. If this stack declares it under another name (a resource renamed, or moved into or out of a component), give this resource \`aliases\` naming the old one: it keeps the object, with no request (README, "Renaming resources"). Otherwise it was made outside this stack (in the console, by another stack, or by a run of this stack that was killed) and is not taken over silently: set \`adopt: true\` on this resource to take it over on purpose (this stack then updates it and deletes it on destroy); or delete it at Neon first.`,
    );
    const snap = await snapshot(s.em, P);
    expect(snap.integrations).toHaveLength(1);
  });

  it("with adopt: true takes everything over and converges", async () => {
    await s.e2e.stack.setConfig("adopt", { value: "true" });
    const up = await s.e2e.stack.up({ color: "never" });
    expect(up.summary.result).toBe("succeeded");
    const snap = await snapshot(s.em, P);
    expect(snap.integrations).toEqual([{ auth_provider: "stack", branch_id: BRANCH, owned_by: "neon" }]);
    expect(snap.providers).toEqual([{ id: "github", type: "standard" }]);
    expect(snap.domains).toEqual(["https://app.example.com"]);
    // The declared credentials replaced the console's.
    await atEmulator(async () => {
      const state = await s.em.state({ secrets: true });
      expect(JSON.stringify(state)).toContain("gh-secret-declared-77");
      expect(JSON.stringify(state)).not.toContain("console-secret");
    });
    // Keys of an adopted integration come from a newly generated set.
    expect(String(up.outputs.pubClientKey?.value)).toMatch(/^pck_/);
    const creates = (await requestLog(s.em)).filter((r) => r.method === "POST" && r.path === "/api/v2/projects/auth/create");
    // Only the console's: the stack read the integration first, so it never asked to create one.
    expect(creates.map((r) => r.status)).toEqual([201]);

    // The README's recipe, second step: adopt was for one up. Taking it out changes nothing (the
    // no-change preview and refresh below also show that the adopting up converged).
    await s.e2e.stack.setConfig("adopt", { value: "false" });
    await clearRequestLog(s.em);
    await expectNoChanges(s.e2e.stack);
    expect((await requestLog(s.em)).filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("destroys what it adopted", async () => {
    await s.e2e.stack.destroy({ color: "never" });
    const snap = await snapshot(s.em, P);
    expect(snap.integrations).toEqual([]);
    expect(snap.domains).toEqual([]);
  });
});

const PP = "p-adopt-plugin";
const PB = `br-main-${PP}`;
const REFUSED = ' already exists and was not made by this stack under this name. If this stack declares it under another name (a resource renamed, or moved into or out of a component), give this resource `aliases` naming the old one: it keeps the object, with no request (README, "Renaming resources"). Otherwise it was made outside this stack (in the console, by another stack, or by a run of this stack that was killed) and is not taken over silently: set `adopt: true` on this ';
/** A child that keeps itself strict inside an adopting NeonAuth: an origin the branch also has. */
const STRICT = yamlDomain("strict", "https://strict.example.com", "\n      adopt: false") + "\n";

describe("adopting objects that already exist — the plugin", () => {
  it("refused without adopt; a NeonAuth's adopt takes over the children declared in it, a child's own adopt: false stays strict; destroy removes them", { timeout: 600_000 }, async () => {
    const em = await emulator({ seedProjects: [`${PP}:${PB}`], rateLimit: "off" });
    const e2e = await pluginStack({ program: path.join(__dirname, "programs", "adopt-yaml"), config: { ...neonConfig(em), ...projectConfig(PP, PB, { githubClientSecret: "gh-secret-adopted-6d2f" }) } }, "yaml");
    const program = path.join(e2e.dir, "Pulumi.yaml");
    const base = fs.readFileSync(program, "utf8");
    const auth = `/projects/${PP}/branches/${PB}/auth`;
    const failing = (o: { continueOnError?: boolean } = {}) =>
      e2e.stack.up({ color: "never", ...o }).then(
        () => "succeeded",
        (e: Error) => e.message,
      );
    const writes = async () => (await requestLog(em)).filter((e: any) => e.method !== "GET").map((e: any) => `${e.method} ${e.route} ${e.status}`);
    const credentials = async () => {
      const record = (await (await fetch(`${em.controlUrl}/projects/${PP}/branches/${PB}/auth?secrets=true`)).json()) as any;
      return record.auth.oauth_providers.find((p: any) => p.id === "github");
    };
    try {
      // A branch that has it all already (as one made from a parent with Neon Auth does).
      expect(await outOfBand(em, "POST", auth, { auth_provider: "better_auth" })).toBe(201);
      expect(await outOfBand(em, "POST", `${auth}/oauth_providers`, { id: "github", client_id: "console-id", client_secret: "console-secret-1c7a" })).toBe(200);
      for (const domain of ["https://app.example.com", "https://strict.example.com"]) expect(await outOfBand(em, "POST", `${auth}/domains`, { domain, auth_provider: "better_auth" })).toBe(201);

      await clearRequestLog(em);
      expect(await failing()).toContain(`NeonAuth: Neon Auth on branch ${PB} of project ${PP}${REFUSED}NeonAuth to take it over on purpose`);
      expect(await writes()).toEqual([]);

      // adopt on the NeonAuth alone: its children take over what the branch has, sending no create.
      await e2e.stack.setConfig("adopt", { value: "true" });
      fs.writeFileSync(program, base + STRICT);
      await clearRequestLog(em);
      expect(await failing({ continueOnError: true })).toContain(`RedirectDomain https://strict.example.com of branch ${PB} of project ${PP}${REFUSED}`);
      expect(await writes()).toEqual([
        "PATCH /projects/{project_id}/branches/{branch_id}/auth/config 200",
        "PATCH /projects/{project_id}/branches/{branch_id}/auth/oauth_providers/{oauth_provider_id} 200",
      ]);
      await atEmulator(async () => expect(await credentials()).toEqual({ id: "github", type: "standard", client_id: "Iv1.declared", client_secret: "gh-secret-adopted-6d2f" }));
      const adopted = (await e2e.stack.exportStack()).deployment.resources.filter((r: any) => ["app", "github"].includes(r.urn.split("::").pop()));
      // In the order of the state, which is the order they finished in.
      expect(adopted.map((r: any) => [r.urn.split("::").pop(), r.inputs.adopt]).sort()).toEqual([
        ["app", true],
        ["github", true],
      ]);

      fs.writeFileSync(program, base);
      expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ same: 4 });
      // adopt was for one up: taken off the NeonAuth, whose children inherited it, it changes nothing.
      await e2e.stack.setConfig("adopt", { value: "false" });
      await expectNoChanges(e2e.stack, 4);

      expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 4 });
      expect(await branchSnapshot(em, PP, PB)).toEqual({ auth: undefined, providers: [], domains: [], email: undefined });
    } finally {
      await e2e.cleanup();
      await em.close();
    }
  });
});
