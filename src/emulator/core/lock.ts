/**
 * The project lock: while an operation of a project runs (`finish_ms` still ahead), Neon refuses
 * what would schedule another one with 423 and `LOCKED_MESSAGE`. Which endpoints those are, the
 * endpoint table says: an entry whose errors include 423 (`LOCKED` in schemas/endpoint.ts; the
 * writes of both auth generations and branch creation). `route()` applies the lock to every such
 * entry; no handler checks it. Injected `lock` faults (faults.ts, server.ts) are apart from this.
 */
import type { AnyEndpoint } from "../../schemas/endpoint";
import { findProject } from "./access";
import { HttpError, LOCKED_MESSAGE, type ApiContext } from "./http";
import type { ProjectRec } from "./store";

/** The entry declares 423: requests to it are refused while an operation runs on their project. */
export function locks(e: AnyEndpoint): boolean {
  return 423 in e.errors;
}

export function hasRunningOperation(ctx: ApiContext, p: ProjectRec): boolean {
  const now = ctx.clock.now();
  return p.operations.some((op) => op.finish_ms > now);
}

/**
 * The project a request names (path `project_id`, else the body's `project_id`) and, when the path
 * names one, the branch in it: 404 with the handlers' messages when either is missing, so that a
 * missing scope is reported before the lock, as each handler did.
 */
export function lockScope(ctx: ApiContext, params: Record<string, string>, body: unknown): ProjectRec {
  const id = params.project_id ?? (body as { project_id?: string } | undefined)?.project_id;
  if (id === undefined) throw new Error(`${ctx.method} ${ctx.path}: a locked endpoint must name its project`);
  const project = findProject(ctx, id);
  const branchId = params.branch_id;
  if (branchId !== undefined && !project.branches.some((b) => b.id === branchId)) {
    throw new HttpError(404, `branch ${branchId} not found in project ${project.id}`);
  }
  return project;
}

/** 423 while an operation runs on the project. */
export function refuseWhileLocked(ctx: ApiContext, project: ProjectRec): void {
  if (hasRunningOperation(ctx, project)) throw new HttpError(423, LOCKED_MESSAGE);
}
