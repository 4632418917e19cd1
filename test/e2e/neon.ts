/**
 * What exists at the emulator, read over its public API with plain fetch (not through our
 * client), so e2e assertions do not trust the code under test.
 */
import type { ConfigMap } from "@pulumi/pulumi/automation";
import { expect } from "vitest";
import { apiConfig } from "../../scripts/workspace.mts";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { BRANCH_SETTINGS } from "../../src/schemas/endpointsBranch";
import { REMOTE, remoteEmulator } from "./remote";

export const API_KEY = "e2e-key-4f1d2c9a7b";

export async function emulator(opts: Parameters<typeof startEmulator>[0] = {}): Promise<EmulatorHandle> {
  // Remote mode (test/e2e/remote.ts): the same test against NEON_AUTH_E2E_TARGET, through a proxy.
  if (REMOTE) return remoteEmulator({ apiKeys: [API_KEY], ...opts });
  // Strict: a field the package misspells fails its tests rather than being ignored (as Neon would).
  return startEmulator({ port: 0, apiKeys: [API_KEY], operationDelayMs: 0, strict: true, ...opts });
}

/** Stack config that points a program at the emulator with the e2e key. */
export function neonConfig(em: EmulatorHandle): ConfigMap {
  return apiConfig(em.url, API_KEY);
}

/**
 * The values of a program on one project: its project and branch, and its own secrets (each kept
 * secret in the stack's config).
 */
export function projectConfig(project: string, branch: string, secrets: Record<string, string> = {}): ConfigMap {
  return { projectId: { value: project }, branchId: { value: branch }, ...secretConfig(secrets) };
}

/** A program's own secrets, each kept secret in the stack's config (programs whose stack files name the project). */
export function secretConfig(secrets: Record<string, string>): ConfigMap {
  return Object.fromEntries(Object.entries(secrets).map(([key, value]) => [key, { value, secret: true }]));
}

/**
 * Stack config of examples/full-setup on the emulator. Each test passes secrets of its own, so
 * that a leak found in one test's output cannot have come from another's.
 */
export function fullSetupConfig(
  em: EmulatorHandle,
  o: { project: string; branch: string; githubClientSecret: string; smtpPassword: string; extraDomains: number },
): ConfigMap {
  return {
    ...neonConfig(em),
    ...projectConfig(o.project, o.branch, { githubClientSecret: o.githubClientSecret, smtpPassword: o.smtpPassword }),
    extraDomains: { value: String(o.extraDomains) },
  };
}

/**
 * What examples/full-setup declares, as the API shows it (never a secret), for the tests that
 * check it converged; the domains with `extraDomains` more, sorted as `snapshot` gives them.
 */
export const FULL_SETUP_EMAIL = {
  type: "standard",
  host: "smtp.example.com",
  port: 587,
  username: "apikey",
  sender_email: "auth@example.com",
  sender_name: "Example Auth",
};
export const FULL_SETUP_PROVIDERS = [
  { id: "github", type: "standard" },
  { id: "google", type: "shared" },
];
export const FULL_SETUP_USERS = [
  { email: "ada@example.com", name: "Ada Lovelace" },
  { email: "grace@example.com", name: "Grace Hopper" },
];
export function fullSetupDomains(extra: number): string[] {
  const extras = Array.from({ length: extra }, (_, i) => `https://app-${i + 1}.example.com`);
  return ["http://localhost:3000", "https://app.example.com", "https://staging.example.com", ...extras].sort();
}

/**
 * The email server programs/all-kinds declares, as the API shows it: one copy, so that the tests
 * that check it and those that make the same one in the console cannot drift from the program.
 */
export const ALL_KINDS_EMAIL = {
  type: "standard",
  host: "smtp.example.com",
  port: 587,
  username: "apikey",
  sender_email: "auth@example.com",
  sender_name: "Example",
};

