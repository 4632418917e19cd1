/** A branch's integration (enable, read, disable, app name), its trusted domains and its users. */
import { branchEndpoints as B, BRANCH_SETTINGS, type BranchSettingKey } from "../../schemas/endpointsBranch";
import { branchAuth, findBranch, route, sameText, setField, type BranchAuthRec } from "./kit";
import { HttpError, token, uuid, type ApiContext, type ApiRoute } from "../core/http";
import { changeUser, createUser, deleteUser } from "./neonAuthTables";
import { DEFAULT_DATABASE, NEON_AUTH_SCHEMA } from "../core/database";
import { stackJwksUrl, USERS_SYNC_TABLE } from "../core/stackAuth";
import { iso, type ProjectRec } from "../core/store";

/** Better Auth's base URL for a branch; `.invalid` so that nothing ever resolves it. */
export function betterAuthBaseUrl(a: BranchAuthRec): string {
  return `https://${a.auth_provider_project_id}.neonauth.emulator.invalid/${a.db_name}/auth`;
}

function jwksUrl(a: BranchAuthRec): string {
  return a.auth_provider === "stack" ? stackJwksUrl(a.auth_provider_project_id) : `${betterAuthBaseUrl(a)}/.well-known/jwks.json`;
}

/** Settings of a freshly enabled integration (Neon's documented defaults where it gives them). */
function newAuth(provider: BranchAuthRec["auth_provider"], dbName: string, now: number): BranchAuthRec {
  const stack = provider === "stack";
  return {
    auth_provider: provider,
    auth_provider_project_id: uuid(),
    db_name: dbName,
    created_ms: now,
    // Keys are only meaningful for stack; Better Auth answers them empty.
    pub_client_key: stack ? `pck_${token(24)}` : "",
    secret_server_key: stack ? `ssk_${token(24)}` : "",
    domains: [],
    // Neon: "Google OAuth is enabled by default with shared credentials for development and
    // testing" (https://neon.com/docs/auth/guides/setup-oauth). Better Auth only: a `stack`
    // integration on a branch keeps the project-level generation's empty list (assumption).
    oauth_providers: provider === "stack" ? [] : [{ id: "google", type: "shared" }],
    email_provider: { type: "shared" },
    allow_localhost: true,
    // Neon's values for a new integration, from the table (schemas/endpointsBranch.ts cites them).
    ...(Object.fromEntries(BRANCH_SETTINGS.map((row) => [row.key, structuredClone(row.initial)])) as unknown as Pick<BranchAuthRec, BranchSettingKey>),
  };
}

export function branchIntegrationView(p: ProjectRec, branchId: string, a: BranchAuthRec) {
  return {
    auth_provider: a.auth_provider,
    auth_provider_project_id: a.auth_provider_project_id,
    branch_id: branchId,
    db_name: a.db_name,
    created_at: iso(a.created_ms),
    owned_by: "neon",
    jwks_url: jwksUrl(a),
    ...(a.auth_provider === "stack" ? {} : { base_url: betterAuthBaseUrl(a) }),
    name: a.name ?? p.name,
  };
}

function enable(ctx: ApiContext, branchId: string, req: { auth_provider: BranchAuthRec["auth_provider"]; database_name?: string | undefined }) {
  const { branch } = findBranch(ctx, branchId);
  if (branch.auth !== undefined) throw new HttpError(409, `auth is already enabled on branch ${branchId}`);
  const a = newAuth(req.auth_provider, req.database_name ?? DEFAULT_DATABASE, ctx.clock.now());
  branch.auth = a;
  // Re-enabling after a disable that kept the data finds the users again (see README).
  branch.neon_auth ??= { users: [] };
  return {
    body: {
      auth_provider: a.auth_provider,
      auth_provider_project_id: a.auth_provider_project_id,
      pub_client_key: a.pub_client_key,
      secret_server_key: a.secret_server_key,
      jwks_url: jwksUrl(a),
      schema_name: NEON_AUTH_SCHEMA,
      table_name: USERS_SYNC_TABLE,
      ...(a.auth_provider === "stack" ? {} : { base_url: betterAuthBaseUrl(a) }),
    },
  };
}

function disable(ctx: ApiContext, branchId: string, deleteData: boolean) {
  const { branch } = branchAuth(ctx, { branch_id: branchId });
  delete branch.auth;
  if (deleteData) delete branch.neon_auth;
}

export const branchAuthRoutes: ApiRoute[] = [
  route(B.getBranchAuth, (ctx, { params }) => {
    const { project, auth } = branchAuth(ctx, params);
    return { body: branchIntegrationView(project, params.branch_id, auth) };
  }),
  route(B.enableBranchAuth, (ctx, { params, body }) => enable(ctx, params.branch_id, body)),
  route(B.disableBranchAuth, (ctx, { params, body }) => disable(ctx, params.branch_id, body.delete_data === true)),
  setField(B.updateBranchAppName, "name"),

  route(B.listBranchDomains, (ctx, { params }) => {
    const { auth } = branchAuth(ctx, params);
    return { body: { domains: auth.domains.map((domain) => ({ domain, auth_provider: auth.auth_provider })) } };
  }),
  route(B.addBranchDomain, (ctx, { params, body }) => {
    const { auth } = branchAuth(ctx, params);
    if (body.auth_provider !== auth.auth_provider) {
      throw new HttpError(400, `auth_provider: must be "${auth.auth_provider}", the provider of this branch's integration`);
    }
    // As at project level: a domain already listed is kept once and still answers 201.
    if (!auth.domains.some((d) => sameText(d, body.domain))) {
      auth.domains.push(body.domain);
    } else if (ctx.config.deviation === "readded-domain-answers-200") {
      return { status: 200 };
    }
  }),
  route(B.deleteBranchDomains, (ctx, { params, body }) => {
    const { auth } = branchAuth(ctx, params);
    const drop = body.domains.map((d) => d.domain);
    auth.domains = auth.domains.filter((d) => !drop.some((x) => sameText(x, d)));
  }),

  route(B.createBranchUser, async (ctx, { params, body }) => {
    const { project, branch } = branchAuth(ctx, params);
    return { body: { id: await createUser(ctx.store, project.id, branch, body, ctx.clock.now()) } };
  }),
  route(B.deleteBranchUser, async (ctx, { params }) => {
    const { project, branch } = branchAuth(ctx, params);
    await deleteUser(ctx.store, project.id, branch, params.auth_user_id);
  }),
  route(B.setBranchUserRoles, async (ctx, { params, body }) => {
    const { project, branch } = branchAuth(ctx, params);
    await changeUser(ctx.store, project.id, branch, params.auth_user_id, { roles: body.roles });
    return { body: { id: params.auth_user_id } };
  }),
];
