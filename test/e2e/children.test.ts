/**
 * Children follow their integration: they take it as an input (order without dependsOn), a
 * replaced integration replaces them in the same preview, an integration replaced outside
 * Pulumi makes refresh report them gone, and a project the key cannot see fails refresh instead
 * of emptying the state.
 */
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, stackFor, type E2eStack } from "./harness";
import { ALL_KINDS_EMAIL, API_KEY, clearRequestLog, emulator, neonApi, outOfBand, requestLog, snapshot } from "./neon";
import { emulatorOnlyIt } from "./remote";

const P = "p-children";
const B = "br-main-p-children";
const OTHER_KEY = "e2e-children-other-account-5e3";
const MORE_DOMAINS = ["https://staging.example.com", "http://localhost:3000"];
const CHILDREN = ["domain", "domain-localhost:3000", "domain-staging.example.com", "email", "github", "keys", "user"];

describe("children follow their integration", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;

  /** The project's integration, as Neon lists it. */
  async function integration(): Promise<any> {
    const listed = await neonApi(em, "GET", `/projects/${P}/auth/integrations`);
    expect(listed.status).toBe(200);
    return listed.json.data[0];
  }

  /** What the stack declares, as the emulator should hold it. */
  async function expectDeclared(): Promise<void> {
    const snap = await snapshot(em, P);
    expect(snap).toEqual({
      integrations: [{ auth_provider: "stack", branch_id: B, owned_by: "neon" }],
      providers: [{ id: "github", type: "standard" }],
      domains: ["http://localhost:3000", "https://app.example.com", "https://staging.example.com"],
      email: ALL_KINDS_EMAIL,
      users: [{ email: "ada@example.com", name: "Ada" }],
    });
  }

  /** Names of the resources an operation touched, by what it did to them. */
  function opsRecorder() {
    const ops = new Map<string, string[]>();
    const onEvent = (e: EngineEvent) => {
      const m = e.resourcePreEvent?.metadata;
      if (!m || m.type === "pulumi:pulumi:Stack" || m.op === "same") return;
      ops.set(m.op, [...(ops.get(m.op) ?? []), m.urn.split("::").pop()!].sort());
    };
    return { ops, onEvent };
  }

  /**
   * `pulumi stack export` as the CLI prints it. Every refresh rewrites the checkpoint, failed or
   * not: the manifest gets the time of the write and secrets fresh nonces. So the bytes compared
   * are those of the export with secrets shown and the manifest's time left out.
   */
  function exportStack(): string {
    const text = execFileSync("pulumi", ["stack", "export", "--show-secrets", "--stack", e2e.stack.name], {
      cwd: e2e.dir,
      env: { ...process.env, ...e2e.stack.workspace.envVars },
      encoding: "utf8",
    });
    return text.replace(/^(\s*"time": )"[^"]*",$/m, '$1"(write time)",');
  }

  beforeAll(async () => {
    em = await emulator({ apiKeys: [API_KEY, OTHER_KEY], seedProjects: [`${P}:${B}`], rateLimit: "off" });
    // The key comes from the environment, as in a pipeline: refresh runs with the key it is given
    // then (a key in the stack config is the one recorded by the last up).
    e2e = await stackFor({
      program: path.join(__dirname, "programs", "all-kinds"),
      env: { NEON_API_KEY: API_KEY, NEON_API_URL: em.url },
      config: {
        projectId: { value: P },
        branchId: { value: B },
        clientSecret: { value: "gh-secret-children-31", secret: true },
        smtpPassword: { value: "smtp-pw-children-42", secret: true },
        moreDomains: { value: JSON.stringify(MORE_DOMAINS) },
        without: { value: JSON.stringify(["transfer"]) },
      },
    });
  });

  afterAll(async () => {
    await e2e?.cleanup();
    await em?.close();
  });

  it("creates every child after its integration in one up, with no dependsOn", { timeout: 180_000 }, async () => {
    await clearRequestLog(em);
    const up = await e2e.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ create: 9 }); // with the stack itself
    await expectDeclared();
    const writes = (await requestLog(em)).filter((r) => r.method !== "GET");
    // The integration's create is the first write and answered 201: no child met "auth is not enabled".
    expect(writes[0]).toMatchObject({ method: "POST", path: "/api/v2/projects/auth/create", status: 201 });
    expect(writes.filter((r) => r.status >= 400)).toEqual([]);
    expect(writes).toHaveLength(1 + 7);
    await expectNoChanges(e2e.stack);
  });

  it("replacing the integration lists every child as replaced at preview, then rebuilds them in the new one", { timeout: 300_000 }, async () => {
    const before = await integration();
    await e2e.stack.setConfig("databaseName", { value: "appdb" });

    const seen = opsRecorder();
    const preview = await e2e.stack.preview({ color: "never", onEvent: seen.onEvent });
    expect(changesOf(preview.changeSummary)).toEqual({ replace: 8 });
    expect(seen.ops.get("replace")).toEqual(["auth", ...CHILDREN].sort());
    // Nothing happened yet.
    expect((await integration()).auth_provider_project_id).toBe(before.auth_provider_project_id);

    const up = await e2e.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ replace: 8 });
    const after = await integration();
    expect(after.db_name).toBe("appdb");
    expect(after.auth_provider_project_id).not.toBe(before.auth_provider_project_id);
    await expectDeclared();
    // Converged: the next test's refresh and up count every change exactly (children made as in the first test).
  });

  it("an integration replaced outside Pulumi: refresh reports every child gone, up makes them again", { timeout: 300_000 }, async () => {
    const before = await integration();
    expect(await outOfBand(em, "DELETE", `/projects/${P}/auth/integration/stack`)).toBe(200);
    expect(
      await outOfBand(em, "POST", "/projects/auth/create", { auth_provider: "stack", project_id: P, branch_id: B, database_name: "appdb" }),
    ).toBe(201);
    const replaced = await integration();
    expect(replaced.auth_provider_project_id).not.toBe(before.auth_provider_project_id);
    expect((await snapshot(em, P)).domains).toEqual([]);

    const refresh = await e2e.stack.refresh({ color: "never" });
    expect(changesOf(refresh.summary.resourceChanges)).toEqual({ delete: 7 });
    const resources = (await e2e.stack.exportStack()).deployment.resources;
    expect(resources.filter((r: any) => r.type.startsWith("pulumi-nodejs:")).map((r: any) => r.urn.split("::").pop())).toEqual(["auth"]);
    // The integration stays, now the new one; the keys in state were the old one's, so they go.
    const auth = resources.find((r: any) => r.urn.endsWith("::auth"));
    expect(auth.outputs.authProviderProjectId).toBe(replaced.auth_provider_project_id);
    expect(auth.outputs.createdAt).toBe(replaced.created_at);
    expect(auth.outputs.pubClientKey).toBeUndefined();

    const up = await e2e.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ create: 7 });
    expect((await integration()).auth_provider_project_id).toBe(replaced.auth_provider_project_id);
    await expectDeclared();
    await expectNoChanges(e2e.stack);
  });

  emulatorOnlyIt("a second account's key at one API")("refresh with a key that cannot see the project fails and leaves the state as it was", { timeout: 180_000 }, async () => {
    const before = exportStack();
    const ownerBefore = await snapshot(em, P);
    e2e.stack.workspace.envVars.NEON_API_KEY = OTHER_KEY;
    try {
      const err = await e2e.stack.refresh({ color: "never" }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err, "refresh must fail").toBeInstanceOf(Error);
      const message = String(err?.message);
      expect(message).toContain(
        `AuthIntegration: refresh cannot tell whether project ${P} still exists: it answers 404 Not Found to this API key ` +
          "(a wrong key or account, or a deleted project). Nothing was removed from the stack's state.",
      );
      expect(message).toContain("`pulumi state delete --target-dependents <URN of its AuthIntegration or NeonAuth>`");
      expect(message).not.toContain(OTHER_KEY);
      expect(exportStack()).toBe(before);
      expect(await snapshot(em, P)).toEqual(ownerBefore);
    } finally {
      e2e.stack.workspace.envVars.NEON_API_KEY = API_KEY;
    }
    await expectNoChanges(e2e.stack);
  });

  it("a child whose integration is missing says so and how to declare it; refresh then up mends it", { timeout: 300_000 }, async () => {
    // Deleted outside Pulumi, and the stack not refreshed: a new domain meets "auth is not enabled".
    expect(await outOfBand(em, "DELETE", `/projects/${P}/auth/integration/stack`)).toBe(200);
    await e2e.stack.setConfig("moreDomains", { value: JSON.stringify([...MORE_DOMAINS, "https://new.example.com"]) });
    const err = await e2e.stack.up({ color: "never" }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err, "up must fail").toBeInstanceOf(Error);
    expect(String(err?.message)).toContain(
      `RedirectDomain: project ${P} has no auth integration: it is missing or not yet created. Declare the AuthIntegration ` +
        "in this stack and pass it as `integration: auth` (not `projectId` with `dependsOn`), so that the engine creates " +
        "it first; or, if it was deleted outside Pulumi, run `pulumi refresh` and `pulumi up` to create it again. " +
        `(404 from GET /projects/${P}/auth/domains: auth is not enabled for project ${P}: no stack integration`,
    );

    // The project is visible and its list lacks the integration: now everything is gone for sure.
    const refresh = await e2e.stack.refresh({ color: "never" });
    expect(changesOf(refresh.summary.resourceChanges)).toEqual({ delete: 8 });
    await e2e.stack.setConfig("moreDomains", { value: JSON.stringify(MORE_DOMAINS) });
    const up = await e2e.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ create: 8 });
    await expectDeclared();
    // Converged: the next test's preview counts every change exactly; it ends with no changes.
  });

  it("state from before children recorded their integration: one in-place update records it, nothing replaced", { timeout: 180_000 }, async () => {
    const exported = await e2e.stack.exportStack();
    let stripped = 0;
    for (const r of exported.deployment.resources) {
      if (!r.type.startsWith("pulumi-nodejs:") || r.urn.endsWith("::auth")) continue;
      delete r.inputs.integration;
      delete r.outputs.integration;
      stripped++;
    }
    expect(stripped).toBe(7);
    await e2e.stack.importStack(exported);
    const ids = (await integration()).auth_provider_project_id;

    const preview = await e2e.stack.preview({ color: "never" });
    expect(changesOf(preview.changeSummary)).toEqual({ update: 7 });
    await clearRequestLog(em);
    const up = await e2e.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ update: 7 });
    // Recording the identity sends nothing to Neon.
    expect((await requestLog(em)).filter((r) => r.method !== "GET")).toEqual([]);
    expect((await integration()).auth_provider_project_id).toBe(ids);
    await expectDeclared();
    await expectNoChanges(e2e.stack);
  });
});
