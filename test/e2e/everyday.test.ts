/**
 * Everyday Pulumi on both faces (the matrix of guarantees, "everyday Pulumi"), one stack per face:
 * a ComponentResource holding a NeonAuth and each of its child kinds goes up, previews and
 * refreshes with no change; a rename with `aliases` changes nothing and sends no write; an
 * OAuthClient's `type` change replaces it in one `up` (a new id and secret, the old client gone);
 * a rename without `aliases` of the default Google provider, the email server, a domain and a user
 * (a domain and a user refused, naming `aliases` before `adopt`; then with the `adopt` the error
 * suggests) leaves every object at Neon as declared, the user the same account; two components
 * declaring one origin under one short name fail at preview naming both URNs. Then the plugin's
 * stack is destroyed, and the classes' stack (a secret among its inputs) is moved onto the plugin
 * (`--move-to-plugin`) with no write to Neon, previewed, up and refreshed with no change, updated
 * and destroyed there.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, moveToPlugin, onFreshEmulator, pluginStack, type E2eStack } from "./harness";
import { API_KEY, branchSnapshot, branchUserRows, clearRequestLog, neonConfig, providers, requestLog } from "./neon";
import { atEmulator } from "./remote";

const PROGRAM = path.join(__dirname, "programs", "plugin");
const SITE = "https://app.example.com";
const BOX = "everyday:index:Box";
const GH_SECRET = "gh-everyday-secret-7a3c";
/** The renames without aliases, taken with `adopt` (the domain's and the user's). */
const RENAMED = { app: "web", google: "google-sign-in", email: "mail", ada: "ada-lovelace" };
const ADOPTED = { web: { args: { adopt: true } }, "ada-lovelace": { args: { adopt: true } } };

type Face = "dynamic" | "plugin";
interface Spec {
  kind: string;
  name: string;
  args: Record<string, unknown>;
  secret?: string[];
  parent?: string;
  aliases?: string[];
}

/** The component and its resources; `names` renames them, `more` adds to any. */
function specs(project: string, branch: string, o: { names?: Record<string, string>; more?: Record<string, Partial<Spec>>; clientType?: string; extra?: Spec[] } = {}): Spec[] {
  const name = (n: string) => o.names?.[n] ?? n;
  const oauthServer = { enabled: true, loginPage: `${SITE}/sign-in`, consentPage: `${SITE}/consent` };
  const inBox: Spec[] = [
    { kind: "NeonAuth", name: "auth", args: { projectId: project, branchId: branch, appName: "Everyday", oauthServer } },
    { kind: "RedirectDomain", name: name("app"), args: { integration: "auth", domain: SITE } },
    { kind: "OAuthProvider", name: name("google"), args: { integration: "auth", providerId: "google" } },
    { kind: "OAuthProvider", name: "github", args: { integration: "auth", providerId: "github", clientId: "gh-id", clientSecret: GH_SECRET }, secret: ["clientSecret"] },
    { kind: "EmailServer", name: name("email"), args: { integration: "auth", type: "shared" } },
    { kind: "AuthUser", name: name("ada"), args: { integration: "auth", email: "ada@example.com", name: "Ada", roles: ["admin"] } },
    { kind: "OAuthClient", name: "cli", args: { integration: "auth", name: "CLI", type: o.clientType ?? "public", redirectUris: [`${SITE}/callback`] } },
  ];
  const box = inBox.map((s) => {
    const more = o.more?.[s.name];
    return { ...s, ...more, args: { ...s.args, ...more?.args }, parent: "box" };
  });
  return [{ kind: "Component", name: "box", args: { type: BOX } }, ...box, ...(o.extra ?? [])];
}

/** The specs once the renames are taken (`adopt`), the client confidential; `appName` for the NeonAuth. */
const settled = (project: string, branch: string, appName?: string) =>
  specs(project, branch, { names: RENAMED, clientType: "confidential", more: { ...ADOPTED, ...(appName === undefined ? {} : { auth: { args: { appName } } }) } });

