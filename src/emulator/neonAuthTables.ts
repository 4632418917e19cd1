/**
 * The tables of a Better Auth branch: `neon_auth."user"` and `neon_auth.project_config` in the
 * branch's database, with the columns of a real Managed Better Auth branch (see API-BRANCH.md:
 * uuid ids, camelCase quoted columns, email unique, roles comma-separated in `role`).
 *
 * One truth for users: while the branch's database runs, its `user` table is where the users are.
 * The API handlers read and write it with SQL (one statement per change, so a client's own SQL
 * between two requests is what the next request sees), and every such access copies the table
 * back into the stored snapshot (`branch.neon_auth.users`) that `--state` persists and a restart
 * seeds the table from. Before the database starts nobody can have changed the table, so the
 * handlers work on the snapshot alone. `project_config` is written from the API's settings after
 * each change (the configuration is managed through the API; SQL changes to it are not read back).
 */
import type { PGlite } from "@electric-sql/pglite";
import type { AuthBranchRec, BranchAuthRec, BranchUserRec } from "./branchKit";
import { databasesOf } from "./database";
import { HttpError, uuid } from "./http";
import { iso, type Store } from "./store";

export const USER_TABLE = 'neon_auth."user"';
export const CONFIG_TABLE = "neon_auth.project_config";

export const USER_DDL = `
CREATE SCHEMA IF NOT EXISTS neon_auth;
CREATE TABLE IF NOT EXISTS ${USER_TABLE} (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  email text NOT NULL CONSTRAINT user_email_key UNIQUE,
  "emailVerified" boolean NOT NULL DEFAULT false,
  image text,
  "createdAt" timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updatedAt" timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
  role text,
  banned boolean,
  "banReason" text,
  "banExpires" timestamptz
);`;

export const CONFIG_DDL = `
CREATE SCHEMA IF NOT EXISTS neon_auth;
CREATE TABLE IF NOT EXISTS ${CONFIG_TABLE} (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  endpoint_id text NOT NULL UNIQUE,
  name text,
  trusted_origins jsonb NOT NULL,
  social_providers jsonb NOT NULL,
  email_provider jsonb,
  email_and_password jsonb,
  plugin_configs jsonb,
  webhook_config jsonb,
  allow_localhost boolean NOT NULL,
  "createdAt" timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updatedAt" timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP
);`;

/** A SQL literal (standard_conforming_strings is on: only quotes need doubling). */
export function lit(v: string | null): string {
  return v === null ? "NULL" : `'${v.replace(/'/g, "''")}'`;
}

/** Roles as Better Auth's admin plugin keeps them: one comma-separated text. */
export function roleText(roles: readonly string[]): string | null {
  return roles.length === 0 ? null : roles.join(",");
}

export function rolesOf(role: string | null): string[] {
  return (role ?? "").split(",").map((r) => r.trim()).filter((r) => r !== "");
}

/** INSERT of the stored users into a freshly made table (the database's first start, or a re-enable). */
export function insertUsersSql(users: readonly BranchUserRec[]): string {
  if (users.length === 0) return "";
  const values = users.map((u) => {
    const ts = (ms: number | null | undefined) => (ms === undefined || ms === null ? "NULL" : lit(iso(ms)));
    return `(${[
      lit(u.id),
      // Older state files kept a missing name as null; the column does not allow it.
      lit(u.name ?? ""),
      lit(u.email),
      u.email_verified === true ? "true" : "false",
      lit(u.image ?? null),
      ts(u.created_ms),
      ts(u.updated_ms ?? u.created_ms),
      lit(roleText(u.roles)),
      u.banned === undefined || u.banned === null ? "NULL" : String(u.banned),
      lit(u.ban_reason ?? null),
      ts(u.ban_expires_ms),
    ].join(", ")})`;
  });
  return ` INSERT INTO ${USER_TABLE} (id, name, email, "emailVerified", image, "createdAt", "updatedAt", role, banned, "banReason", "banExpires") VALUES ${values.join(", ")};`;
}

/** `project_config` as the branch's settings make it; one row per auth endpoint. */
export function configRowSql(a: BranchAuthRec, projectName: string): string {
  const j = (v: unknown) => `${lit(JSON.stringify(v))}::jsonb`;
  const values = [
    lit(a.auth_provider_project_id),
    lit(a.name ?? projectName),
    j(a.domains),
    j(a.oauth_providers.map((o) => ({ id: o.id, type: o.type, ...(o.client_id === undefined ? {} : { clientId: o.client_id, clientSecret: o.client_secret }) }))),
    j(a.email_provider),
    j(a.email_and_password),
    j({ organization: a.organization, magic_link: a.magic_link, phone_number: a.phone_number }),
    j(a.webhooks),
    String(a.allow_localhost),
    lit(iso(a.created_ms)),
  ];
  return ` INSERT INTO ${CONFIG_TABLE} (endpoint_id, name, trusted_origins, social_providers, email_provider, email_and_password, plugin_configs, webhook_config, allow_localhost, "createdAt") VALUES (${values.join(", ")});`;
}

interface UserRow {
  id: string;
  name: string;
  email: string;
  email_verified: boolean;
  image: string | null;
  created_at: Date;
  updated_at: Date;
  role: string | null;
  banned: boolean | null;
  ban_reason: string | null;
  ban_expires: Date | null;
}

const SELECT_USERS =
  `SELECT id::text AS id, name, email, "emailVerified" AS email_verified, image, "createdAt" AS created_at, "updatedAt" AS updated_at, ` +
  `role, banned, "banReason" AS ban_reason, "banExpires" AS ban_expires FROM ${USER_TABLE} ORDER BY "createdAt", id`;

