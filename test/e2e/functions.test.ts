/**
 * Functions (issue 51) through the engine. One stack (programs/functions-managed, the classes)
 * makes a branch's Neon Auth with every setting, Google and GitHub, two trusted domains, the OAuth
 * server with a client and two users with roles, and a project-level integration; its own
 * output-form function is unknown at the first preview and read once its NeonAuth exists. Then
 * three stacks that manage nothing read it all with every function: a TypeScript program on the
 * classes, a YAML and a Go program on the plugin. Exact values; GETs only at the emulator; no
 * secret in any output, state or log; the errors of a branch without auth, a missing project and a
 * wrong key.
 */
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { capture, found } from "./census";
import { expectNoChanges, pluginStack, stackFor, useEmulatorStack, type E2eStack } from "./harness";
import { API_KEY, clearRequestLog, NEON_AUTH_SETTINGS, neonApi, neonConfig, newBranch, requestLog, secretConfig } from "./neon";

const PROGRAMS = path.join(__dirname, "programs");
const P = "p-functions";
const B = `br-main-${P}`;
const PP = "p-functions-project";
const PB = `br-main-${PP}`;
const GH_SECRET = "gh-fn-secret-5e1c";
const WEBHOOK = "https://hooks.example.com/in?token=fn-hook-7a2b";
/** The managed NeonAuth's singleton settings, which the functions read back. */
const SETTINGS = { ...NEON_AUTH_SETTINGS, allowLocalhost: true };

