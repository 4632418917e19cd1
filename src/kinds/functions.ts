/**
 * The functions (Pulumi invokes), one declaration each (provider/declaration.ts `FunctionDeclaration`):
 * reads of what exists, for a program that does not manage it. Both faces run them through
 * `invokeFunction` (the plugin's `Invoke`, the TypeScript face's `get…`), and `npm run gen` writes
 * their schema entries, published types and reference from the declarations. They only send GETs
 * (and the users' read-back, a SELECT), and never return a secret: a secret field of a setting
 * (the webhook URL) is left out, and no key or client secret is read.
 */
import { z } from "zod";
import { isNotFound } from "../client";
import * as s from "../schemas";
import type { Context } from "../provider/context";
import type { FunctionDeclaration, Props } from "../provider/declaration";
import { checkInputs, compact, type Kind } from "../provider/kit";
import { generationOf, placeOf, type Scope } from "../provider/generation";
import { callbackUrl, oauthServerUrls } from "../provider/authUrls";
import { branchUsers } from "../provider/usersSync";
import { secretKeys } from "../schemas/fields";
import { AREAS, everyField, liveSettings, type Area } from "./neonAuthSettings";
import { listed } from "./oauthClient";
import { DATA_API_SETTINGS, readDataApi } from "./dataApi";
import { projectJwksList, projectJwksOutputs } from "./projectJwks";

const projectArg = s.projectId.describe("The Neon project id (`^[a-z0-9-]{1,60}$`).");
const branchArg = s.branchId.describe("The branch id (`^[a-z0-9-]{1,60}$`).");
const PROJECT_ARGS = z.strictObject({ projectId: projectArg });
const BRANCH_ARGS = PROJECT_ARGS.extend({ branchId: branchArg });

const str = (doc: string) => z.string().describe(doc);
const opt = (doc: string) => z.string().optional().describe(doc);
const bool = (doc: string) => z.boolean().describe(doc);
const list = <T extends z.ZodType>(item: T, doc: string) => z.array(item).describe(doc);
/** A list of objects, its words first. */
const items = (doc: string, shape: z.ZodRawShape) => list(z.object(shape), doc);
/** Where a function read: the first fields of its result. */
const PROJECT_RESULT = { projectId: str("The Neon project.") };
const BRANCH_RESULT = { ...PROJECT_RESULT, branchId: str("The branch.") };

/** A setting's fields as a function answers them: every field but the secret ones. */
const PUBLIC_AREAS = Object.fromEntries(
  Object.entries(AREAS).map(([k, v]) => [k, v.omit(Object.fromEntries(secretKeys(v).map((f) => [f, true])) as never).optional().describe(`As \`NeonAuth.${k}\`${secretKeys(v).length > 0 ? `, without ${secretKeys(v).join(", ")} (a secret)` : ""}.`)]),
) as Record<Area, z.ZodOptional<z.ZodObject>>;
/** Every field of every setting a function reads (what `liveSettings` takes). */
const PUBLIC_SETTINGS: Props = { appName: true, allowLocalhost: true, ...Object.fromEntries(Object.entries(PUBLIC_AREAS).map(([k, v]) => [k, everyField(v.unwrap().shape)])) };

/** Where a function reads, refused in words that tell a wrong key or account from a missing project. */
function notVisible(fn: string, ctx: Context, where: Scope, err: Error): Error {
  return new Error(
    `${fn}: ${placeOf(where)} answers 404 Not Found to the API key from ${ctx.settings.apiKeyFrom} ` +
      `(a wrong key or account, a deleted project or branch, or a mistyped id). (${err.message})`,
  );
}

/** A read of a function, its 404 told as `notVisible` (the key's, not "nothing there"). */
async function visible<T>(fn: string, ctx: Context, where: Scope, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (isNotFound(err)) throw notVisible(fn, ctx, where, err as Error);
    throw err;
  }
}

/** The scope's integration; undefined when the project (and branch) answer without one. */
function integrationOf(fn: string, ctx: Context, where: Scope, provider: string) {
  return visible(fn, ctx, where, () => generationOf(where).calls(ctx, where).integration(provider));
}

/** The branch's Neon Auth, or an error naming the branch when it has none. */
async function branchAuthOf(fn: string, ctx: Context, where: Scope): Promise<s.BranchIntegration> {
  const record = (await integrationOf(fn, ctx, where, "better_auth")) as s.BranchIntegration | undefined;
  if (record !== undefined) return record;
  throw new Error(`${fn}: ${placeOf(where)} has no Neon Auth (getNeonAuth answers enabled: false there; a NeonAuth resource enables it)`);
}