const typeOf = (face: Face, kind: string) => (face === "dynamic" ? `pulumi-nodejs:dynamic/neon-auth:${kind}` : `neon-auth:index:${kind}`);

async function failing(run: () => Promise<unknown>): Promise<string> {
  return run().then(
    () => "succeeded",
    (e: Error) => e.message,
  );
}

/** The branch's OAuth clients, as Neon lists them. */
async function clients(em: EmulatorHandle, project: string, branch: string): Promise<{ client_id: string; name: string; type: string }[]> {
  const res = await fetch(`${em.url}/projects/${project}/branches/${branch}/auth/oauth-provider/clients`, { headers: { authorization: `Bearer ${API_KEY}` } });
  return ((await res.json()) as { clients: { client_id: string; name: string; type: string }[] }).clients.map(({ client_id, name, type }) => ({ client_id, name, type }));
}

/** The secret a client resource holds in state (the CLI decrypts it). */
function clientSecretInState(e2e: E2eStack): string {
  const state = JSON.parse(e2e.cli("stack", "export", "--show-secrets"));
  const client = state.deployment.resources.find((r: { type: string }) => r.type.endsWith("OAuthClient"));
  // A secret, exported with --show-secrets: `{ <signature>, plaintext: <its JSON> }`.
  const secret = client.outputs.clientSecret;
  return typeof secret === "string" ? secret : JSON.parse(secret.plaintext);
}

async function secretValid(em: EmulatorHandle, project: string, branch: string, clientId: string, secret: string): Promise<boolean> {
  const res = await fetch(`${em.controlUrl}/projects/${project}/branches/${branch}/oauth_client_secret_check`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_id: clientId, client_secret: secret }),
  });
  return ((await res.json()) as { valid: boolean }).valid;
}

const writes = async (em: EmulatorHandle) => (await requestLog(em)).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

