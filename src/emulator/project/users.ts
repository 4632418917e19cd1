/** Users of the managed auth project, mirrored into the emulated `neon_auth.users_sync` table. */
import { projectEndpoints as P } from "../../schemas/endpointsProject";
import { findProject, projectFromPath, requireIntegration } from "../core/access";
import { HttpError, uuid, type ApiContext, type ApiRoute } from "../core/http";
import { route, type Call } from "../core/route";
import { iso, type IntegrationRec } from "../core/store";

function createUser(ctx: ApiContext, { body: req }: Call<typeof P.createUser>) {
  const p = findProject(ctx, req.project_id);
  const i = requireIntegration(p, req.auth_provider);
  const wanted = req.email.toLowerCase();
  if (i.users.some((u) => u.email.toLowerCase() === wanted)) {
    throw new HttpError(409, `email: a user with email ${req.email} already exists`);
  }
  const id = uuid();
  i.users.push({ id, email: req.email, name: req.name ?? null, created_ms: ctx.clock.now() });
  return { body: { id } };
}

function deleteUser(ctx: ApiContext, { params }: Call<typeof P.deleteUser>) {
  const p = projectFromPath(ctx);
  const i = requireIntegration(p);
  const id = params.auth_user_id;
  const at = i.users.findIndex((u) => u.id === id);
  if (at < 0) throw new HttpError(404, `user ${id} not found`);
  removeUser(i, at, ctx.clock.now());
}

/** Deletes the user at `at`; the database keeps its row with `deleted_at` set (Neon's sync soft-deletes). */
export function removeUser(i: IntegrationRec, at: number, now: number): void {
  const [gone] = i.users.splice(at, 1);
  if (gone !== undefined) (i.deleted_users ??= []).push({ ...gone, deleted_ms: now });
}

/** Rows of `neon_auth.users_sync` as the database would show them. */
export function usersSyncRows(i: IntegrationRec) {
  return i.users.map((u) => ({ id: u.id, email: u.email, name: u.name, created_at: iso(u.created_ms) }));
}

export const userRoutes: ApiRoute[] = [route(P.createUser, createUser), route(P.deleteUser, deleteUser)];
