/**
 * A reset from the parent and an instant restore overwrite a branch's Neon Auth (Neon's docs:
 * reset-from-parent, branch-restore): what the stacks on those branches see and do afterwards.
 * `prod` (examples/mcp-server: the OAuth server and two clients) on the root branch, `pr-7`
 * (programs/neon-auth-children: settings, a domain, a provider, two users) on a branch made from
 * it. The preview branch reset from its parent: refresh shows exactly what the reset took away, up
 * puts the declaration back (the users made again, as new users), then nothing to change. The root
 * branch restored to before its Neon Auth was set up: refresh shows it gone, up makes it again
 * (new client ids, a new secret as a secret output), nothing to change, and the backup branch
 * Neon keeps is never touched by the stack.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, onFreshEmulator, pluginStack, sharedBackend, stackFor, type E2eStack } from "./harness";
import { branchSnapshot, branchState, branchBytes, branchUserRows, clearRequestLog, emulator, neonConfig, newBranch, projectConfig, neonApi, outOfBand, requestLog } from "./neon";
import { atEmulator } from "./remote";

const P = "p-reset";
/** A call to Neon's API on this project, as the pipeline or the app would make it, outside any stack. */
const neon = (em: EmulatorHandle, method: string, route: string, body?: unknown) => neonApi(em, method, `/projects/${P}${route}`, body);
const everything = (em: EmulatorHandle, branch: string) => branchBytes(em, P, branch);
const MAIN = `br-main-${P}`;



/** The branch's auth endpoint: what a reset must leave as it was. */
async function endpointOf(em: EmulatorHandle, branch: string) {
  const { auth_provider_project_id, base_url, jwks_url } = (await neon(em, "GET", `/branches/${branch}/auth`)).json;
  return { auth_provider_project_id, base_url, jwks_url };
}

async function secretValid(em: EmulatorHandle, branch: string, client_id: string, client_secret: string): Promise<boolean> {
  const res = await fetch(`${em.controlUrl}/projects/${P}/branches/${branch}/oauth_client_secret_check`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_id, client_secret }),
  });
  return ((await res.json()) as { valid: boolean }).valid;
}

/** A stack's state: each resource as `Kind name` (the stack and providers aside), and the NeonAuth's settings. */
async function inState(s: E2eStack): Promise<{ resources: string[]; settings: Record<string, unknown> | undefined }> {
  const { resources } = (await s.stack.exportStack()).deployment as { resources: { type: string; urn: string; outputs?: Record<string, unknown> }[] };
  const auth = resources.find((r) => r.type.endsWith(":NeonAuth"))?.outputs;
  return {
    resources: resources.filter((r) => !r.type.startsWith("pulumi:")).map((r) => `${r.type.split(":").pop()} ${r.urn.split("::").pop()}`).sort(),
    settings: auth && { appName: auth.appName, allowLocalhost: auth.allowLocalhost, magicLink: auth.magicLink },
  };
}

const people = async (em: EmulatorHandle, branch: string) => (await branchUserRows(em, P, branch)).map(({ id, email, role }) => ({ id, email, role }));

/** The preview's declaration: settings of its own, an origin, a GitHub app and two users. */
const previewArgs = (branch: string) => ({
  projectId: P,
  branchId: branch,
  // The branch comes with production's Neon Auth: the stack takes that copy over.
  settings: { adopt: true, appName: "Acme (pr-7)", allowLocalhost: false, magicLink: { enabled: true, expiresIn: 15 } },
  domains: ["https://pr-7.preview.example.com"],
  oauth: [{ name: "github", providerId: "github", clientId: "gh-preview", clientSecret: "gh-preview-secret-5e1a" }],
  users: [
    { name: "alice", email: "alice@example.com", displayName: "Alice", roles: ["admin"] },
    { name: "bob", email: "bob@example.com", displayName: "Bob" },
  ],
  noEmail: true,
});

