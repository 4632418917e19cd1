/** Integration endpoints: create, list, generate SDK keys, delete, request ownership transfer. */
import { projectEndpoints as P } from "../../schemas/endpointsProject";
import { findProject, projectFromPath, requireIntegration } from "../core/access";
import { HttpError, oneTimeCode, token, uuid, type ApiContext, type ApiRoute } from "../core/http";
import { route, type Call } from "../core/route";
import { NEON_AUTH_SCHEMA } from "../core/database";
import { stackJwksUrl, USERS_SYNC_TABLE } from "../core/stackAuth";
import { iso, type IntegrationRec, type KeySetRec, type Store } from "../core/store";

export const TRANSFER_URL = "https://app.stack-auth.com/integrations/neon/projects/transfer/confirm";

function newKeys(now: number): KeySetRec {
  return { pub_client_key: `pck_${token(24)}`, secret_server_key: `ssk_${token(24)}`, created_ms: now };
}

function keySetView(i: IntegrationRec, k: KeySetRec) {
  return {
    auth_provider: i.auth_provider,
    auth_provider_project_id: i.auth_provider_project_id,
    pub_client_key: k.pub_client_key,
    secret_server_key: k.secret_server_key,
    jwks_url: stackJwksUrl(i.auth_provider_project_id),
    schema_name: NEON_AUTH_SCHEMA,
    table_name: USERS_SYNC_TABLE,
  };
}

export function integrationView(i: IntegrationRec) {
  return {
    auth_provider: i.auth_provider,
    auth_provider_project_id: i.auth_provider_project_id,
    branch_id: i.branch_id,
    db_name: i.db_name,
    created_at: iso(i.created_ms),
    owned_by: i.owned_by,
    jwks_url: stackJwksUrl(i.auth_provider_project_id),
    ...(i.transfer_status === undefined ? {} : { transfer_status: i.transfer_status }),
  };
}

function createIntegration(ctx: ApiContext, { body: req }: Call<typeof P.createIntegration>) {
  const p = findProject(ctx, req.project_id);
  if (!p.branches.some((b) => b.id === req.branch_id)) {
    throw new HttpError(404, `branch ${req.branch_id} not found in project ${p.id}`);
  }
  if (p.integrations[req.auth_provider] !== undefined) {
    throw new HttpError(409, `project ${p.id} already has an integration with auth provider ${req.auth_provider}`);
  }
  const now = ctx.clock.now();
  const i: IntegrationRec = {
    auth_provider: req.auth_provider,
    auth_provider_project_id: uuid(),
    branch_id: req.branch_id,
    db_name: req.database_name,
    role_name: req.role_name,
    created_ms: now,
    owned_by: "neon",
    keys: [newKeys(now)],
    users: [],
    oauth_providers: [],
    domains: [],
    email_server: { type: "shared" },
  };
  p.integrations[req.auth_provider] = i;
  return { body: keySetView(i, i.keys[0] as KeySetRec) };
}

function generateKeys(ctx: ApiContext, { body: req }: Call<typeof P.generateSdkKeys>) {
  const p = findProject(ctx, req.project_id);
  const i = requireIntegration(p, req.auth_provider);
  const k = newKeys(ctx.clock.now());
  i.keys.push(k);
  return { body: keySetView(i, k) };
}

function deleteIntegration(ctx: ApiContext, { params }: Call<typeof P.deleteIntegration>) {
  const p = projectFromPath(ctx);
  const provider = params.auth_provider;
  requireIntegration(p, provider);
  delete p.integrations[provider];
  dropTransfers(ctx.store, p.id, provider);
}

function dropTransfers(store: Store, projectId: string, provider: string): void {
  for (const [code, t] of Object.entries(store.data.transfers)) {
    if (t.project_id === projectId && t.auth_provider === provider) delete store.data.transfers[code];
  }
}

function transferOwnership(ctx: ApiContext, { body: req }: Call<typeof P.transferOwnership>) {
  const p = findProject(ctx, req.project_id);
  const i = requireIntegration(p, req.auth_provider);
  if (i.owned_by === "user") {
    throw new HttpError(409, `auth project of ${p.id} is already owned by the user; there is nothing to transfer`);
  }
  const code = oneTimeCode();
  ctx.store.data.transfers[code] = {
    code,
    project_id: p.id,
    auth_provider: i.auth_provider,
    auth_provider_project_id: i.auth_provider_project_id,
    created_ms: ctx.clock.now(),
    used: false,
  };
  i.transfer_status = "initiated";
  return { body: { url: `${TRANSFER_URL}?code=${encodeURIComponent(code)}` } };
}

/** Step two of the transfer (the browser step at the provider): used by the control route. */
export function confirmTransfer(store: Store, code: string) {
  const t = store.data.transfers[code];
  if (t === undefined) throw new HttpError(404, "code: transfer code not found");
  if (t.used) throw new HttpError(409, "code: transfer code was already used");
  const p = store.data.projects[t.project_id];
  const i = p?.integrations[t.auth_provider];
  if (p === undefined || i === undefined || i.auth_provider_project_id !== t.auth_provider_project_id) {
    throw new HttpError(404, "code: the integration of this transfer no longer exists");
  }
  t.used = true;
  // Every other outstanding code for the same auth project is now void.
  for (const [c, other] of Object.entries(store.data.transfers)) {
    if (c !== code && other.auth_provider_project_id === t.auth_provider_project_id) delete store.data.transfers[c];
  }
  i.owned_by = "user";
  i.transfer_status = "finished";
  return { project_id: p.id, auth_provider: i.auth_provider, owned_by: i.owned_by, transfer_status: i.transfer_status };
}

export const integrationRoutes: ApiRoute[] = [
  route(P.createIntegration, createIntegration),
  route(P.listIntegrations, (ctx) => ({ body: { data: Object.values(projectFromPath(ctx).integrations).map(integrationView) } })),
  route(P.generateSdkKeys, generateKeys),
  route(P.deleteIntegration, deleteIntegration),
  route(P.transferOwnership, transferOwnership),
];
