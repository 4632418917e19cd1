/**
 * Users of the managed auth project, mirrored into the emulated `neon_auth.users_sync` table of the
 * branch the integration was created on; and changes to them made in the auth provider's dashboard.
 */
import { projectId as projectIdRule } from "../../schemas/common";
import { projectEndpoints as P } from "../../schemas/endpointsProject";
import { findProject, projectFromPath, requireIntegration } from "../core/access";
import { lit, NEON_AUTH_SCHEMA, type TableSet } from "../core/database";
import type { UserChange, UserParams } from "../core/context";
import { HttpError, parseParam, uuid, type ApiContext, type ApiRoute } from "../core/http";
import { route, type Call } from "../core/route";
import { USERS_SYNC_TABLE } from "../core/stackAuth";
import { iso, type IntegrationRec, type ProjectRec, type Store } from "../core/store";

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

/** A user of the project-level integration, or undefined. */
function projectUser(store: Store, params: UserParams) {
  const id = parseParam(projectIdRule, "project_id", params.project_id);
  const i = store.data.projects[id]?.integrations.stack;
  const at = i?.users.findIndex((u) => u.id === params.user_id) ?? -1;
  return i === undefined || at < 0 ? undefined : { i, at, user: i.users[at]! };
}

/** A change made in the auth provider's dashboard, which `users_sync` then shows. */
export async function changeInDashboard(store: Store, params: UserParams, change: UserChange): Promise<boolean> {
  const found = projectUser(store, params);
  if (found === undefined) return false;
  if (change.name !== undefined) found.user.name = change.name;
  if (change.email !== undefined) found.user.email = change.email;
  found.user.updated_ms = store.now();
  return true;
}

/** A deletion in the auth provider's dashboard. */
export async function removeInDashboard(store: Store, params: UserParams): Promise<boolean> {
  const found = projectUser(store, params);
  if (found === undefined) return false;
  removeUser(found.i, found.at, store.now());
  return true;
}

export interface UsersSyncRow {
  id: string;
  email: string;
  name: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  raw_json: Record<string, unknown>;
}

const USERS_SYNC = `${NEON_AUTH_SCHEMA}.${USERS_SYNC_TABLE}`;

const USERS_SYNC_DDL = `
CREATE SCHEMA IF NOT EXISTS ${NEON_AUTH_SCHEMA};
CREATE TABLE IF NOT EXISTS ${USERS_SYNC} (
  id text PRIMARY KEY,
  email text,
  name text,
  created_at timestamptz,
  updated_at timestamptz,
  deleted_at timestamptz,
  raw_json jsonb NOT NULL
);`;

function syncRow(u: { id: string; email: string; name: string | null; created_ms: number; updated_ms?: number }, deletedMs?: number): UsersSyncRow {
  const updated = iso(deletedMs ?? u.updated_ms ?? u.created_ms);
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    created_at: iso(u.created_ms),
    updated_at: updated,
    deleted_at: deletedMs === undefined ? null : iso(deletedMs),
    raw_json: { id: u.id, primary_email: u.email, display_name: u.name, signed_up_at_millis: u.created_ms },
  };
}

/**
 * The rows `neon_auth.users_sync` of one branch's database holds, or undefined when the branch has
 * no such table: a project-level integration syncs into the branch it was created on. A
 * branch-scoped integration has no `users_sync` (its users are rows of `neon_auth."user"`).
 */
export function usersSyncOf(p: ProjectRec, branchId: string): UsersSyncRow[] | undefined {
  let rows: UsersSyncRow[] | undefined;
  for (const i of Object.values(p.integrations)) {
    if (i.branch_id !== branchId) continue;
    rows = [...(rows ?? []), ...i.users.map((u) => syncRow(u)), ...(i.deleted_users ?? []).map((u) => syncRow(u, u.deleted_ms))];
  }
  return rows;
}

/** `users_sync`, rewritten whole from the state after each change (nothing reads it back). */
export const usersSyncTable: TableSet<UsersSyncRow[]> = {
  wanted: (p, branchId) => (p === undefined ? undefined : usersSyncOf(p, branchId)),
  script: (rows) => {
    if (rows === undefined) return ` DROP TABLE IF EXISTS ${USERS_SYNC};`;
    const values = rows.map((r) =>
      `(${[r.id, r.email, r.name, r.created_at, r.updated_at, r.deleted_at].map(lit).join(", ")}, ${lit(JSON.stringify(r.raw_json))})`,
    );
    return (
      `${USERS_SYNC_DDL} DELETE FROM ${USERS_SYNC};` +
      (values.length === 0 ? "" : ` INSERT INTO ${USERS_SYNC} (id, email, name, created_at, updated_at, deleted_at, raw_json) VALUES ${values.join(", ")};`)
    );
  },
};
