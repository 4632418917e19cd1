/** Lookups shared by the handlers: project ownership, the operation lock, the integration. */
import { projectId as projectIdSchema } from "../../schemas/common";
import { HttpError, LOCKED_MESSAGE, parseParam, type ApiContext } from "./http";
import type { IntegrationRec, ProjectRec } from "./store";

/** The project if it exists and the caller's key created it; 404 otherwise (other keys cannot see it). */
export function findProject(ctx: ApiContext, id: string): ProjectRec {
  const p = ctx.store.data.projects[id];
  if (p === undefined || p.owner !== ctx.account) throw new HttpError(404, `project ${id} not found`);
  return p;
}

/** Validates the `project_id` path parameter and finds the project. */
export function projectFromPath(ctx: ApiContext): ProjectRec {
  const id = parseParam(projectIdSchema, "project_id", ctx.params.project_id);
  return findProject(ctx, id);
}

export function hasRunningOperation(ctx: ApiContext, p: ProjectRec): boolean {
  const now = ctx.clock.now();
  return p.operations.some((op) => op.finish_ms > now);
}

/** 423 while an operation runs on the project (for write requests). */
export function assertUnlocked(ctx: ApiContext, p: ProjectRec): void {
  if (hasRunningOperation(ctx, p)) throw new HttpError(423, LOCKED_MESSAGE);
}

/** For writes: finds the project, then refuses while it is locked. */
export function writableProject(ctx: ApiContext, id: string): ProjectRec {
  const p = findProject(ctx, id);
  assertUnlocked(ctx, p);
  return p;
}

export function isWrite(method: string): boolean {
  return method === "POST" || method === "PATCH" || method === "DELETE" || method === "PUT";
}

/** The project's integration with the provider; 404 "auth is not enabled" when there is none. */
export function requireIntegration(p: ProjectRec, provider = "stack"): IntegrationRec {
  const i = p.integrations[provider];
  if (i === undefined) throw new HttpError(404, `auth is not enabled for project ${p.id}: no ${provider} integration`);
  return i;
}

/** The project's only integration (this API generation has one provider) for the per-project routes. */
export function projectIntegration(ctx: ApiContext): { project: ProjectRec; integration: IntegrationRec } {
  const project = projectFromPath(ctx);
  if (isWrite(ctx.method)) assertUnlocked(ctx, project);
  const integration = requireIntegration(project);
  return { project, integration };
}
