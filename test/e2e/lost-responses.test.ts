/**
 * Lost responses: for every resource kind, a create, an update and a delete whose answer is lost
 * after the server acted (one-shot `lost` faults on the exact method and route). The same `up`
 * converges thanks to read-back by natural key (or a harmless replay), with no duplicate and no
 * orphan: asserted on the emulator's state and its request log. AuthUser, which the API cannot
 * look up, is found by its address in neon_auth.users_sync (the emulator's real Postgres).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { projectEndpoints } from "../../src/schemas/endpointsProject";
import { changesOf, expectNoChanges, onFreshEmulator, pluginStack, programOnProject, useEmulatorStack, type E2eStack } from "./harness";
import { ALL_KINDS_EMAIL, clearRequestLog, neonConfig, projectConfig, requestLog, snapshot, usersSyncRows, yamlDomain } from "./neon";
import { emulatorOnly } from "./remote";

const P = "p-lost";
const B = "br-main-p-lost";
const SECRET_1 = "gh-secret-lost-1a2b3c";
const SECRET_2 = "gh-secret-lost-4d5e6f";

/** Each route as the emulator's faults name it (`METHOD template`), from the one endpoint table. */
const R = Object.fromEntries(Object.entries(projectEndpoints).map(([name, e]) => [name, `${e.method} ${e.path}`])) as Record<keyof typeof projectEndpoints, string>;

/** One-shot `lost` fault on a route given as `METHOD template`. */
function lost(em: EmulatorHandle, ...routes: string[]): void {
  for (const r of routes) {
    const [method, p] = r.split(" ") as [string, string];
    em.injectFaults({ kind: "lost", method, path: p });
  }
}

/** The writes of the log, as `METHOD template status[/fault]`, in order. */
async function writes(em: EmulatorHandle): Promise<string[]> {
  return (await requestLog(em))
    .filter((e: any) => e.method !== "GET")
    .map((e: any) => `${e.method} ${e.route} ${e.status}${e.fault ? `/${e.fault}` : ""}`);
}

function count(log: string[], route: string): string[] {
  return log.filter((l) => l.startsWith(`${route} `)).map((l) => l.slice(route.length + 1));
}