// Production's origin came with the branch and is not the preview's to remove.
const PREVIEW_DOMAINS = ["https://app.example.com", "https://pr-7.preview.example.com"];
const PREVIEW_STATE = branchState({ name: "Acme (pr-7)", localhost: false, verification: false, providers: { github: "standard", google: "shared" }, domains: PREVIEW_DOMAINS, email: { type: "shared" } });

describe("a reset and a restore overwrite a branch's Neon Auth; refresh shows it, up puts the declaration back — the classes", () => {
  let em: EmulatorHandle;
  let prod: E2eStack;
  let preview: E2eStack;
  let pr: string;
  /** Before production's Neon Auth existed: where the root branch is restored to. */
  let beforeAuth: string;
  const backend = sharedBackend();

  backend.use({
    emulator: { seedProjects: [`${P}:${MAIN}`], rateLimit: "off" },
    stack: (em) => ({
      program: path.resolve(__dirname, "../../examples/mcp-server"),
      stackName: "prod",
      config: { ...neonConfig(em), ...projectConfig(P, MAIN) },
    }),
    ready: (s) => ({ em, e2e: prod } = s),
  });

  it("a preview branch reset from its parent: refresh shows what the reset took, up makes it again, then no changes", { timeout: 600_000 }, async () => {
    beforeAuth = new Date().toISOString();
    expect(changesOf((await prod.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ create: 5 });
    expect((await neon(em, "POST", `/branches/${MAIN}/auth/users`, { email: "ann@example.com", name: "Ann" })).status).toBe(201);

    pr = await newBranch(em, P, "pr-7");
    preview = await backend.stack({
      program: path.join(__dirname, "programs", "neon-auth-children"),
      stackName: "pr-7",
      config: { ...neonConfig(em), args: { value: JSON.stringify(previewArgs(pr)), secret: true } },
    });
    expect(changesOf((await preview.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ create: 6 });
    expect(await branchSnapshot(em, P, pr)).toEqual(PREVIEW_STATE);
    const made = await people(em, pr);
    expect(made.map((u) => [u.email, u.role])).toEqual([["alice@example.com", "admin"], ["ann@example.com", "user"], ["bob@example.com", "user"]]);
    const endpoint = await endpointOf(em, pr);

    // Production moves on after the branching; the reset takes it as it is then.
    expect((await neon(em, "POST", `/branches/${MAIN}/auth/users`, { email: "bo@example.com", name: "Bo" })).status).toBe(201);
    const reset = await neon(em, "POST", `/branches/${pr}/restore`, { source_branch_id: MAIN });
    expect([reset.status, reset.json.branch.id, reset.json.branch.parent_id]).toEqual([200, pr, MAIN]);
    // Everything of Neon Auth is production's now, the users too; the auth endpoint stays the branch's.
    expect(await branchSnapshot(em, P, pr)).toEqual(await branchSnapshot(em, P, MAIN));
    expect(await people(em, pr)).toEqual(await people(em, MAIN));
    expect(await endpointOf(em, pr)).toEqual(endpoint);

    // Refresh: the settings went back to production's (an update); the origin, the provider and
    // both users are gone (4 deletes).
    await clearRequestLog(em);
    expect(changesOf((await preview.stack.refresh({ color: "never" })).summary.resourceChanges)).toEqual({ update: 1, delete: 4 });
    expect((await requestLog(em)).filter((r) => r.method !== "GET")).toEqual([]);
    expect(await inState(preview)).toEqual({ resources: ["NeonAuth auth"], settings: { appName: P, allowLocalhost: true, magicLink: { enabled: false, expiresIn: 5 } } });
    // Up: the settings written back, the rest made again; the users are new users (new ids).
    expect(changesOf((await preview.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ update: 1, create: 4 });
    expect(await branchSnapshot(em, P, pr)).toEqual(PREVIEW_STATE);
    const again = await people(em, pr);
    expect(again.map((u) => [u.email, u.role])).toEqual([
      ["alice@example.com", "admin"],
      ["ann@example.com", "user"],
      ["bo@example.com", "user"],
      ["bob@example.com", "user"],
    ]);
    for (const email of ["alice@example.com", "bob@example.com"]) {
      expect(again.find((u) => u.email === email)!.id).not.toBe(made.find((u) => u.email === email)!.id);
    }
    await expectNoChanges(preview.stack, 6);
  });

  it("the root branch restored to before its Neon Auth: refresh shows it gone, up makes it again; the backup is untouched", { timeout: 600_000 }, async () => {
    const first = (await prod.stack.outputs()) as Record<string, { value: string; secret: boolean }>;
    const previewBefore = await everything(em, pr);
    const backupName = `main_old_${new Date().toISOString()}`;
    const restored = await neon(em, "POST", `/branches/${MAIN}/restore`, { source_branch_id: MAIN, source_timestamp: beforeAuth, preserve_under_name: backupName });
    expect([restored.status, restored.json.branch.id, restored.json.branch.name]).toEqual([200, MAIN, "main"]);
    const branches = (await neon(em, "GET", "/branches")).json.branches as { id: string; name: string; parent_id?: string }[];
    const backup = branches.find((b) => b.name === backupName)!;
    // Both are root branches; the preview branch now hangs off the backup, its auth untouched.
    expect([backup.parent_id, branches.find((b) => b.id === MAIN)!.parent_id, branches.find((b) => b.id === pr)!.parent_id]).toEqual([undefined, undefined, backup.id]);
    expect(await everything(em, pr)).toBe(previewBefore);
    // The root branch is as it was before Neon Auth; the backup holds it all, the old secret valid there.
    expect((await neon(em, "GET", `/branches/${MAIN}/auth`)).status).toBe(404);
    expect((await branchSnapshot(em, P, backup.id)).auth).toEqual({ name: P, auth_provider: "better_auth" });
    expect((await people(em, backup.id)).map((u) => u.email)).toEqual(["ann@example.com", "bo@example.com"]);
    await atEmulator(async () => expect(await secretValid(em, backup.id, first.serverClientId!.value, first.serverClientSecret!.value)).toBe(true));
    const backupBefore = await everything(em, backup.id);

    await clearRequestLog(em);
    // Refresh: the NeonAuth, its trusted domain and both clients are gone.
    expect(changesOf((await prod.stack.refresh({ color: "never" })).summary.resourceChanges)).toEqual({ delete: 4 });
    expect(await inState(prod)).toEqual({ resources: [], settings: undefined });
    // Up: made again; the clients are new ones (new ids), the confidential one with a new secret.
    const up = await prod.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ create: 4 });
    const secret = up.outputs.serverClientSecret!;
    expect([secret.secret, secret.value === first.serverClientSecret!.value]).toEqual([true, false]);
    expect([up.outputs.serverClientId!.value === first.serverClientId!.value, up.outputs.cliClientId!.value === first.cliClientId!.value]).toEqual([false, false]);
    await atEmulator(async () => expect(await secretValid(em, MAIN, up.outputs.serverClientId!.value, secret.value)).toBe(true));
    await atEmulator(async () => expect(await secretValid(em, MAIN, first.serverClientId!.value, first.serverClientSecret!.value)).toBe(false));
    await expectNoChanges(prod.stack, 5);

    // No request of the stack's named the backup branch in its path, and the backup is byte for byte
    // as the restore left it.
    expect((await requestLog(em)).filter((r) => r.path.includes(backup.id))).toEqual([]);
    expect(await everything(em, backup.id)).toBe(backupBefore);
  });
});

/**
 * The same on the plugin: a YAML program (adopt-yaml: a NeonAuth that adopts, a trusted domain, a
 * GitHub provider) on a preview branch made from one with Neon Auth; the branch reset from its
 * parent, then restored to its parent as it was when it was made: each time refresh shows what
 * went (the app's name back to the parent's, the provider gone; the origin came with the parent),
 * writing nothing, and `up` puts the declaration back, then no changes.
 */
describe("a reset and a restore overwrite a branch's Neon Auth; refresh shows it, up puts the declaration back — the plugin", () => {
  const PP = "p-reset-plugin";
  const PM = `br-main-${PP}`;

  it("a preview branch reset from its parent, then restored to its parent at its making: refresh shows it, up makes it again, then no changes", { timeout: 600_000 }, async () => {
    const em = await emulator({ seedProjects: [`${PP}:${PM}`], rateLimit: "off" });
    let e2e: E2eStack | undefined;
    try {
      const auth = `/projects/${PP}/branches/${PM}/auth`;
      expect(await outOfBand(em, "POST", auth, { auth_provider: "better_auth" })).toBe(201);
      expect(await outOfBand(em, "POST", `${auth}/domains`, { domain: "https://app.example.com", auth_provider: "better_auth" })).toBe(201);
      const pr = await newBranch(em, PP, "pr-9");
      const branched = new Date().toISOString();
      e2e = await pluginStack(
        { program: path.join(__dirname, "programs", "adopt-yaml"), config: { ...neonConfig(em), ...projectConfig(PP, pr, { githubClientSecret: "gh-secret-reset-4b8e" }), adopt: { value: "true" } } },
        "yaml",
      );
      expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ create: 4 });
      const declared = { ...PREVIEW_STATE, allow_localhost: true, domains: ["https://app.example.com"] };
      expect(await branchSnapshot(em, PP, pr)).toEqual(declared);

      const overwrites: [string, unknown][] = [
        ["reset from its parent", { source_branch_id: PM }],
        // A point in time is taken from a root branch: its parent as it was when the branch was made.
        ["restored to its parent at its making", { source_branch_id: PM, source_timestamp: branched }],
      ];
      for (const [what, body] of overwrites) {
        const res = await neonApi(em, "POST", `/projects/${PP}/branches/${pr}/restore`, body);
        expect([what, res.status]).toEqual([what, 200]);
        expect((await branchSnapshot(em, PP, pr)).providers).toEqual([{ id: "google", type: "shared" }]);
        await clearRequestLog(em);
        expect([what, changesOf((await e2e.stack.refresh({ color: "never" })).summary.resourceChanges)]).toEqual([what, { update: 1, delete: 1 }]);
        expect((await requestLog(em)).filter((r) => r.method !== "GET")).toEqual([]);
        expect([what, changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)]).toEqual([what, { update: 1, create: 1 }]);
        expect(await branchSnapshot(em, PP, pr)).toEqual(declared);
      }
      // After each up the next refresh's exact changes show it converged; after the last, this.
      await expectNoChanges(e2e.stack, 4);
    } finally {
      await e2e?.cleanup();
      await em.close();
    }
  });
});

