/**
 * What the branch-scoped handlers share: the state they keep on a branch record and the lookups
 * (branch, lock, integration).
 */
import type { BranchAuthProvider, EmailAndPassword } from "../../schemas/branchAuth";
import type { BranchSettingKey } from "../../schemas/endpointsBranch";
import { projectFromPath } from "../core/access";
import { HttpError, type ApiContext, type ApiRoute } from "../core/http";
import { route } from "../core/route";
import type { BranchRec, ProjectRec } from "../core/store";

/** A row of `neon_auth."user"` as the state keeps it (see neonAuthTables.ts). */
export interface BranchUserRec {
  id: string;
  email: string;
  /** NOT NULL in the table; older state files may hold null (written as ""). */
  name: string | null;
  /** `role`, split at commas. */
  roles: string[];
  created_ms: number;
  updated_ms?: number;
  email_verified?: boolean;
  image?: string | null;
  banned?: boolean | null;
  ban_reason?: string | null;
  ban_expires_ms?: number | null;
}

export interface BranchOAuthRec {
  id: string;
  type: "shared" | "standard";
  client_id?: string;
  client_secret?: string;
  /** Kept, never returned (as the service does). */
  microsoft_tenant_id?: string;
}

/** An OAuth client of the branch's OAuth server (oauthClients.ts). */
export interface OAuthClientRec {
  client_id: string;
  name: string;
  type: "confidential" | "public";
  redirect_uris: string[];
  resources: string[];
  skip_consent: boolean;
  disabled: boolean;
  created_ms: number;
  /** A confidential client's current secret; the emulator keeps it to tell a valid one from an old one. */
  client_secret?: string;
}

export type EmailProviderRec =
  | { type: "shared"; sender_email?: string; sender_name?: string }
  | { type: "standard"; host: string; port: number; username: string; password: string; sender_email: string; sender_name: string };

export interface WebhooksRec {
  enabled: boolean;
  webhook_url?: string;
  enabled_events: string[];
  timeout_seconds: number;
}

/** Each setting of `BRANCH_SETTINGS` under its key (typed below where the emulator has rules of its own). */
type SettingRecs = { [K in BranchSettingKey]: object };

/** One branch's integration: the settings Neon keeps for it. */
export interface BranchAuthRec extends SettingRecs {
  auth_provider: BranchAuthProvider;
  auth_provider_project_id: string;
  db_name: string;
  created_ms: number;
  /** App name; absent means the project's name. */
  name?: string;
  pub_client_key: string;
  secret_server_key: string;
  domains: string[];
  oauth_providers: BranchOAuthRec[];
  email_provider: EmailProviderRec;
  email_and_password: EmailAndPassword;
  allow_localhost: boolean;
  webhooks: WebhooksRec;
  /** The OAuth server's clients; absent in state written before they existed. */
  oauth_clients?: OAuthClientRec[];
}

/** A root branch's Neon Auth from `at_ms` until its next version (history.ts). */
export interface AuthVersion {
  at_ms: number;
  auth: BranchAuthRec | null;
  neon_auth: { users: BranchUserRec[] } | null;
}

/**
 * A branch record as the branch-scoped routes see it. The extra fields live on the stored branch
 * itself, so they persist with the rest of the state and a reset drops them.
 */
export interface AuthBranchRec extends BranchRec {
  auth?: BranchAuthRec;
  /** The `neon_auth` schema in the branch's database: outlives a disable without `delete_data`. */
  neon_auth?: { users: BranchUserRec[] };
  /** What `POST …/email_provider/test` reports (control route); absent: success. */
  email_test?: { success: boolean; error_message?: string };
  /** Earlier versions of `auth` and `neon_auth`, for instant restore (history.ts); root branches only. */
  auth_history?: AuthVersion[];
}

export { route, type Answer, type Call } from "../core/route";

export interface BranchScope {
  project: ProjectRec;
  branch: AuthBranchRec;
}

/** The caller's project and the branch in it (writes are refused while it is locked: core/lock.ts). */
export function findBranch(ctx: ApiContext, branchId: string): BranchScope {
  const project = projectFromPath(ctx);
  const branch = project.branches.find((b) => b.id === branchId) as AuthBranchRec | undefined;
  if (branch === undefined) throw new HttpError(404, `branch ${branchId} not found in project ${project.id}`);
  return { project, branch };
}

/** The branch's integration; 404 when auth is not enabled there. */
export function branchAuth(ctx: ApiContext, params: { branch_id: string }): BranchScope & { auth: BranchAuthRec } {
  const scope = findBranch(ctx, params.branch_id);
  const auth = scope.branch.auth;
  if (auth === undefined) throw new HttpError(404, `auth is not enabled on branch ${params.branch_id} of project ${scope.project.id}`);
  return { ...scope, auth };
}

/**
 * A PATCH of one field of a branch's auth (the app name, allow-localhost): the request's field of
 * that name is set, and answered.
 */
export function setField<F extends "name" | "allow_localhost">(e: Parameters<typeof route>[0], field: F): ApiRoute {
  return route(e, (ctx, { params, body }) => {
    const { auth } = branchAuth(ctx, params as { branch_id: string });
    auth[field] = (body as unknown as Pick<BranchAuthRec, F>)[field];
    return { body: { [field]: auth[field] } };
  });
}

/** Origins and emails compare case-insensitively. */
export function sameText(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