function recOf(r: UserRow): BranchUserRec {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    roles: rolesOf(r.role),
    created_ms: new Date(r.created_at).getTime(),
    updated_ms: new Date(r.updated_at).getTime(),
    email_verified: r.email_verified,
    image: r.image,
    banned: r.banned,
    ban_reason: r.ban_reason,
    ban_expires_ms: r.ban_expires === null ? null : new Date(r.ban_expires).getTime(),
  };
}

/** The table as it is now, copied into the stored snapshot; true when the snapshot changed. */
async function pull(db: PGlite, branch: AuthBranchRec): Promise<boolean> {
  const users = (await db.query<UserRow>(SELECT_USERS)).rows.map(recOf);
  if (branch.neon_auth === undefined) return false;
  if (JSON.stringify(users) === JSON.stringify(branch.neon_auth.users)) return false;
  branch.neon_auth.users = users;
  return true;
}

/** Copies the running table of a branch into the snapshot (for readers of the snapshot: dumps, branching, persistence). */
export async function refreshSnapshot(store: Store, projectId: string, branch: AuthBranchRec): Promise<void> {
  const changed = await databasesOf(store).onUserTable(projectId, branch.id, (db) => pull(db, branch));
  if (changed === true) store.mutated();
}

/**
 * Runs `sql` (one statement with parameters) against the branch's running table, then copies the
 * table into the snapshot; undefined when the database does not run (work on the snapshot then).
 */
async function onTable<R>(store: Store, projectId: string, branch: AuthBranchRec, sql: string, params: unknown[]): Promise<{ rows: R[] } | undefined> {
  return databasesOf(store).onUserTable(projectId, branch.id, async (db) => {
    let rows: R[];
    try {
      rows = (await db.query<R>(sql, params)).rows;
    } catch (e) {
      // The unique constraint on email: a client's own insert may race the API's.
      if ((e as { code?: string }).code === "23505") throw new HttpError(409, "email: a user with this email already exists");
      throw e;
    }
    await pull(db, branch);
    return { rows };
  });
}

function snapshotUsers(b: AuthBranchRec): BranchUserRec[] {
  b.neon_auth ??= { users: [] };
  return b.neon_auth.users;
}

function notFound(id: string): HttpError {
  return new HttpError(404, `user ${id} not found`);
}

function taken(email: string): HttpError {
  return new HttpError(409, `email: a user with email ${email} already exists`);
}

/** The branch's users, read where they live. */
export async function listUsers(store: Store, projectId: string, branch: AuthBranchRec): Promise<BranchUserRec[]> {
  await refreshSnapshot(store, projectId, branch);
  return branch.neon_auth?.users ?? [];
}

/**
 * A new user; one address is one user (compared case-insensitively, as Better Auth lower-cases
 * addresses). Without a name the row gets an empty one: the column is NOT NULL and Neon does not
 * document what it stores (assumption).
 */
export async function createUser(store: Store, projectId: string, branch: AuthBranchRec, req: { email: string; name?: string | undefined }, now: number): Promise<string> {
  const id = uuid();
  const name = req.name ?? "";
  const done = await onTable<{ id: string }>(
    store,
    projectId,
    branch,
    `INSERT INTO ${USER_TABLE} (id, name, email, "emailVerified", "createdAt", "updatedAt", role) ` +
      `SELECT $1, $2, $3, false, $4, $4, 'user' WHERE NOT EXISTS (SELECT 1 FROM ${USER_TABLE} WHERE lower(email) = lower($3)) RETURNING id::text AS id`,
    [id, name, req.email, iso(now)],
  );
  if (done !== undefined) {
    if (done.rows.length === 0) throw taken(req.email);
    return id;
  }
  const list = snapshotUsers(branch);
  if (list.some((u) => u.email.toLowerCase() === req.email.toLowerCase())) throw taken(req.email);
  list.push({ id, email: req.email, name, roles: ["user"], created_ms: now, updated_ms: now, email_verified: false, image: null, banned: null, ban_reason: null, ban_expires_ms: null });
  return id;
}

export async function deleteUser(store: Store, projectId: string, branch: AuthBranchRec, id: string): Promise<void> {
  const done = await onTable(store, projectId, branch, `DELETE FROM ${USER_TABLE} WHERE id::text = $1 RETURNING id`, [id]);
  if (done !== undefined) {
    if (done.rows.length === 0) throw notFound(id);
    return;
  }
  const list = snapshotUsers(branch);
  const at = list.findIndex((u) => u.id === id);
  if (at < 0) throw notFound(id);
  list.splice(at, 1);
}

/** Replaces a user's roles, or changes name and email (a change made in Neon's console). */
export async function changeUser(
  store: Store,
  projectId: string,
  branch: AuthBranchRec,
  id: string,
  change: { roles?: string[] | undefined; name?: string | undefined; email?: string | undefined },
  now: number,
): Promise<void> {
  const role = change.roles === undefined ? null : roleText([...new Set(change.roles)]);
  const done = await onTable(
    store,
    projectId,
    branch,
    `UPDATE ${USER_TABLE} SET role = COALESCE($2, role), name = COALESCE($3, name), email = COALESCE($4, email), "updatedAt" = $5 WHERE id::text = $1 RETURNING id`,
    [id, role, change.name ?? null, change.email ?? null, iso(now)],
  );
  if (done !== undefined) {
    if (done.rows.length === 0) throw notFound(id);
    return;
  }
  const u = snapshotUsers(branch).find((x) => x.id === id);
  if (u === undefined) throw notFound(id);
  if (change.roles !== undefined) u.roles = rolesOf(role);
  if (change.name !== undefined) u.name = change.name;
  if (change.email !== undefined) u.email = change.email;
  u.updated_ms = now;
}
