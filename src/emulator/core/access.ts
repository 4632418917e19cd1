/** Lookups shared by the handlers: project ownership, the integration. The lock is lock.ts's. */
import { projectId as projectIdSchema } from "../../schemas/common";
import { HttpError, parseParam, type ApiContext } from "./http";
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

/** The project's integration with the provider; 404 "auth is not enabled" when there is none. */
export function requireIntegration(p: ProjectRec, provider = "stack"): IntegrationRec {
  const i = p.integrations[provider];
  if (i === undefined) throw new HttpError(404, `auth is not enabled for project ${p.id}: no ${provider} integration`);
  return i;
}

/** The project's only integration (this API generation has one provider) for the per-project routes. */
export function projectIntegration(ctx: ApiContext): { project: ProjectRec; integration: IntegrationRec } {
  const project = projectFromPath(ctx);
  const integration = requireIntegration(project);
  return { project, integration };
}