describe("functions: read without managing, on both faces", () => {
  let bare = "";
  const s = useEmulatorStack({
    emulator: { seedProjects: [`${P}:${B}`, `${PP}:${PB}`] },
    // Made before Neon Auth is enabled on its parent, so it has none.
    prepare: async (em) => void (bare = await newBranch(em, P, "bare")),
    stack: (em) => ({
      program: path.join(PROGRAMS, "functions-managed"),
      config: {
        ...neonConfig(em),
        projectId: { value: P },
        branchId: { value: B },
        projectLevelProject: { value: PP },
        projectLevelBranch: { value: PB },
        settings: { value: JSON.stringify(SETTINGS) },
        ...secretConfig({ githubSecret: GH_SECRET, webhookUrl: WEBHOOK }),
      },
    }),
  });
  const readers: E2eStack[] = [];
  afterAll(async () => {
    for (const r of readers) await r.cleanup();
  });

  /** What the managed stack made, for the exact values the readers must answer. */
  let made: { baseUrl: string; clientId: string; clientSecret: string };
  const secrets = (): [string, string][] => [
    ["GitHub client secret", GH_SECRET],
    ["webhook URL", WEBHOOK],
    ["webhook token", "fn-hook-7a2b"],
    ["OAuth client secret", made.clientSecret],
    ["API key", API_KEY],
  ];

  /** A reader's config: where to read, on this emulator with this key. */
  const readerConfig = (em: EmulatorHandle) => ({
    ...neonConfig(em),
    projectId: { value: P },
    branchId: { value: B },
    projectLevelProject: { value: PP },
    bareBranch: { value: bare },
  });

  it("a stack makes all there is to read; its output-form function previews as unknown, then reads its own NeonAuth", { timeout: 600_000 }, async () => {
    // At the first preview nothing exists: the function waits for its NeonAuth and sends nothing
    // (run, it would GET the branch's auth), so its result is unknown.
    await clearRequestLog(s.em);
    await s.e2e.stack.preview({ color: "never" });
    expect((await requestLog(s.em)).filter((r) => r.path.includes(`/branches/${B}/auth`))).toEqual([]);
    await s.e2e.stack.up({ color: "never" });
    const outs = await s.e2e.stack.outputs();
    made = { baseUrl: outs.baseUrl!.value, clientId: outs.clientId!.value, clientSecret: outs.clientSecret!.value };
    expect(made.baseUrl).toMatch(/^https?:\/\/.+/);
    expect(outs.fedBaseUrl!.value).toBe(made.baseUrl);
    expect(outs.issuer!.value).toBe(made.baseUrl);
    expect(outs.discoveryUrl!.value).toBe(`${made.baseUrl}/.well-known/openid-configuration`);
    // The checkpoint `stack export` prints.
    const state = (await s.e2e.stack.exportStack()) as { deployment: { resources: { urn: string; outputs?: Record<string, unknown> }[] } };
    const callback = (name: string) => state.deployment.resources.find((r) => r.urn.endsWith(`::${name}`))?.outputs?.callbackUrl;
    expect([callback("github"), callback("google"), callback("project-github")]).toEqual([`${made.baseUrl}/callback/github`, `${made.baseUrl}/callback/google`, undefined]);
    await expectNoChanges(s.e2e.stack);
  });

  /** One reader's up: exact outputs, GETs only, nothing managed, no secret anywhere; then no changes. */
  async function readWith(reader: E2eStack): Promise<Record<string, any>> {
    readers.push(reader);
    const { seen, LOUD } = capture();
    await clearRequestLog(s.em);
    await reader.stack.up(LOUD);
    const log = await requestLog(s.em);
    expect(log.length).toBeGreaterThan(0);
    expect(log.filter((r) => r.method !== "GET")).toEqual([]);
    // Secrets stay encrypted: on the plugin the state holds the default provider, whose key is a secret input.
    // What `stack export` and `stack output --json --show-secrets` print, read from the checkpoint.
    const deployment = (await reader.stack.exportStack()) as { deployment: { resources: { type: string }[] } };
    const exported = JSON.stringify(deployment);
    expect(deployment.deployment.resources.map((r) => r.type).filter((t) => !t.startsWith("pulumi:"))).toEqual([]);
    const shown = JSON.stringify(Object.fromEntries(Object.entries(await reader.stack.outputs()).map(([k, v]) => [k, v.value])));
    const places: [string, string][] = [
      ["stack export", exported],
      ["stack output", shown],
      ["CLI output of up", seen.join("\n")],
      ["emulator request log", JSON.stringify(log)],
    ];
    expect(found(places, secrets())).toEqual([]);
    await expectNoChanges(reader.stack);
    return JSON.parse(shown) as Record<string, any>;
  }

  const providers = () => [
    { id: "github", type: "standard", clientId: "gh-app-id", callbackUrl: `${made.baseUrl}/callback/github` },
    { id: "google", type: "shared", callbackUrl: `${made.baseUrl}/callback/google` },
  ];
  const user = (email: string, name: string, roles: string[]) => ({ email, name, roles, emailVerified: false, banned: false, id: expect.any(String), createdAt: expect.stringMatching(/^\d{4}-/) });
  const byId = (list: { id: string }[]) => [...list].sort((a, b) => a.id.localeCompare(b.id));

  it("a TypeScript program on the classes reads every function, and manages nothing", { timeout: 600_000 }, async () => {
    const o = await readWith(await stackFor({ program: path.join(PROGRAMS, "functions-reader"), config: readerConfig(s.em) }));
    expect(o.neonAuth).toMatchObject({
      enabled: true,
      projectId: P,
      branchId: B,
      authProvider: "better_auth",
      baseUrl: made.baseUrl,
      schemaName: "neon_auth",
      ...SETTINGS,
      webhooks: { enabled: true, enabledEvents: ["user.created"], timeoutSeconds: 5 },
      oauthServer: { enabled: true, loginPage: "https://app.example.com/sign-in", consentPage: "https://app.example.com/consent", resources: ["https://api.example.com"] },
      oauthServerIssuer: made.baseUrl,
      oauthServerDiscoveryUrl: `${made.baseUrl}/.well-known/openid-configuration`,
    });
    expect(o.neonAuth.webhooks).not.toHaveProperty("webhookUrl");
    expect(byId(o.providers.providers)).toEqual(providers());
    expect({ ...o.domains, domains: [...o.domains.domains].sort() }).toEqual({ projectId: P, branchId: B, domains: ["https://*.preview.example.com", "https://app.example.com"], allowLocalhost: true });
    expect(o.oauthServer).toMatchObject({ enabled: true, issuer: made.baseUrl, discoveryUrl: `${made.baseUrl}/.well-known/openid-configuration` });
    expect(o.oauthServer.clients).toEqual([
      { clientId: made.clientId, name: "Gateway", type: "confidential", redirectUris: ["https://app.example.com/oauth/callback"], resources: ["https://api.example.com"], skipConsent: false, disabled: false, createdAt: expect.any(String) },
    ]);
    expect(o.users.users).toEqual([user("ada@example.com", "Ada", ["admin", "user"]), user("bob@example.com", "Bob", ["user"])]);
    expect(o.ada).toEqual([user("ada@example.com", "Ada", ["admin", "user"])]);
    expect(o.integration).toMatchObject({ projectId: PP, authProvider: "stack", branchId: PB, oauthProviders: [{ id: "github", type: "standard" }], domains: ["https://project.example.com"] });
    expect(o.bare).toEqual({ enabled: false, projectId: P, branchId: bare });
  });

  it("a YAML program on the plugin reads every function with fn::invoke, and manages nothing", { timeout: 600_000 }, async () => {
    // What trusts the branch's tokens, made outside any stack: its Data API and a project JWKS entry.
    const jwks = { jwks_url: "https://example.clerk.accounts.dev/.well-known/jwks.json", provider_name: "Clerk", jwt_audience: "api://app" };
    expect((await neonApi(s.em, "POST", `/projects/${P}/branches/${B}/data-api/neondb`, { auth_provider: "neon_auth", settings: { db_schemas: ["api"], db_max_rows: 250 } })).status).toBe(201);
    expect((await neonApi(s.em, "POST", `/projects/${P}/jwks`, jwks)).status).toBe(201);
    const o = await readWith(await pluginStack({ program: path.join(PROGRAMS, "functions-yaml"), config: readerConfig(s.em) }, "yaml"));
    expect(o.neonAuth).toMatchObject({ enabled: true, baseUrl: made.baseUrl, oauthServerIssuer: made.baseUrl, webhooks: { enabled: true } });
    expect(o.neonAuth.webhooks).not.toHaveProperty("webhookUrl");
    expect(byId(o.providers)).toEqual(providers());
    expect(o.oauthServer).toMatchObject({ issuer: made.baseUrl, clients: [{ clientId: made.clientId, name: "Gateway" }] });
    expect(o.users).toEqual([user("bob@example.com", "Bob", ["user"])]);
    expect(o.integration).toMatchObject({ authProvider: "stack", oauthProviders: [{ id: "github", type: "standard" }], domains: ["https://project.example.com"] });
    expect(o.bare).toEqual({ enabled: false, projectId: P, branchId: bare });
    expect(o.dataApi).toMatchObject({ projectId: P, branchId: B, database: "neondb", exists: true, url: expect.stringMatching(/^https:\/\//), dbSchemas: ["api"], dbMaxRows: 250, jwtRoleClaimKey: ".role" });
    expect(o.jwks).toEqual({ projectId: P, entries: [{ jwksId: expect.any(String), jwksUrl: jwks.jwks_url, providerName: "Clerk", jwtAudience: "api://app", createdAt: expect.any(String) }] });
    expect(o.noDataApi).toEqual({ projectId: P, branchId: bare, database: "neondb", exists: false });
  });

  it("a Go program on the plugin reads every function, direct and output forms, and manages nothing", { timeout: 900_000 }, async () => {
    const o = await readWith(await pluginStack({ program: path.join(PROGRAMS, "functions-go"), config: readerConfig(s.em) }, "go"));
    expect(o.baseUrl).toBe(made.baseUrl);
    expect(o.neonAuth).toMatchObject({ enabled: true, oauthServerIssuer: made.baseUrl, oauthServerDiscoveryUrl: `${made.baseUrl}/.well-known/openid-configuration` });
    // Go's optional fields are pointers: compared by the fields every provider has.
    expect(byId(o.callbackUrls).map(({ id, type, callbackUrl }: any) => ({ id, type, callbackUrl }))).toEqual(providers().map(({ id, type, callbackUrl }) => ({ id, type, callbackUrl })));
    expect(o.oauthServer).toMatchObject({ issuer: made.baseUrl, clients: [{ clientId: made.clientId }] });
    expect(o.users.map((u: { email: string; roles: string[] }) => [u.email, u.roles])).toEqual([["ada@example.com", ["admin", "user"]], ["bob@example.com", ["user"]]]);
    expect(o.integration).toMatchObject({ authProvider: "stack", domains: ["https://project.example.com"] });
  });

  it("fails naming the branch without Neon Auth, the project that is not there, and the setting of a wrong key", { timeout: 600_000 }, async () => {
    const reader = readers[0]!;
    const failure = async (): Promise<string> => {
      const err = await reader.run("preview", "--color", "never").then(() => undefined, (e: { stdout?: string; stderr?: string; message: string }) => `${e.stdout}\n${e.stderr}\n${e.message}`);
      expect(err, "the preview must fail").toBeDefined();
      return err!;
    };
    await reader.stack.setConfig("fail", { value: "providersOnBare" });
    expect(await failure()).toContain(`getOAuthProviders: branch ${bare} of project ${P} has no Neon Auth`);
    await reader.stack.setConfig("fail", { value: "missingProject" });
    expect(await failure()).toContain("getAuthIntegration: project p-nowhere answers 404 Not Found to the API key from neon-auth:apiKey (a wrong key or account");
    await reader.stack.removeConfig("fail");
    await reader.stack.setConfig("neon-auth:apiKey", { value: "e2e-wrong-key-0000", secret: true });
    const wrong = await failure();
    expect(wrong).toMatch(/401 from GET \S+: authentication failed: unknown API key .*; the API key is neon-auth:apiKey of this stack's configuration/);
    expect(wrong).not.toContain("e2e-wrong-key-0000");
    await reader.stack.setConfig("neon-auth:apiKey", { value: API_KEY, secret: true });
  });
});