emulatorOnly("answers the emulator loses on purpose")("lost responses converge without duplicates or orphans — the classes", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;

  async function providerSecret(): Promise<unknown> {
    const state = (await em.state({ secrets: true })) as any;
    return state.projects.find((p: any) => p.id === P).integrations[0]?.oauth_providers?.find((o: any) => o.id === "github")
      ?.client_secret;
  }

  useEmulatorStack({
    ...programOnProject("all-kinds", P, { secrets: { clientSecret: SECRET_1, smtpPassword: "smtp-pw-lost-77" }, emulator: { rateLimit: "off" } }),
    ready: (s) => ({ em, e2e } = s),
  });

  it("creates: every create's answer lost, one up converges; AuthUser's is found in users_sync by its address", { timeout: 180_000 }, async () => {
    await clearRequestLog(em);
    // The keys fault meets the integration's read-back first (it has to generate a key set, the
    // only way to get keys of an integration whose answer was lost); AuthSdkKeys' own create
    // loses its answer in the next test (rotation replaces it: a create).
    lost(em, R.createIntegration, R.generateSdkKeys, R.transferOwnership, R.addOAuthProvider, R.addDomain, R.updateEmailServer, R.createUser);

    const up = await e2e.stack.up({ color: "never" });
    expect(up.summary.result).toBe("succeeded");
    expect(up.summary.resourceChanges).toEqual({ create: 8 });
    expect(em.faults.injected.lost).toBe(7);
    expect(em.faults.queue).toEqual([]);

    expect(await snapshot(em, P)).toEqual({
      integrations: [{ auth_provider: "stack", branch_id: B, owned_by: "neon" }],
      providers: [{ id: "github", type: "standard" }],
      domains: ["https://app.example.com"],
      email: ALL_KINDS_EMAIL,
      users: [{ email: "ada@example.com", name: "Ada" }],
    });
    expect(await providerSecret()).toBe(SECRET_1);
    const rows = await usersSyncRows(em, P);
    expect(rows.map((r) => [r.email, r.name, r.deleted])).toEqual([["ada@example.com", "Ada", false]]);

    const log = await writes(em);
    expect(count(log, R.createIntegration)).toEqual(["201/lost"]); // found by read-back, not created twice
    expect(count(log, R.generateSdkKeys)).toEqual(["201/lost", "201", "201"]); // an unseen key set: asked again
    expect(count(log, R.transferOwnership)).toEqual(["200/lost", "200"]);
    expect(count(log, R.addOAuthProvider)).toEqual(["200/lost"]); // found by id ...
    expect(count(log, R.updateOAuthProvider)).toEqual(["200"]); // ... and given the declared credentials
    expect(count(log, R.addDomain)).toEqual(["201/lost"]); // listed: nothing more to do
    expect(count(log, R.updateEmailServer)).toEqual(["200/lost", "200"]); // PATCH is absolute: replayed by the client
    expect(count(log, R.createUser)).toEqual(["201/lost"]); // taken over, never replayed
    expect(log).toHaveLength(12);

    // The outputs are usable: the integration's keys are the set generated after the loss.
    const state = (await em.state({ secrets: true })) as any;
    const keySets = state.projects[0].integrations[0].keys.map((k: any) => k.pub_client_key);
    expect(keySets).toHaveLength(4); // creation + 3 generated (one of them never seen)
    expect(keySets).toContain(up.outputs.pubClientKey!.value);
    expect(keySets).toContain(up.outputs.envVars!.value.NEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY);

    const preview = await e2e.stack.preview({ color: "never", expectNoChanges: true });
    expect(preview.changeSummary).toEqual({ same: 8 });
  });

  it("updates and replacements: every answer lost, one up converges", { timeout: 180_000 }, async () => {
    await e2e.stack.setAllConfig({ clientSecret: { value: SECRET_2, secret: true }, smtpPort: { value: "2525" }, rotation: { value: "r2" }, domain: { value: "https://www.example.com" } });
    await clearRequestLog(em);
    lost(em, R.updateOAuthProvider, R.updateEmailServer, R.generateSdkKeys, R.addDomain, R.deleteDomains);

    const up = await e2e.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ update: 2, replace: 2 });
    expect(em.faults.queue).toEqual([]);

    expect(await snapshot(em, P)).toEqual({
      integrations: [{ auth_provider: "stack", branch_id: B, owned_by: "neon" }],
      providers: [{ id: "github", type: "standard" }],
      domains: ["https://www.example.com"],
      email: { ...ALL_KINDS_EMAIL, port: 2525 },
      users: [{ email: "ada@example.com", name: "Ada" }],
    });
    expect(await providerSecret()).toBe(SECRET_2);

    const log = await writes(em);
    expect(count(log, R.updateOAuthProvider)).toEqual(["200/lost", "200"]);
    expect(count(log, R.updateEmailServer)).toEqual(["200/lost", "200"]);
    expect(count(log, R.generateSdkKeys)).toEqual(["201/lost", "201"]);
    expect(count(log, R.addDomain)).toEqual(["201/lost"]);
    expect(count(log, R.deleteDomains)).toEqual(["200/lost", "200"]);
    expect(log).toHaveLength(9);
    // Converged: the next up (below) changes the user alone, and exactly that.
  });

  it("AuthUser: a replacement whose delete answer is lost, one up converges", { timeout: 180_000 }, async () => {
    // A replacement (delete first) whose delete answer is lost: the replayed DELETE meets 404,
    // which means done.
    await e2e.stack.setAllConfig({ userName: { value: "Ada King" }, recreateUser: { value: "true" } });
    await clearRequestLog(em);
    lost(em, R.deleteUser);
    const replace = await e2e.stack.up({ color: "never" });
    expect(changesOf(replace.summary.resourceChanges)).toEqual({ replace: 1 });
    expect((await snapshot(em, P)).users).toEqual([{ email: "ada@example.com", name: "Ada King" }]);
    const log = await writes(em);
    expect(count(log, R.deleteUser)).toEqual(["204/lost", "404"]);
    expect(count(log, R.createUser)).toEqual(["201"]);

    const preview = await e2e.stack.preview({ color: "never", expectNoChanges: true });
    expect(preview.changeSummary).toEqual({ same: 8 });
  });

  it("deletes: every delete's answer lost, nothing left behind", { timeout: 180_000 }, async () => {
    await e2e.stack.setConfig("without", { value: JSON.stringify(["keys", "transfer", "user", "oauth", "domain", "email"]) });
    await clearRequestLog(em);
    lost(em, R.deleteUser, R.deleteOAuthProvider, R.deleteDomains, R.updateEmailServer);

    const up = await e2e.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ delete: 6 });
    expect(em.faults.queue).toEqual([]);
    expect(await snapshot(em, P)).toEqual({
      integrations: [{ auth_provider: "stack", branch_id: B, owned_by: "neon" }],
      providers: [],
      domains: [],
      email: { type: "shared" },
      users: [],
    });
    const log = await writes(em);
    expect(count(log, R.deleteUser)).toEqual(["204/lost", "404"]);
    expect(count(log, R.deleteOAuthProvider)).toEqual(["204/lost", "404"]);
    expect(count(log, R.deleteDomains)).toEqual(["200/lost", "200"]);
    expect(count(log, R.updateEmailServer)).toEqual(["200/lost", "200"]);
    expect(log).toHaveLength(8); // keys and transfers have no delete call

    await clearRequestLog(em);
    lost(em, R.deleteIntegration);
    const destroy = await e2e.stack.destroy({ color: "never" });
    expect(destroy.summary.resourceChanges).toEqual({ delete: 2 });
    expect(count(await writes(em), R.deleteIntegration)).toEqual(["200/lost", "404"]);
    expect(await snapshot(em, P)).toEqual({ integrations: [], providers: [], domains: [], email: undefined, users: [] });
  });
});

