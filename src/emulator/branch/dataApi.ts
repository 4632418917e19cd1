/**
 * Neon's Data API on a branch (`…/data-api/{database_name}`), one per database of the branch. The
 * shapes are the OpenAPI document's (tag DataAPI); every rule beyond them is a row of the fidelity
 * ledger (README.md) with its source.
 */
import type { DataApi, DataApiSettings } from "../../schemas/dataApi";
import { dataApiEndpoints as D } from "../../schemas/endpointsDataApi";
import { DEFAULT_DATABASE } from "../core/database";
import { HttpError, type ApiContext, type ApiRoute } from "../core/http";
import { findBranch, route, type AuthBranchRec, type BranchScope } from "./kit";

/** A Data API as the branch keeps it: what the create said of its auth, and its settings. */
export interface DataApiRec {
  auth_provider?: "neon_auth" | "external";
  jwks_url?: string;
  provider_name?: string;
  jwt_audience?: string;
  settings: Required<DataApiSettings>;
  created_ms: number;
}

/**
 * A new Data API's settings: the document's defaults (`db_aggregates_enabled` true, `db_anon_role`
 * "anonymous", `db_schemas` ["public"], `jwt_role_claim_key` ".role", `openapi_mode` "disabled") and
 * the "Manage Data API" page's (1000 rows, CORS empty: all origins). The other three: assumption.
 */
export const DATA_API_INITIAL: Required<DataApiSettings> = {
  db_aggregates_enabled: true,
  db_anon_role: "anonymous",
  db_extra_search_path: "",
  db_max_rows: 1000,
  db_schemas: ["public"],
  jwt_role_claim_key: ".role",
  jwt_cache_max_lifetime: 0,
  openapi_mode: "disabled",
  server_cors_allowed_origins: "",
  server_timing_enabled: false,
};

type DataApiBranch = AuthBranchRec & { data_api?: Record<string, DataApiRec> };

/**
 * The branch and the database named in the path: the branch's default database, or the one its
 * Neon Auth names (the databases the emulator knows, as for `connection_uri`); 404 otherwise.
 */
function place(ctx: ApiContext, params: { branch_id: string; database_name: string }): BranchScope & { branch: DataApiBranch; apis: Record<string, DataApiRec> } {
  const scope = findBranch(ctx, params.branch_id);
  const db = params.database_name;
  if (db !== DEFAULT_DATABASE && scope.branch.auth?.db_name !== db) throw new HttpError(404, `database "${db}" not found on branch ${params.branch_id}`);
  const branch = scope.branch as DataApiBranch;
  return { ...scope, branch, apis: (branch.data_api ??= {}) };
}

function found(apis: Record<string, DataApiRec>, db: string, branchId: string): DataApiRec {
  const api = apis[db];
  if (api === undefined) throw new HttpError(404, `Data API not found for database "${db}" on branch ${branchId}`);
  return api;
}

/** The URL's form follows Neon's (`https://<endpoint>.apirest.<region>.aws.neon.tech/<database>/rest/v1`); the host: assumption. */
function urlOf(branchId: string, db: string): string {
  return `https://ep-${branchId.replace(/^br-/, "")}.apirest.c-2.us-east-2.aws.neon.tech/${encodeURIComponent(db)}/rest/v1`;
}

function view(branchId: string, db: string, api: DataApiRec): DataApi {
  const settings = { ...api.settings, db_schemas: [...api.settings.db_schemas] };
  // What the API serves: the exposed schemas that exist; the emulator takes every named one as existing (assumption).
  return { url: urlOf(branchId, db), status: "ready", settings, available_schemas: [...new Set(["public", ...settings.db_schemas])] };
}

/** Settings given are merged into the stored ones; fields left out keep their values (assumption: the document says only "optionally provide settings"). */
function merged(base: Required<DataApiSettings>, given: DataApiSettings | undefined): Required<DataApiSettings> {
  const out = { ...base };
  for (const [k, v] of Object.entries(given ?? {})) if (v !== undefined) Object.assign(out, { [k]: Array.isArray(v) ? [...v] : v });
  return out;
}

export const dataApiRoutes: ApiRoute[] = [
  route(D.getProjectBranchDataAPI, (ctx, { params }) => {
    const { apis } = place(ctx, params);
    return { body: view(params.branch_id, params.database_name, found(apis, params.database_name, params.branch_id)) };
  }),
  route(D.createProjectBranchDataAPI, (ctx, { params, body }) => {
    const { branch, apis } = place(ctx, params);
    const db = params.database_name;
    // Neon's MCP server treats 409 as "Data API already provisioned for this database".
    if (apis[db] !== undefined) throw new HttpError(409, `Data API already exists for database "${db}" on branch ${params.branch_id}`);
    // The Data API then trusts the branch's Neon Auth, so there must be one (status and message: assumption).
    if (body.auth_provider === "neon_auth" && branch.auth === undefined) {
      throw new HttpError(400, `auth_provider: Neon Auth is not enabled on branch ${params.branch_id}; enable it first (POST …/auth) or use "external" with a jwks_url`);
    }
    // An external provider is known only by its JWKS (the console asks for the URL); the refusals: assumption.
    if (body.auth_provider === "external" && body.jwks_url === undefined) throw new HttpError(400, 'jwks_url: is required when auth_provider is "external"');
    if (body.auth_provider !== "external" && body.jwks_url !== undefined) throw new HttpError(400, 'jwks_url: is taken only with auth_provider "external"');
    apis[db] = {
      ...(body.auth_provider === undefined ? {} : { auth_provider: body.auth_provider }),
      ...(body.jwks_url === undefined ? {} : { jwks_url: body.jwks_url }),
      ...(body.provider_name === undefined ? {} : { provider_name: body.provider_name }),
      ...(body.jwt_audience === undefined ? {} : { jwt_audience: body.jwt_audience }),
      settings: merged(DATA_API_INITIAL, body.settings),
      created_ms: ctx.clock.now(),
    };
    return { body: { url: urlOf(params.branch_id, db) } };
  }),
  route(D.updateProjectBranchDataAPI, (ctx, { params, body }) => {
    const { apis } = place(ctx, params);
    const api = found(apis, params.database_name, params.branch_id);
    api.settings = merged(api.settings, body.settings);
    return { body: {} };
  }),
  route(D.deleteProjectBranchDataAPI, (ctx, { params }) => {
    const { apis } = place(ctx, params);
    found(apis, params.database_name, params.branch_id);
    delete apis[params.database_name];
    return { body: {} };
  }),
];