/**
 * What both large stacks of programs/neon-auth-children (neon-auth-children.test.ts and
 * faults-neon-auth.test.ts) declare alike: a core of settings, 20 domains and 3 users with roles.
 * Each test adds its own providers and secrets, so that a leak names its test.
 */
export const CHILDREN_SETTINGS = {
  appName: "Acme",
  allowLocalhost: false,
  emailAndPassword: { enabled: true, requireEmailVerification: true },
  organization: { enabled: true },
  magicLink: { enabled: true, expiresIn: 15 },
};
export const CHILDREN_DOMAINS = Array.from({ length: 20 }, (_, i) => `https://app${i}.example.com`);
export const CHILDREN_USERS = [
  { name: "alice", email: "alice@example.com", displayName: "Alice", roles: ["admin"] },
  { name: "bob", email: "bob@example.com", displayName: "Bob", roles: ["user"] },
  { name: "carol", email: "carol@example.com", displayName: "Carol", roles: ["admin", "user"] },
];

async function get(em: EmulatorHandle, path: string, key = API_KEY): Promise<any> {
  let res = await fetch(`${em.url}${path}`, { headers: { authorization: `Bearer ${key}`, accept: "application/json" } });
  // The test's own reads share the key's rate limit with the run just measured (an emulator at
  // Neon's limits): a 429 is waited out as any client would, it is not what the test checks.
  for (let i = 0; res.status === 429 && i < 10; i++) {
    await new Promise((r) => setTimeout(r, 1000 * Math.max(1, Number(res.headers.get("retry-after") ?? 1))));
    res = await fetch(`${em.url}${path}`, { headers: { authorization: `Bearer ${key}`, accept: "application/json" } });
  }
  if (res.status === 404) return undefined;
  expect(res.status, `GET ${path}`).toBe(200);
  return res.json();
}

export interface AuthSnapshot {
  integrations: { auth_provider: string; branch_id: string; owned_by: string }[];
  providers: { id: string; type: string }[];
  domains: string[];
  email: Record<string, unknown> | undefined;
  users: { email: string; name: string | null }[];
}

/** Everything auth-related on a project, sorted, for exact comparisons. */
export async function snapshot(em: EmulatorHandle, projectId: string, key = API_KEY): Promise<AuthSnapshot> {
  const integrations = (await get(em, `/projects/${projectId}/auth/integrations`, key))?.data ?? [];
  const providers = (await get(em, `/projects/${projectId}/auth/oauth_providers`, key))?.providers ?? [];
  const domains = (await get(em, `/projects/${projectId}/auth/domains`, key))?.domains ?? [];
  const email = await get(em, `/projects/${projectId}/auth/email_server`, key);
  const users = await currentUsers(em, projectId);
  return {
    integrations: integrations.map((i: any) => ({ auth_provider: i.auth_provider, branch_id: i.branch_id, owned_by: i.owned_by })),
    providers: providers.map((p: any) => ({ id: p.id, type: p.type })).sort((a: any, b: any) => a.id.localeCompare(b.id)),
    domains: domains.map((d: any) => d.domain).sort(),
    email,
    users: users.map((u: any) => ({ email: u.email, name: u.name ?? null })).sort((a: any, b: any) => a.email.localeCompare(b.email)),
  };
}

/**
 * The project-level integration's users as `neon_auth.users_sync` shows them now: the emulator's
 * control route, or in remote mode the table itself (no row when there is no integration).
 */
async function currentUsers(em: EmulatorHandle, projectId: string): Promise<{ email: string; name: string | null }[]> {
  if (REMOTE) {
    const rows = await usersSyncRows(em, projectId).catch(() => []);
    return rows.filter((r) => !r.deleted);
  }
  const res = await fetch(`${em.controlUrl}/projects/${projectId}/users_sync`);
  return res.status === 200 ? (((await res.json()) as any).rows ?? []) : [];
}

export async function requestLog(em: EmulatorHandle): Promise<{ method: string; path: string; status: number }[]> {
  const res = await fetch(`${em.controlUrl}/requests`);
  const body = (await res.json()) as any;
  return (Array.isArray(body) ? body : body.requests ?? body.entries ?? []) as any[];
}

