/**
 * The users of a Better Auth branch: rows of `neon_auth."user"` in the branch's database (SQL in
 * neonAuthSql.ts), beside `neon_auth.project_config`.
 *
 * One truth for users: while the branch's database runs, its `user` table is where the users are.
 * The API handlers read and write it with SQL (one statement per change, so a client's own SQL
 * between two requests is what the next request sees), and every such access copies the table
 * back into the stored snapshot (`branch.neon_auth.users`) that `--state` persists and a restart
 * seeds the table from. Before the database starts nobody can have changed the table, so the
 * handlers work on the snapshot alone. `project_config` is written from the API's settings after
 * each change (the configuration is managed through the API; SQL changes to it are not read back).
 */
import type { AuthBranchRec, BranchUserRec } from "./kit";
import { databasesOf, type TableSet } from "../core/database";
import type { UserChange, UserParams } from "../core/context";
import { HttpError, uuid } from "../core/http";
import { CONFIG_DDL, CONFIG_TABLE, configRowSql, insertUsersSql, pull, roleText, rolesOf, USER_DDL, USER_TABLE } from "./neonAuthSql";
import { iso, type ProjectRec, type Store } from "../core/store";

function branchIn(p: ProjectRec | undefined, branchId: string): AuthBranchRec | undefined {
  return p?.branches.find((b) => b.id === branchId) as AuthBranchRec | undefined;
}

/**
 * `neon_auth."user"`: made and seeded from the stored users once, then changed only by statements
 * (the API's and SQL clients'), and copied back into the state. The users are kept after a
 * disable without delete_data, so the table outlives the integration.
 */
export const userTable: TableSet<BranchUserRec[]> = {
  wanted: (p, branchId) => branchIn(p, branchId)?.neon_auth?.users,
  // Only whether the table is there: its rows are the truth, not the snapshot.
  key: () => true,
  script: (users, present) => {
    if (users !== undefined) return present ? "" : USER_DDL + insertUsersSql(users);
    return present ? ` DROP TABLE IF EXISTS ${USER_TABLE};` : "";
  },
  keep: async (db, p, branchId) => {
    const branch = branchIn(p, branchId);
    return branch === undefined ? false : pull(db, branch);
  },
};

/** `neon_auth.project_config`, rewritten from the API's settings after each change (SQL changes are not read back). */
export const configTable: TableSet<string> = {
  wanted: (p, branchId) => {
    const auth = branchIn(p, branchId)?.auth;
    return p === undefined || auth === undefined ? undefined : configRowSql(auth, p.name);
  },
  script: (row) => (row === undefined ? ` DROP TABLE IF EXISTS ${CONFIG_TABLE};` : `${CONFIG_DDL} DELETE FROM ${CONFIG_TABLE};${row}`),
};

/** Copies the running table of a branch into the snapshot (for readers of the snapshot: dumps, branching, persistence). */
export async function refreshSnapshot(store: Store, projectId: string, branch: AuthBranchRec): Promise<void> {
  const changed = await databasesOf(store).onTables(userTable, projectId, branch.id, (db) => pull(db, branch));
  if (changed === true) store.mutated();
}

/**
 * Runs `sql` (one statement with parameters) against the branch's running table, then copies the
 * table into the snapshot; undefined when the database does not run (work on the snapshot then).
 */
async function onTable<R>(store: Store, projectId: string, branch: AuthBranchRec, sql: string, params: unknown[]): Promise<{ rows: R[] } | undefined> {
  return databasesOf(store).onTables(userTable, projectId, branch.id, async (db) => {
    let rows: R[];
    try {
      rows = (await db.query<R>(sql, params)).rows;
    } catch (e) {
      // The unique constraint on email: a client's own insert may race the API's.
      if ((e as { code?: string }).code === "23505") throw new HttpError(409, "email: a user with this email already exists");
      throw e;
    }
    // A failed request persists nothing itself, yet what its look at the table found must be kept.
    if (await pull(db, branch)) store.mutated();
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
): Promise<void> {
  const now = store.now();
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

/**
 * The branch holding a branch-scoped user, for a change made in Neon's console; deleting one goes
 * through the public API (`DELETE …/auth/users/{id}`).
 */
async function branchOfUser(store: Store, params: UserParams): Promise<AuthBranchRec | undefined> {
  const projectId = params.project_id as string;
  for (const b of (store.data.projects[projectId]?.branches ?? []) as AuthBranchRec[]) {
    if (b.neon_auth === undefined) continue;
    await refreshSnapshot(store, projectId, b);
    if (b.neon_auth.users.some((u) => u.id === params.user_id)) return b;
  }
  return undefined;
}

/** A change of a user's name or email made in Neon's console (the table's name column takes no null). */
export async function changeInConsole(store: Store, params: UserParams, change: UserChange): Promise<boolean> {
  const branch = await branchOfUser(store, params);
  if (branch === undefined) return false;
  const name = change.name === null ? "" : change.name;
  await changeUser(store, params.project_id as string, branch, params.user_id as string, { name, email: change.email });
  return true;
}