const wire = (a: Props) => ({ project_id: a.projectId as string, branch_id: a.branchId as string });
const scope = (a: Props): Scope => ({ projectId: a.projectId, branchId: a.branchId });

const getNeonAuth: FunctionDeclaration = {
  name: "getNeonAuth",
  doc: "A branch's Neon Auth: whether it is enabled, the URLs an app is wired with, where it keeps its data, and every setting a `NeonAuth` manages (under the same names). A branch without Neon Auth answers `enabled: false`.",
  args: BRANCH_ARGS,
  result: z.object({
    enabled: bool("Whether Neon Auth is enabled on the branch; when false, no other field but the ids is set."),
    ...BRANCH_RESULT,
    authProvider: opt("`better_auth` (or `stack`)."),
    authProviderProjectId: opt("The auth project's id at the provider."),
    baseUrl: opt("Base URL of the auth service (Better Auth): an app's `NEON_AUTH_BASE_URL`."),
    jwksUrl: opt("Address of the JSON Web Key Set, for verifying tokens."),
    databaseName: opt("The database that holds the auth data."),
    schemaName: opt("The schema that holds the auth data (`neon_auth`)."),
    appName: opt("The app name shown in auth emails."),
    ownedBy: opt("`neon`, or `user` after an ownership transfer."),
    createdAt: opt("When Neon enabled auth on the branch (ISO 8601, UTC)."),
    allowLocalhost: z.boolean().optional().describe("Whether sign-in from localhost is allowed."),
    ...PUBLIC_AREAS,
    oauthServerIssuer: opt("The OAuth server's issuer, when `oauthServer.enabled`."),
    oauthServerDiscoveryUrl: opt("The OAuth server's OpenID discovery document, when `oauthServer.enabled`."),
  }),
  async read(a, ctx) {
    const record = (await integrationOf("getNeonAuth", ctx, scope(a), "better_auth")) as s.BranchIntegration | undefined;
    if (record === undefined) return { enabled: false, ...scope(a) };
    const settings = await liveSettings(ctx, wire(a), record, PUBLIC_SETTINGS);
    const server = settings.oauthServer?.enabled === true ? oauthServerUrls(record.base_url) : undefined;
    return compact({
      enabled: true,
      ...scope(a),
      authProvider: record.auth_provider,
      authProviderProjectId: record.auth_provider_project_id,
      baseUrl: record.base_url,
      jwksUrl: record.jwks_url,
      databaseName: record.db_name,
      // "Neon Auth stores your auth data in the neon_auth schema" (auth/branching-authentication).
      schemaName: "neon_auth",
      ownedBy: record.owned_by,
      createdAt: record.created_at,
      ...settings,
      appName: record.name,
      oauthServerIssuer: server?.issuer,
      oauthServerDiscoveryUrl: server?.discoveryUrl,
    });
  },
};

const getOAuthProviders: FunctionDeclaration = {
  name: "getOAuthProviders",
  doc: "The social sign-in providers of a branch's Neon Auth, each with the callback URL its OAuth app must list. Never a client secret.",
  args: BRANCH_ARGS,
  result: z.object({
    ...BRANCH_RESULT,
    providers: items("Each provider, as Neon lists them.", {
      id: str("The provider: `google`, `github`, `microsoft`, `vercel`."),
      type: str("`shared` (Neon's keys) or `standard` (your own)."),
      clientId: opt("Your OAuth app's client id, where Neon shows it."),
      callbackUrl: str("Where the provider sends the user back: `{baseUrl}/callback/{id}`, the redirect URI its OAuth app lists."),
    }),
  }),
  async read(a, ctx) {
    const record = await branchAuthOf("getOAuthProviders", ctx, scope(a));
    const providers = await generationOf(scope(a)).calls(ctx, scope(a)).oauthProviders.list();
    return {
      ...scope(a),
      providers: providers.map((p) => compact({ id: p.id, type: p.type, clientId: p.client_id || undefined, callbackUrl: callbackUrl(record.base_url, p.id) ?? "" })),
    };
  },
};

const getTrustedDomains: FunctionDeclaration = {
  name: "getTrustedDomains",
  doc: "The trusted domains of a branch's Neon Auth (wildcards as Neon stores them) and whether localhost is allowed.",
  args: BRANCH_ARGS,
  result: z.object({
    ...BRANCH_RESULT,
    domains: list(z.string(), "The trusted origins, as Neon stores them."),
    allowLocalhost: bool("Whether sign-in from localhost is allowed."),
  }),
  async read(a, ctx) {
    const record = await branchAuthOf("getTrustedDomains", ctx, scope(a));
    const domains = await generationOf(scope(a)).calls(ctx, scope(a)).domains.list();
    const { allowLocalhost } = await liveSettings(ctx, wire(a), record, { allowLocalhost: true });
    return { ...scope(a), domains: domains.map((d) => d.domain), allowLocalhost: allowLocalhost ?? true };
  },
};