/**
 * An object the stack made again after the restore point (a user, an OAuth client deleted outside
 * the stack and made again by `up --refresh`) comes back under its earlier id; the README's recipe as
 * written: refresh takes the restored one as the resource's (new id, writing nothing), up rotates the
 * client's secret (the stack never saw the restored one), then no changes. Both faces: the classes
 * (neon-auth-children) and the plugin (half-made-yaml: a NeonAuth with the OAuth server, a user with
 * a role, a disabled confidential client, an SMTP server).
 */
const HALF_MADE_DECLARED = {
  settings: { allowLocalhost: false, oauthServer: { enabled: true, loginPage: "https://app.example.com/login", consentPage: "https://app.example.com/consent" } },
  domains: [],
  oauth: [],
  users: [{ name: "ada", email: "ada@example.com", roles: ["admin"] }],
  oauthClients: [{ name: "cli", type: "confidential", redirectUris: ["https://app.example.com/callback"], disabled: true }],
  smtp: { host: "smtp.example.com", port: 587, username: "mailer", password: "smtp-pw-restored-7d2a", senderEmail: "auth@example.com", senderName: "Acme", testRecipient: "ops@example.com" },
};

describe.each(["classes", "plugin"] as const)("objects made again after the restore point come back under their earlier ids — the %s", (face) => {
  it("restored: refresh takes them back, up rotates the client's secret, then no changes", { timeout: 600_000 }, async () => {
    const project = `p-restored-${face}`;
    const b = `br-main-${project}`;
    await onFreshEmulator(
      project,
      (em) => {
        const opts = { program: path.join(__dirname, "programs", face === "classes" ? "neon-auth-children" : "half-made-yaml"), stackName: project };
        return face === "classes"
          ? stackFor({ ...opts, config: { ...neonConfig(em), args: { value: JSON.stringify({ projectId: project, branchId: b, ...HALF_MADE_DECLARED }), secret: true } } })
          : pluginStack({ ...opts, config: { ...neonConfig(em), ...projectConfig(project, b, { smtpPassword: HALF_MADE_DECLARED.smtp.password }) } }, "yaml");
      },
      async ({ em, e2e }) => {
        const auth = `/projects/${project}/branches/${b}/auth`;
        // What the branch holds: each user and client with its id.
        const held = async () => {
          const clients = (await neonApi(em, "GET", `${auth}/oauth-provider/clients`)).json.clients as { name: string; client_id: string; disabled: boolean }[];
          return { users: (await branchUserRows(em, project, b)).map((u) => `${u.email} ${u.id} ${u.role}`), clients: clients.map((c) => `${c.name} ${c.client_id} ${c.disabled}`) };
        };
        const inState = async () => {
          const { resources } = (await e2e.stack.exportStack()).deployment as { resources: { type: string; id?: string; outputs?: Record<string, unknown> }[] };
          return resources.filter((r) => /:(AuthUser|OAuthClient)$/.test(r.type)).map((r) => r.id).sort();
        };
        expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ create: 5 });
        const first = await held();
        const restorePoint = new Date().toISOString();
        await new Promise((r) => setTimeout(r, 50));
        // Deleted outside the stack; `up --refresh` makes both again, with new ids.
        const [user, client] = [first.users[0]!.split(" ")[1]!, first.clients[0]!.split(" ")[1]!];
        expect([await outOfBand(em, "DELETE", `${auth}/users/${user}`), await outOfBand(em, "DELETE", `${auth}/oauth-provider/clients/${client}`)]).toEqual([204, 200]);
        await e2e.stack.up({ color: "never", refresh: true });
        const again = await held();
        expect([again.users[0] === first.users[0], again.clients[0] === first.clients[0], again.users.length, again.clients.length]).toEqual([false, false, 1, 1]);

        const restored = await neonApi(em, "POST", `/projects/${project}/branches/${b}/restore`, { source_branch_id: b, source_timestamp: restorePoint, preserve_under_name: `${b}_old` });
        expect(restored.status).toBe(200);
        expect(await held()).toEqual(first);

        // The README's recipe: refresh writes nothing and records the restored objects under their ids.
        await clearRequestLog(em);
        // The engine compares a refresh's inputs: the user's earlier id is no change to it; the
        // client's secret, which this stack never saw, is (a rotation trigger it never gives).
        expect(changesOf((await e2e.stack.refresh({ color: "never" })).summary.resourceChanges)).toEqual({ update: 1 });
        expect((await requestLog(em)).filter((r) => r.method !== "GET")).toEqual([]);
        expect(await inState()).toEqual([`${project}/${b}/${client}`, `${project}/${b}/${user}`].sort());
        expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ update: 1 });
        expect((await requestLog(em)).filter((r) => r.method !== "GET").map((r: any) => `${r.method} ${r.route}`)).toEqual([
          "POST /projects/{project_id}/branches/{branch_id}/auth/oauth-provider/clients/{client_id}/rotate_secret",
        ]);
        expect(await held()).toEqual(first);
        await expectNoChanges(e2e.stack, 5);
      },
      { rateLimit: "off" },
    );
  });
});