async function everyday(face: Face, project: string, em: EmulatorHandle, e2e: E2eStack, branch: string): Promise<void> {
  const set = (s: Spec[]) => e2e.stack.setConfig("resources", { value: JSON.stringify(s) });
  const urn = (kind: string, name: string, parentType = BOX) => `urn:pulumi:${e2e.stack.name}::plugin::${parentType}$${typeOf(face, kind)}::${name}`;

  // A component holding a NeonAuth and each of its child kinds (two OAuth providers, GitHub's with a secret): 1 stack + 1 component + 7.
  expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ create: 9 });
  await expectNoChanges(e2e.stack, 9);
  const declared = await branchSnapshot(em, project, branch);
  expect(declared).toMatchObject({ auth: { name: "Everyday" }, providers: providers({ github: "standard", google: "shared" }), domains: [SITE], email: { type: "shared" } });
  const [ada] = await branchUserRows(em, project, branch);
  expect(ada).toMatchObject({ email: "ada@example.com", name: "Ada", role: "admin" });
  const [publicClient] = await clients(em, project, branch);

  // A rename with aliases: nothing changes, nothing is written.
  await set(specs(project, branch, { names: { app: "app-origin" }, more: { "app-origin": { aliases: ["app"] } } }));
  await clearRequestLog(em);
  expect(changesOf((await e2e.stack.preview({ color: "never", expectNoChanges: true })).changeSummary)).toEqual({});
  expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ same: 9 });
  expect(await writes(em)).toEqual([]);

  // An OAuthClient's type change replaces it in one up: deleted first (Neon keys it by name), a new id and secret.
  await set(specs(project, branch, { names: { app: "app-origin" }, clientType: "confidential" }));
  await clearRequestLog(em);
  expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ replace: 1, same: 8 });
  const CLIENTS = `/api/v2/projects/${project}/branches/${branch}/auth/oauth-provider/clients`;
  expect(await writes(em)).toEqual([`DELETE ${CLIENTS}/${publicClient!.client_id}`, `POST ${CLIENTS}`]);
  const [confidential, ...others] = await clients(em, project, branch);
  expect(others).toEqual([]);
  expect(confidential).toMatchObject({ name: "CLI", type: "confidential" });
  expect(confidential!.client_id).not.toBe(publicClient!.client_id);
  await atEmulator(async () => expect(await secretValid(em, project, branch, confidential!.client_id, clientSecretInState(e2e))).toBe(true));

  // A rename without aliases: the default Google provider and the shared email server are taken on,
  // a domain and a user are refused with aliases named first.
  await set(specs(project, branch, { names: RENAMED, clientType: "confidential" }));
  await clearRequestLog(em);
  const refused = await failing(() => e2e.stack.up({ color: "never" }));
  // The engine stops at the first failure: the user's create may not have started.
  const objects = [`RedirectDomain ${SITE} of branch ${branch} of project ${project}`, `AuthUser ada@example.com of branch ${branch} of project ${project}`];
  const refusals = objects.map((o) => refused.indexOf(`${o} already exists and was not made by this stack under this name. If this stack declares it under another name`));
  expect(refusals.filter((at) => at >= 0).length).toBeGreaterThan(0);
  for (const at of refusals.filter((at) => at >= 0)) {
    const message = refused.slice(at);
    expect(message.indexOf("give this resource `aliases`")).toBeLessThan(message.indexOf("set `adopt: true`"));
  }
  expect((await writes(em)).filter((w) => w.startsWith("DELETE"))).toEqual([]);

  // With the adopt the error suggests: the old resources leave the stack, their objects stay.
  await set(settled(project, branch));
  await clearRequestLog(em);
  const up = await e2e.stack.up({ color: "never" });
  expect(up.summary.resourceChanges?.delete).toBe(4);
  expect((await writes(em)).filter((w) => w.startsWith("DELETE"))).toEqual([]);
  // Said once for each (the engine prints each diagnostic twice: on its resource's line and in the summary).
  const left = new Set([...up.stdout.matchAll(/neon-auth: (\w+) \S+ is not deleted at Neon: another resource of this deployment declares or took this object/g)].map((m) => m[0]));
  expect([...left].map((line) => line.split(" ")[1]).sort()).toEqual(["AuthUser", "EmailServer", "OAuthProvider", "RedirectDomain"]);
  expect(await branchSnapshot(em, project, branch)).toEqual(declared);
  // The same account: its id and record untouched (no DELETE reached it, so its sessions stay).
  expect(await branchUserRows(em, project, branch)).toEqual([ada]);
  await expectNoChanges(e2e.stack, 9);

  // Two components declaring one origin under one short name: refused at preview, naming both URNs.
  const other = "everyday:index:Other";
  await set(
    specs(project, branch, {
      names: RENAMED,
      clientType: "confidential",
      more: ADOPTED,
      extra: [
        { kind: "Component", name: "other", args: { type: other } },
        { kind: "RedirectDomain", name: "web", args: { integration: "auth", domain: SITE }, parent: "other" },
      ],
    }),
  );
  await clearRequestLog(em);
  const twice = await failing(() => e2e.stack.preview({ color: "never" }));
  expect(twice).toContain("declare one origin (domain): both would manage one object at Neon");
  expect(twice).toContain(urn("RedirectDomain", "web"));
  expect(twice).toContain(urn("RedirectDomain", "web", other));
  expect(await writes(em)).toEqual([]);
  await set(settled(project, branch));
}

/**
 * Moves the classes' stack onto the plugin as the README says (`--move-to-plugin`), with no write to
 * Neon (the GitHub provider's secret moved with it); then it refreshes with no change and updates
 * through the plugin.
 */
