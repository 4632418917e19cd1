/**
 * `POST /projects/{project_id}/branches/{branch_id}/restore`: reset from parent and instant restore,
 * as far as Neon Auth is concerned. Both overwrite the branch's `neon_auth` data: its Neon Auth
 * configuration and its users become the source's, at the source's head or at a point in its
 * history (history.ts). Sources:
 * - https://neon.com/docs/guides/reset-from-parent (updated 2026-09-24): "a complete overwrite of the
 *   branch's databases … Managed Better Auth state are lost … there is no way to exclude
 *   `neon_auth`", no backup; root branches cannot be reset; "your connection details do not change".
 * - https://neon.com/docs/postgres/backup-restore/branch-restore (same date): instant restore of a
 *   root branch replaces the `neon_auth` data too, "the backup branch created by the restore still
 *   holds your earlier auth state"; point-in-time sources must be root branches; a root branch's
 *   backup is a root branch.
 * - Neon's OpenAPI document (`@neondatabase/api-client` 2.7.3, BranchRestoreRequest, operation
 *   restoreProjectBranch): the fields, "If `source_branch_id` is equal to the branch's id,
 *   `source_timestamp` or `source_lsn` is required", `preserve_under_name` required then and when
 *   the branch has children, which move to the preserved branch; the answer is BranchOperations.
 * Statuses and messages of the refusals are not documented: 400 and the texts here are assumptions.
 */
import type { z } from "zod";
import { hostingEndpoints as H } from "../../schemas/endpointsProject";
import type { restoreBranchRequest } from "../../schemas/projects";
import { projectFromPath } from "../core/access";
import { databasesOf } from "../core/database";
import { HttpError, newBranchId, uuid, type ApiContext, type ApiRoute } from "../core/http";
import { fullBranchView, HISTORY_RETENTION_SECONDS, operationView } from "../core/projects";
import { iso, type ProjectRec } from "../core/store";
import { historyStart, versionAt } from "./history";
import { route, type AuthBranchRec, type BranchAuthRec, type BranchUserRec } from "./kit";
import { insertUsersSql, USER_TABLE } from "./neonAuthSql";
import { refreshSnapshot, userTable } from "./neonAuthTables";

type RestoreRequest = z.output<typeof restoreBranchRequest>;

interface Scope {
  project: ProjectRec;
  target: AuthBranchRec;
  source: AuthBranchRec;
}

/** What a branch's `neon_auth` schema holds: the integration's configuration and the users. */
interface AuthData {
  auth: BranchAuthRec | null | undefined;
  neon_auth: { users: BranchUserRec[] } | null | undefined;
}

/**
 * The target and source branches (404 before the lock), each with its users as its table holds
 * them now: the source's are what the target gets, the target's what its backup keeps.
 */
async function scopeOf(ctx: ApiContext, branchId: string, req: RestoreRequest): Promise<Scope> {
  const project = projectFromPath(ctx);
  const target = project.branches.find((b) => b.id === branchId) as AuthBranchRec;
  const source = project.branches.find((b) => b.id === req.source_branch_id) as AuthBranchRec | undefined;
  if (source === undefined) throw new HttpError(404, `source branch ${req.source_branch_id} not found in project ${project.id}`);
  await refreshSnapshot(ctx.store, project.id, target);
  if (source !== target) await refreshSnapshot(ctx.store, project.id, source);
  return { project, target, source };
}

/** The source's data at the time asked for (head when none), or the refusal Neon documents. */
function sourceData(ctx: ApiContext, { target, source }: Scope, req: RestoreRequest): AuthData {
  const self = source === target;
  if (req.source_lsn !== undefined) {
    throw new HttpError(400, "source_lsn: the emulator keeps no write-ahead log, so it cannot restore to an LSN; give source_timestamp instead");
  }
  if (req.source_timestamp === undefined) {
    // A root branch has no parent to reset from; asking for its own head is the nearest request.
    if (self) throw new HttpError(400, `source_timestamp: is required when source_branch_id is the branch itself (${target.id}); a root branch cannot be reset from a parent`);
    return { auth: source.auth, neon_auth: source.neon_auth };
  }
  if (source.parent_id !== undefined) {
    throw new HttpError(400, `source_timestamp: a point-in-time restore needs a root branch as its source; ${source.id} was made from ${source.parent_id}`);
  }
  const now = ctx.clock.now();
  const at = Date.parse(req.source_timestamp);
  if (at > now) throw new HttpError(400, `source_timestamp: ${req.source_timestamp} is in the future`);
  const windowStart = now - HISTORY_RETENTION_SECONDS * 1000;
  const start = historyStart(source);
  const v = at < windowStart ? undefined : versionAt(source, at);
  if (v === undefined) {
    const kept = start === undefined ? "none" : `from ${iso(Math.max(start, windowStart))}`;
    throw new HttpError(400, `source_timestamp: ${req.source_timestamp} is outside the history of branch ${source.id} (kept: ${kept})`);
  }
  return { auth: v.auth, neon_auth: v.neon_auth };
}