export async function clearRequestLog(em: EmulatorHandle): Promise<void> {
  await fetch(`${em.controlUrl}/requests`, { method: "DELETE", headers: { "content-type": "application/json" } });
}

/** Calls the API directly, as someone working outside the stack would (a pipeline, the console): the status and the answer. */
export async function neonApi(em: EmulatorHandle, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${em.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json", accept: "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === "" ? undefined : JSON.parse(text) };
}

/** The same, when the status is all that matters. */
export async function outOfBand(em: EmulatorHandle, method: string, path: string, body?: unknown): Promise<number> {
  return (await neonApi(em, method, path, body)).status;
}

/**
 * Everything of a branch's Neon Auth, as bytes: the emulator's whole record (secrets included) and
 * both of Better Auth's tables in the branch's database. In remote mode, where no control route
 * shows the record, the record is what the public API shows of it (no secret).
 */
export async function branchBytes(em: EmulatorHandle, projectId: string, branchId: string): Promise<string> {
  const record = REMOTE
    ? JSON.stringify(await publicAuthRecord(em, projectId, branchId))
    : await (await fetch(`${em.controlUrl}/projects/${projectId}/branches/${branchId}/auth?secrets=true`)).text();
  const users = await branchSql(em, projectId, branchId, 'SELECT * FROM neon_auth."user" ORDER BY email');
  const config = await branchSql(em, projectId, branchId, "SELECT * FROM neon_auth.project_config");
  return JSON.stringify({ record: JSON.parse(record), users, config });
}

/** A branch's Neon Auth as the public API answers it, every field of every read. */
async function publicAuthRecord(em: EmulatorHandle, projectId: string, branchId: string): Promise<unknown> {
  const base = `/projects/${projectId}/branches/${branchId}/auth`;
  const auth = await get(em, base);
  if (auth === undefined) return null;
  return { auth, plugins: await get(em, `${base}/plugins`), domains: await get(em, `${base}/domains`), clients: await get(em, `${base}/oauth-provider/clients`) };
}

/** How many faults of the kinds a run meets at random (errors, resets, lost answers, locks) the emulator injected. */
export function faultsInjected(em: EmulatorHandle): number {
  const i = em.faults.injected;
  return (i.error ?? 0) + (i.reset ?? 0) + (i.lost ?? 0) + (i.lock ?? 0);
}