const BRANCH = "/projects/{project_id}/branches/{branch_id}/auth";
const RB = {
  enable: `POST ${BRANCH}`,
  addDomain: `POST ${BRANCH}/domains`,
  deleteDomains: `DELETE ${BRANCH}/domains`,
  addProvider: `POST ${BRANCH}/oauth_providers`,
  patchProvider: `PATCH ${BRANCH}/oauth_providers/{oauth_provider_id}`,
  patchEmail: `PATCH ${BRANCH}/email_provider`,
  createClient: `POST ${BRANCH}/oauth-provider/clients`,
  rotateClient: `POST ${BRANCH}/oauth-provider/clients/{client_id}/rotate_secret`,
  deleteClient: `DELETE ${BRANCH}/oauth-provider/clients/{client_id}`,
} as const;
const MORE = `${yamlDomain("www", "https://www.example.com")}
  ci:
    type: neon-auth:index:OAuthClient
    properties:
      integration: \${auth.ref}
      name: ci
      type: confidential
      redirectUris: [https://app.example.com/ci]
`;

/**
 * The same on the plugin, on the branch generation (a YAML program, lost-yaml): every create's
 * answer lost, then updates', then deletes'; each time one `up` converges with no duplicate and no
 * orphan, then no changes.
 */
emulatorOnly("answers the emulator loses on purpose")("lost responses converge without duplicates or orphans — the plugin", () => {
  const PP = "p-lost-plugin";
  const PB = `br-main-${PP}`;

  it("creates, updates and deletes: every answer lost, one up converges each time", { timeout: 600_000 }, async () => {
    const stack = (em: EmulatorHandle) =>
      pluginStack(
        { program: path.join(__dirname, "programs", "lost-yaml"), config: { ...neonConfig(em), ...projectConfig(PP, PB, { githubClientSecret: SECRET_1, smtpPassword: "smtp-pw-lost-1f3e" }) } },
        "yaml",
      );
    await onFreshEmulator(PP, stack, async ({ em, e2e }) => {
      const file = path.join(e2e.dir, "Pulumi.yaml");
      const base = fs.readFileSync(file, "utf8");
      const branch = async () => {
        const a = ((await (await fetch(`${em.controlUrl}/projects/${PP}/branches/${PB}/auth?secrets=true`)).json()) as any).auth;
        return {
          domains: [...a.domains].sort(),
          github: a.oauth_providers.find((p: any) => p.id === "github"),
          smtpPassword: a.email_provider.password,
          clients: a.oauth_clients.map((c: any) => c.name).sort(),
        };
      };
      /** An up with the answer of each of `routes` lost once, every fault used; what it wrote. */
      const upLosing = async (changes: Record<string, number>, ...routes: string[]) => {
        await clearRequestLog(em);
        lost(em, ...routes);
        expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual(changes);
        expect(em.faults.queue).toEqual([]);
        return writes(em);
      };

      fs.writeFileSync(file, base + MORE);
      await clearRequestLog(em);
      lost(em, RB.enable, RB.addDomain, RB.addProvider, RB.patchEmail, RB.createClient);
      expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ create: 8 });
      expect(em.faults.queue).toEqual([]);
      expect(await branch()).toEqual({
        domains: ["https://app.example.com", "https://www.example.com"],
        github: { id: "github", type: "standard", client_id: "Iv1.lost", client_secret: SECRET_1 },
        smtpPassword: "smtp-pw-lost-1f3e",
        clients: ["ci", "cli"],
      });
      let log = await writes(em);
      expect(count(log, RB.enable)).toEqual(["201/lost"]); // found enabled, not enabled twice
      expect(count(log, RB.addDomain)).toEqual(["201/lost", "201"]); // the lost one is listed; the other is added
      expect(count(log, RB.addProvider)).toEqual(["200/lost"]);
      expect(count(log, RB.patchProvider)).toEqual(["200"]);
      expect(count(log, RB.patchEmail)).toEqual(["200/lost", "200"]);
      expect(count(log, RB.createClient)).toEqual(["201/lost", "201"]);
      // Whichever client lost its answer (the two are made at once), its secret nobody saw is rotated.
      expect(count(log, RB.rotateClient)).toEqual(["200"]);
      await expectNoChanges(e2e.stack, 8);

      await e2e.stack.setAllConfig({ githubClientSecret: { value: SECRET_2, secret: true }, smtpPassword: { value: "smtp-pw-lost-2a4c", secret: true } });
      log = await upLosing({ update: 2 }, RB.patchProvider, RB.patchEmail);
      expect(count(log, RB.patchProvider)).toEqual(["200/lost", "200"]);
      expect(count(log, RB.patchEmail)).toEqual(["200/lost", "200"]);
      expect(await branch()).toMatchObject({ github: { client_secret: SECRET_2 }, smtpPassword: "smtp-pw-lost-2a4c" });
      // Converged: the next up's exact count (deletes of other resources) and the last preview and
      // refresh (the updated provider and email server stay) show it.

      fs.writeFileSync(file, base);
      log = await upLosing({ delete: 2 }, RB.deleteDomains, RB.deleteClient);
      expect(count(log, RB.deleteDomains)).toEqual(["200/lost", "200"]);
      expect(count(log, RB.deleteClient)).toEqual(["200/lost", "404"]); // replayed: the 404 means done
      expect(await branch()).toMatchObject({ domains: ["https://app.example.com"], clients: ["cli"] });
      await expectNoChanges(e2e.stack, 6);
    }, { rateLimit: "off" });
  });
});