async function movedAndRefreshed(em: EmulatorHandle, e2e: E2eStack, project: string, branch: string): Promise<void> {
  const before = await branchSnapshot(em, project, branch);
  await moveToPlugin(e2e);
  await clearRequestLog(em);
  // As the README says: a preview and an up with no changes (the up records the plugin's settings), then refresh.
  expect(changesOf((await e2e.stack.preview({ color: "never", expectNoChanges: true })).changeSummary)).toEqual({});
  expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ same: 9 });
  expect(changesOf((await e2e.stack.refresh({ color: "never", expectNoChanges: true })).summary.resourceChanges)).toEqual({});
  expect(await writes(em)).toEqual([]);
  const types = JSON.parse(e2e.cli("stack", "export")).deployment.resources.map((r: { urn: string }) => r.urn.split("::")[2]);
  expect(types.filter((t: string) => t.startsWith(`${BOX}$`)).sort()).toEqual(
    ["AuthUser", "EmailServer", "NeonAuth", "OAuthClient", "OAuthProvider", "OAuthProvider", "RedirectDomain"].map((k) => `${BOX}$neon-auth:index:${k}`),
  );
  // No dynamic resource is left: the plugin's provider is the only other one of the package.
  expect(types.filter((t: string) => t.includes("neon-auth") && !t.startsWith(`${BOX}$`))).toEqual(["pulumi:providers:neon-auth"]);
  expect(await branchSnapshot(em, project, branch)).toEqual(before);

  await e2e.stack.setConfig("resources", { value: JSON.stringify(settled(project, branch, "Moved")) });
  expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ update: 1, same: 8 });
  expect((await branchSnapshot(em, project, branch)).auth?.name).toBe("Moved");
}

/** A YAML program's domain with `options: parent`: its URN's type is `neon-auth:index:NeonAuth$neon-auth:index:RedirectDomain`. */
const PARENTED = `
  app:
    type: neon-auth:index:RedirectDomain
    properties:
      integration: \${auth.ref}
      domain: ${SITE}
      adopt: ADOPT
    options:
      parent: \${auth}
`;

/**
 * A resource with a parent in YAML, on the plugin's RPCs: check, create, diff (of `adopt`, a
 * create-time switch: no change), read, delete.
 */
async function parentedInYaml(em: EmulatorHandle, project: string, branch: string): Promise<void> {
  const e2e = await pluginStack({ program: path.join(__dirname, "programs", "one-owner-yaml"), config: { ...neonConfig(em), projectId: { value: project }, branchId: { value: branch } } }, "yaml");
  try {
    const program = path.join(e2e.dir, "Pulumi.yaml");
    const base = fs.readFileSync(program, "utf8");
    fs.writeFileSync(program, base + PARENTED.replace("ADOPT", "false"));
    expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ create: 3 });
    fs.writeFileSync(program, base + PARENTED.replace("ADOPT", "true"));
    expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ same: 3 });
    await expectNoChanges(e2e.stack, 3);
    const urns = JSON.parse(e2e.cli("stack", "export")).deployment.resources.map((r: { urn: string }) => r.urn);
    expect(urns).toContain(`urn:pulumi:${e2e.stack.name}::one-owner-yaml::neon-auth:index:NeonAuth$neon-auth:index:RedirectDomain::app`);
    expect((await branchSnapshot(em, project, branch)).domains).toEqual([SITE]);
    expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 3 });
    expect((await branchSnapshot(em, project, branch)).auth).toBeUndefined();
  } finally {
    await e2e.cleanup();
  }
}

describe("everyday Pulumi: components, renames and replacements", () => {
  for (const face of ["dynamic", "plugin"] as const) {
    it(`${face === "dynamic" ? "the classes (then moved onto the plugin)" : "the plugin (Node.js SDK, then a YAML program)"}: a component, aliases, a replacement, renames without aliases, one origin twice`, { timeout: 900_000 }, async () => {
      const project = `p-everyday-${face}`;
      const stack = (em: EmulatorHandle, branch: string) =>
        pluginStack({ program: PROGRAM, config: { ...neonConfig(em), resources: { value: JSON.stringify(specs(project, branch)) }, surface: { value: face } } }, "nodejs");
      await onFreshEmulator(
        project,
        stack,
        async ({ em, e2e, branch }) => {
          await everyday(face, project, em, e2e, branch);
          if (face === "dynamic") await movedAndRefreshed(em, e2e, project, branch);
          expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 9 });
          expect((await branchSnapshot(em, project, branch)).auth).toBeUndefined();
          if (face === "plugin") await parentedInYaml(em, project, branch);
        },
        { rateLimit: "off" },
      );
    });
  }
});