/** Makes a branch of a project through Neon's branch API, as a pipeline does; answers its id. */
export async function newBranch(em: EmulatorHandle, projectId: string, name: string): Promise<string> {
  const res = await fetch(`${em.url}/projects/${projectId}/branches`, {
    method: "POST",
    headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ branch: { name } }),
  });
  if (res.status !== 201) throw new Error(`creating branch ${name}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { branch: { id: string } }).branch.id;
}

/** Runs one statement on a branch's database (default: the project's default branch) through the URI `connection_uri` gives. */
export async function branchSql<R = any>(em: EmulatorHandle, projectId: string, branchId: string | undefined, text: string, params: unknown[] = []): Promise<R[]> {
  const branch = branchId === undefined ? "" : `&branch_id=${branchId}`;
  const res = await fetch(`${em.url}/projects/${projectId}/connection_uri?database_name=neondb&role_name=neondb_owner${branch}`, {
    headers: { authorization: `Bearer ${API_KEY}`, accept: "application/json" },
  });
  if (res.status !== 200) throw new Error(`connection_uri: ${res.status} ${await res.text()}`);
  const { uri } = (await res.json()) as { uri: string };
  const { Client } = await import("pg");
  const c = new Client({ connectionString: uri, connectionTimeoutMillis: 20_000 });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as R[];
  } finally {
    await c.end();
  }
}

/** `neon_auth.users_sync` as `pg` reads it through the URI `connection_uri` gives (email order). */
export async function usersSyncRows(em: EmulatorHandle, projectId: string): Promise<{ id: string; email: string; name: string | null; deleted: boolean }[]> {
  return branchSql(em, projectId, undefined, "SELECT id, email, name, deleted_at IS NOT NULL AS deleted FROM neon_auth.users_sync ORDER BY email, deleted");
}

/** `neon_auth."user"` of a Better Auth branch (email order). */
export async function branchUserRows(em: EmulatorHandle, projectId: string, branchId: string): Promise<{ id: string; email: string; name: string; role: string | null; banned: boolean | null }[]> {
  return branchSql(em, projectId, branchId, 'SELECT id::text, email, name, role, banned FROM neon_auth."user" ORDER BY email');
}

export interface BranchSnapshot {
  auth: { name: string; auth_provider: string } | undefined;
  allow_localhost?: boolean;
  require_email_verification?: boolean;
  providers: { id: string; type: string }[];
  domains: string[];
  email: Record<string, unknown> | undefined;
}

/** Everything Neon Auth holds on one branch, over the public API, sorted, for exact comparisons. */
export async function branchSnapshot(em: EmulatorHandle, projectId: string, branchId: string, key = API_KEY): Promise<BranchSnapshot> {
  const base = `/projects/${projectId}/branches/${branchId}/auth`;
  const auth = await get(em, base, key);
  if (auth === undefined) return { auth: undefined, providers: [], domains: [], email: undefined };
  const plugins = await get(em, `${base}/plugins`, key);
  const domains = (await get(em, `${base}/domains`, key))?.domains ?? [];
  return {
    auth: { name: auth.name, auth_provider: auth.auth_provider },
    allow_localhost: plugins.allow_localhost,
    require_email_verification: plugins.email_and_password?.require_email_verification,
    providers: (plugins.oauth_providers ?? []).map((p: any) => ({ id: p.id, type: p.type })).sort((a: any, b: any) => a.id.localeCompare(b.id)),
    domains: domains.map((d: any) => d.domain).sort(),
    email: plugins.email_provider,
  };
}

/** Providers as `branchSnapshot` lists them (`{ id, type }`, by id), written `{ github: "standard" }`: one line a list. */
export const providers = (types: Record<string, string>) => Object.entries(types).map(([id, type]) => ({ id, type }));

/**
 * A whole `branchSnapshot`, every value given: the six fields on one line each test reads, rather
 * than the same nine-line literal in every file that checks a branch exactly.
 */
export function branchState(o: { name: string; localhost: boolean; verification: boolean; providers: Record<string, string>; domains: string[]; email: Record<string, unknown> }): BranchSnapshot {
  return {
    auth: { name: o.name, auth_provider: "better_auth" },
    allow_localhost: o.localhost,
    require_email_verification: o.verification,
    providers: providers(o.providers),
    domains: o.domains,
    email: o.email,
  };
}

/** A RedirectDomain child of the program's `auth` in a YAML program on the plugin; `more` adds property lines. */
export const yamlDomain = (name: string, domain: string, more = "") => `
  ${name}:
    type: neon-auth:index:RedirectDomain
    properties:
      integration: \${auth.ref}
      domain: ${domain}${more}`;

/** A NeonAuth's singleton settings as the e2e set them, all but the webhooks (each file names its own secret URL) and the OAuth server. */
export const NEON_AUTH_SETTINGS = {
  appName: "Acme",
  allowLocalhost: false,
  emailAndPassword: { enabled: true, requireEmailVerification: true },
  organization: { enabled: true, creatorRole: "admin" },
  magicLink: { enabled: true, expiresIn: 15 },
  phoneNumber: { enabled: true, otpExpiresIn: 120 },
};

/** Neon's email-and-password settings of a new Neon Auth (the settings table's, pinned by the contract tests), which the e2e state as what differs from them. */
export const NEON_EMAIL_AND_PASSWORD = BRANCH_SETTINGS.find((row) => row.key === "email_and_password")!.initial;