const getOAuthServer: FunctionDeclaration = {
  name: "getOAuthServer",
  doc: "A branch's OAuth server (`NeonAuth.oauthServer`): its settings, the issuer and discovery URL a resource server trusts, and its clients. Never a client secret.",
  args: BRANCH_ARGS,
  result: z.object({
    ...BRANCH_RESULT,
    ...Object.fromEntries(Object.entries(PUBLIC_AREAS.oauthServer.unwrap().partial().shape).map(([k, v]) => [k, (v as z.ZodType).describe(`As \`NeonAuth.oauthServer.${k}\`.`)])),
    enabled: bool("Whether the OAuth server is enabled."),
    issuer: opt("The issuer a resource server expects in tokens, when enabled."),
    discoveryUrl: opt("The OpenID discovery document, when enabled."),
    clients: items("Its clients.", {
      clientId: str("The OAuth client id."),
      name: str("Its name."),
      type: str("`confidential`, `public` (or a type Neon adds)."),
      redirectUris: list(z.string(), "Its redirect URIs."),
      resources: list(z.string(), "The resources it may ask tokens for."),
      skipConsent: bool("Whether users skip the consent page."),
      disabled: bool("Whether it is disabled."),
      createdAt: opt("When Neon registered it."),
    }),
  }),
  async read(a, ctx) {
    const record = await branchAuthOf("getOAuthServer", ctx, scope(a));
    const { oauthServer = {} } = await liveSettings(ctx, wire(a), record, { oauthServer: PUBLIC_SETTINGS.oauthServer });
    const enabled = oauthServer.enabled === true;
    const clients = await listed(ctx, scope(a));
    return compact({
      ...scope(a),
      ...oauthServer,
      enabled,
      ...(enabled ? oauthServerUrls(record.base_url) : {}),
      clients: clients.map((c) =>
        compact({ clientId: c.client_id, name: c.name, type: c.type, redirectUris: c.redirect_uris, resources: c.resources, skipConsent: c.skip_consent, disabled: c.disabled, createdAt: c.created_at }),
      ),
    });
  },
};

const getNeonAuthUsers: FunctionDeclaration = {
  name: "getNeonAuthUsers",
  doc: "The users of a branch's Neon Auth, read from its database as `AuthUser` reads back (`neon-auth:readUsersFromDatabase`). Personal data: a program exports them only if it chooses to.",
  args: BRANCH_ARGS.extend({ email: s.email.optional().describe("Only the user with this address (case-insensitive).") }),
  result: z.object({
    ...BRANCH_RESULT,
    users: items("Each user, oldest first (then by address).", {
      id: str("The user's id."),
      email: str("Their address."),
      name: str("Their name (empty when none)."),
      roles: list(z.string(), "Their roles."),
      emailVerified: bool("Whether their address is verified."),
      banned: bool("Whether they are banned."),
      createdAt: str("When they signed up (ISO 8601, UTC)."),
    }),
  }),
  async read(a, ctx) {
    await branchAuthOf("getNeonAuthUsers", ctx, scope(a));
    return { ...scope(a), users: await branchUsers(ctx, scope(a), a.email) };
  },
};

const getAuthIntegration: FunctionDeclaration = {
  name: "getAuthIntegration",
  doc: "A project's project-level integration (`AuthIntegration`, Stack Auth): its auth project, JWKS URL, providers and domains. Never a key.",
  args: PROJECT_ARGS,
  result: z.object({
    ...PROJECT_RESULT,
    authProvider: str("`stack`."),
    authProviderProjectId: str("The auth project's id at the provider."),
    jwksUrl: str("Address of the JSON Web Key Set, for verifying tokens."),
    branchId: str("The branch it syncs users into."),
    databaseName: str("The database of `neon_auth.users_sync`."),
    ownedBy: str("`neon`, or `user` after an ownership transfer."),
    createdAt: str("When Neon created it (ISO 8601, UTC)."),
    oauthProviders: list(z.object({ id: str("The provider."), type: str("`shared` or `standard`.") }), "Its OAuth providers."),
    domains: list(z.string(), "Its trusted domains."),
  }),
  async read(a, ctx) {
    const where = { projectId: a.projectId as string };
    const record = await integrationOf("getAuthIntegration", ctx, where, "stack");
    if (record === undefined) throw new Error(`getAuthIntegration: project ${a.projectId} has no project-level integration (AuthIntegration)`);
    const calls = generationOf(where).calls(ctx, where);
    const [providers, domains] = await Promise.all([calls.oauthProviders.list(), calls.domains.list()]);
    return {
      projectId: a.projectId,
      authProvider: record.auth_provider,
      authProviderProjectId: record.auth_provider_project_id,
      jwksUrl: record.jwks_url,
      branchId: record.branch_id,
      databaseName: record.db_name,
      ownedBy: record.owned_by,
      createdAt: record.created_at,
      oauthProviders: providers.map((p) => ({ id: p.id, type: p.type })),
      domains: domains.map((d) => d.domain),
    };
  },
};

