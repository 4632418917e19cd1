/**
 * A project's JWKS URLs (`/projects/{project_id}/jwks`): the list, an addition that starts an
 * operation (Neon applies it to the computes), and removal. Project API, apart from both auth
 * generations. What goes beyond the OpenAPI shapes is in the fidelity ledger (README.md).
 */
import { jwksEndpoints as J } from "../../schemas/jwks";
import { projectFromPath } from "./access";
import { HttpError, uuid, type ApiContext, type ApiRoute } from "./http";
import { operationView } from "./projects";
import { route, type Call } from "./route";
import { iso, type JwksRec } from "./store";

export function jwksView(j: JwksRec) {
  return {
    id: j.id,
    project_id: j.project_id,
    ...(j.branch_id === undefined ? {} : { branch_id: j.branch_id }),
    jwks_url: j.jwks_url,
    provider_name: j.provider_name,
    created_at: iso(j.created_ms),
    updated_at: iso(j.created_ms),
    ...(j.jwt_audience === undefined ? {} : { jwt_audience: j.jwt_audience }),
    // The API reference's example answers the deprecated field empty.
    role_names: [],
  };
}

function addJwks(ctx: ApiContext, { body }: Call<typeof J.addProjectJWKS>) {
  const p = projectFromPath(ctx);
  const now = ctx.clock.now();
  const scope = body.branch_id === undefined ? p.branches.find((b) => b.default) : p.branches.find((b) => b.id === body.branch_id);
  if (scope === undefined) throw new HttpError(404, `branch ${body.branch_id} not found in project ${p.id}`);
  const rec: JwksRec = { id: uuid(), project_id: p.id, jwks_url: body.jwks_url, provider_name: body.provider_name, created_ms: now };
  if (body.branch_id !== undefined) rec.branch_id = body.branch_id;
  if (body.jwt_audience !== undefined) rec.jwt_audience = body.jwt_audience;
  (p.jwks ??= []).push(rec);
  // One `apply_config` on the branch it scopes (the default branch for all): the action is the API
  // reference's; one operation rather than one per compute, since the emulator has no computes.
  const op = { id: uuid(), project_id: p.id, branch_id: scope.id, action: "apply_config", created_ms: now, finish_ms: now + ctx.config.operationDelayMs };
  p.operations.push(op);
  ctx.store.mutated();
  return { body: { jwks: jwksView(rec), operations: [operationView(op, now)] } };
}

function deleteJwks(ctx: ApiContext, { params }: Call<typeof J.deleteProjectJWKS>) {
  const p = projectFromPath(ctx);
  const at = (p.jwks ?? []).findIndex((j) => j.id === params.jwks_id);
  if (at < 0) throw new HttpError(404, `JWKS ${params.jwks_id} not found in project ${p.id}`);
  const [gone] = p.jwks!.splice(at, 1);
  ctx.store.mutated();
  return { body: jwksView(gone!) };
}

export const jwksRoutes: ApiRoute[] = [
  route(J.getProjectJWKS, (ctx) => ({ body: { jwks: (projectFromPath(ctx).jwks ?? []).map(jwksView) } })),
  route(J.addProjectJWKS, addJwks),
  route(J.deleteProjectJWKS, deleteJwks),
];