/**
 * The restored integration: configuration from the source, and the branch's own endpoint (its
 * `auth_provider_project_id`, so `base_url` and `jwks_url`, and when it was made): Neon moves the
 * branch's compute onto the restored data so that "connection details do not change", and a
 * branch's auth endpoint is its read-write endpoint's. A branch without auth before gets the
 * source's own identity when the source is its own history, else a new endpoint, as a new branch
 * does (branches.ts). Which fields stay the branch's own is an assumption.
 */
function restoredAuth(data: AuthData, target: AuthBranchRec, self: boolean, now: number): BranchAuthRec | undefined {
  if (data.auth === null || data.auth === undefined) return undefined;
  const a = structuredClone(data.auth);
  const own = target.auth ?? (self ? data.auth : undefined);
  a.auth_provider_project_id = own?.auth_provider_project_id ?? uuid();
  a.created_ms = own?.created_ms ?? now;
  return a;
}

/**
 * The branch that keeps the state before the restore: the branch's auth and users under an endpoint
 * of its own (two branches never share one), and its history, since it is the old timeline. A root
 * branch's backup is a root branch (Neon); a child's backup is made from the same parent
 * (assumption). The branch's children move to it (OpenAPI document, `preserve_under_name`).
 */
function preserve(project: ProjectRec, target: AuthBranchRec, name: string, now: number): AuthBranchRec {
  let id = newBranchId();
  while (project.branches.some((b) => b.id === id)) id = newBranchId();
  const backup: AuthBranchRec = { id, name, default: false, created_ms: now, ...(target.parent_id === undefined ? {} : { parent_id: target.parent_id }) };
  if (target.auth !== undefined) backup.auth = { ...structuredClone(target.auth), auth_provider_project_id: uuid(), created_ms: now };
  if (target.neon_auth !== undefined) backup.neon_auth = structuredClone(target.neon_auth);
  if (target.auth_history !== undefined) backup.auth_history = structuredClone(target.auth_history);
  for (const child of project.branches) if (child.parent_id === target.id) child.parent_id = id;
  project.branches.push(backup);
  return backup;
}

/**
 * A running database's `neon_auth."user"` gets the restored rows. A database that does not run is
 * seeded from the state when it starts; a table to make or drop follows the state (database.ts).
 */
async function replaceUserRows(ctx: ApiContext, projectId: string, target: AuthBranchRec, users: readonly BranchUserRec[] | undefined): Promise<void> {
  if (users === undefined) return;
  await databasesOf(ctx.store).onTables(userTable, projectId, target.id, async (db) => {
    await db.query(`DELETE FROM ${USER_TABLE}`);
    const insert = insertUsersSql(users);
    if (insert !== "") await db.query(insert);
  });
}

async function restore(ctx: ApiContext, req: RestoreRequest, scope: Scope) {
  const { project, target, source } = scope;
  const self = source === target;
  const keepAs = req.preserve_under_name === undefined || req.preserve_under_name === "" ? undefined : req.preserve_under_name;
  const data = sourceData(ctx, scope, req);
  if (keepAs === undefined) {
    if (self) throw new HttpError(400, "preserve_under_name: is required when restoring a branch to its own history");
    const children = project.branches.filter((b) => b.parent_id === target.id).map((b) => b.id);
    if (children.length > 0) {
      throw new HttpError(400, `preserve_under_name: is required: branch ${target.id} has children (${children.join(", ")}), which move to the preserved branch; or delete them first`);
    }
  }
  const now = ctx.clock.now();
  // The operation first, before anything awaits: it is what refuses other writes meanwhile. One
  // operation (assumption: Neon's enum has no restore action; a restore builds a new timeline for
  // the branch), during which the branch shows `resetting` (the document's BranchState).
  const op = { id: uuid(), project_id: project.id, branch_id: target.id, action: "create_timeline", created_ms: now, finish_ms: now + ctx.config.operationDelayMs, branch_state: "resetting" as const };
  project.operations.push(op);
  // The backup takes the users as they were read just before (scopeOf), with nothing awaited since.
  if (keepAs !== undefined) preserve(project, target, keepAs, now);
  const auth = restoredAuth(data, target, self, now);
  const neonAuth = data.neon_auth === null || data.neon_auth === undefined ? undefined : structuredClone(data.neon_auth);
  // The table before the snapshot: a read meanwhile copies either the old rows into the old
  // snapshot (replaced below) or the new ones.
  if (target.neon_auth !== undefined) await replaceUserRows(ctx, project.id, target, neonAuth?.users);
  if (auth === undefined) delete target.auth;
  else target.auth = auth;
  if (neonAuth === undefined) delete target.neon_auth;
  else target.neon_auth = neonAuth;
  target.last_reset_ms = now;
  return { body: { branch: fullBranchView(project, target, now), operations: [operationView(op, now)] } };
}

export const restoreRoutes: ApiRoute[] = [
  route<typeof H.restoreBranch, Scope>(
    H.restoreBranch,
    (ctx, { body }, scope) => restore(ctx, body, scope),
    (ctx, { params, body }) => scopeOf(ctx, params.branch_id, body),
  ),
];