const getDataApi: FunctionDeclaration = {
  name: "getDataApi",
  doc: "The Data API of one database of a branch: whether it exists, its URL and status, the schemas it can serve, and every setting a `DataApi` manages (under the same names). How it authenticates is not in Neon's answer.",
  args: z.strictObject({ projectId: projectArg, branchId: branchArg, database: s.databaseName.default(s.NEON_DEFAULTS.database).describe("The database (default `neondb`).") }),
  result: z.object({
    ...BRANCH_RESULT,
    database: str("The database."),
    exists: bool("Whether the database has a Data API; when false, no other field but the ids is set."),
    url: opt("The Data API's REST endpoint."),
    status: opt("Its deployment status, as Neon reports it."),
    availableSchemas: z.array(z.string()).optional().describe("The schemas it can serve, as Neon reports them."),
    ...Object.fromEntries(
      Object.entries(DATA_API_SETTINGS).map(([k, w]) => [k, (s.dataApiSettings.shape[w] as z.ZodType).describe(`As \`DataApi.${k}\` (\`${w}\` at Neon).`)]),
    ),
  }),
  async read(a, ctx) {
    const place = { projectId: a.projectId as string, branchId: a.branchId as string, database: a.database as string };
    const found = await visible("getDataApi", ctx, scope(a), () => readDataApi(ctx, place));
    if (found === undefined) return { ...place, exists: false };
    const settings = Object.fromEntries(Object.keys(DATA_API_SETTINGS).map((k) => [k, found[k]]));
    return compact({ ...place, exists: true, url: found.url, status: found.status, availableSchemas: found.availableSchemas, ...settings });
  },
};

const getProjectJwks: FunctionDeclaration = {
  name: "getProjectJwks",
  doc: "The JWKS URLs of a project (each a `ProjectJwks`): the identity providers whose tokens Neon accepts on the Data API and Postgres connections, for every branch or one.",
  args: PROJECT_ARGS,
  result: z.object({
    ...PROJECT_RESULT,
    entries: items("The project's entries, as Neon lists them.", {
      jwksId: str("The entry's id at Neon."),
      jwksUrl: str("Where Neon fetches the keys."),
      providerName: str("The identity provider's name."),
      branchId: opt("The one branch it applies to; absent: every branch."),
      jwtAudience: opt("The audience Neon checks in tokens; absent: not checked."),
      createdAt: opt("When Neon added it (ISO 8601, UTC)."),
    }),
  }),
  async read(a, ctx) {
    const where = { projectId: a.projectId as string };
    const list = await visible("getProjectJwks", ctx, where, () => projectJwksList(ctx, where.projectId));
    return { projectId: a.projectId, entries: list.map((j) => { const { projectId: _p, adopt: _a, ...entry } = projectJwksOutputs(j); return entry; }) };
  },
};

/** Every function, by name. A new one is a declaration here; `npm run gen` does the rest. */
export const FUNCTIONS: Readonly<Record<string, FunctionDeclaration>> = Object.fromEntries(
  [getNeonAuth, getOAuthProviders, getTrustedDomains, getOAuthServer, getNeonAuthUsers, getAuthIntegration, getDataApi, getProjectJwks].map((f) => [f.name, f]),
);

/** Why the arguments are refused, each naming the argument (before any request); empty when they are fine. */
export function functionFailures(fn: FunctionDeclaration, args: Props): string[] {
  return (checkInputs(fn.name as Kind, fn.args, args).failures ?? []).map((f) =>
    f.reason.replace("is not an input of this resource", "is not an argument of this function").replace("; known inputs:", "; its arguments:"),
  );
}

/** Runs a function on a context: arguments checked first, then its reads. */
export async function invokeFunction(fn: FunctionDeclaration, args: Props, ctx: () => Context): Promise<Props> {
  const failures = functionFailures(fn, args);
  if (failures.length > 0) throw new Error(failures.join("\n"));
  return fn.read(fn.args.parse(args), ctx());
}
