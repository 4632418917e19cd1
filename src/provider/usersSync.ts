/**
 * Reading users back from the integration's database, through the connection string the API hands
 * out for it: `neon_auth.users_sync` for a project-level (Stack Auth) integration, the table into
 * which Neon synchronises its users; `neon_auth."user"` for a NeonAuth (Better Auth) branch, where
 * Better Auth keeps them itself (with roles in `role` and `banned`). The API itself cannot read a
 * user; this is how AuthUser converges a create whose answer was lost, sees users deleted, renamed
 * or given other roles elsewhere, and looks users up.
 *
 * Best effort by design: when the database cannot be asked (setting off, network policy, a compute
 * that does not wake in time, a role without access) every function answers `undefined`, the
 * caller keeps its behaviour without read-back, and the reason is reported once per database and
 * run. The connection string is a secret: it is remembered for redaction and never returned.
 */
import type { Pool } from "pg";
import { redactText, rememberSecrets } from "../client";
import { NEON_DEFAULTS } from "../schemas/common";
import { scopeKey, type Context } from "./context";
import { generationOf, placeOf, type Scope, type UserTable } from "./generation";
import { liveIntegration } from "./parent";
import { SETTING } from "./settings";
import { warn } from "./log";

export interface SyncedUser {
  id: string;
  email: string;
  name: string | null;
  /** Neon's sync keeps a deleted user's row with `deleted_at` set. */
  deleted: boolean;
  /** Better Auth only: the roles (`role`, comma-separated) and whether the user is banned. */
  roles?: string[];
  banned?: boolean;
  /** Better Auth only: when the user was made (a restore brings users back as they were, provider/parent.ts `restoredInPlace`). */
  createdAt?: Date;
}

function tableOf(s: Scope): UserTable {
  return generationOf(s).usersTable;
}

function userOf(row: SyncedUser & { role?: string | null; banned?: boolean | null }): SyncedUser {
  const { role, banned, ...rest } = row;
  if (!("role" in row)) return rest;
  return { ...rest, roles: (role ?? "").split(",").map((r) => r.trim()).filter((r) => r !== ""), banned: banned === true };
}

/**
 * Only the owner role of the database is asked for: the list of integrations does not say which
 * role created the `neon_auth` schema, and Neon's default is this one.
 */
const ROLE = NEON_DEFAULTS.role;
/** Short: a database that does not answer quickly is treated as unreachable for the run. */
const TIMEOUT_MS = 5_000;

type Conn = { pool: Pool } | { unavailable: string };

/** One pooled connection per database for the whole run, shared by every resource. */
const conns = new Map<string, Promise<Conn>>();
const reported = new Set<string>();

function notice(key: string, s: Scope, why: string): void {
  if (reported.has(key)) return;
  reported.add(key);
  const text =
    `neon-auth: AuthUser cannot read users back from ${tableOf(s).name} of ${placeOf(s)} (${redactText(why)}). ` +
    "Users are managed without read-back this run: a create whose answer is lost stops with an error instead of " +
    "converging, and refresh cannot see users deleted or renamed outside the stack. " +
    `To stop trying, set \`pulumi config set ${SETTING.readUsers} false\`.`;
  warn(text);
}

/**
 * A project-level integration syncs into the branch it was created on; a branch-scoped one into
 * its own branch, in the database its record names.
 */
async function open(ctx: Context, s: Scope, provider: string): Promise<Conn> {
  const integration = await liveIntegration(ctx, "AuthUser", s, provider);
  if (integration === undefined) return { unavailable: generationOf(s).noIntegration };
  let uri: string;
  try {
    ({ uri } = await ctx.client.getConnectionUri({
      project_id: s.projectId,
      branch_id: s.branchId ?? integration.branch_id,
      // Neon Auth's database unless the record names another (an answer may leave it out).
      database_name: integration.db_name ?? NEON_DEFAULTS.database,
      role_name: ROLE,
    }));
  } catch (err) {
    return { unavailable: `the API gave no connection string: ${(err as Error).message}` };
  }
  rememberSecrets(secretsOf(uri));
  const { Pool } = require("pg") as typeof import("pg");
  const pool = new Pool({
    connectionString: uri,
    max: 1,
    connectionTimeoutMillis: TIMEOUT_MS,
    query_timeout: TIMEOUT_MS,
    idleTimeoutMillis: 10_000,
    // The provider process must be free to exit while the connection idles.
    allowExitOnIdle: true,
    application_name: "pulumi-neon-auth",
  });
  // An idle connection dropped by the server must not crash the provider.
  pool.on("error", () => undefined);
  // A second try on a timeout only: a compute waking from suspend, or a database host busy
  // starting others, may miss the first window; an answer that says no is final.
  for (let attempt = 1; ; attempt++) {
    try {
      await pool.query(`SELECT 1 FROM ${tableOf(s).name} LIMIT 1`);
      return { pool };
    } catch (err) {
      if (attempt < PROBES && isTimeout(err)) continue;
      await pool.end().catch(() => undefined);
      return { unavailable: describe(err, s) };
    }
  }
}

const PROBES = 2;

function isTimeout(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e.code === "ETIMEDOUT" || /timeout/i.test(e.message ?? "");
}

function secretsOf(uri: string): string[] {
  try {
    const u = new URL(uri);
    return [uri, u.password, decodeURIComponent(u.password)].filter((s) => s !== "");
  } catch {
    return [uri];
  }
}

function describe(err: unknown, s: Scope): string {
  const e = err as { code?: string; message?: string };
  const table = tableOf(s).name;
  if (e.code === "ECONNREFUSED") return "the database refused the connection";
  if (isTimeout(err)) return `the database did not answer within ${TIMEOUT_MS / 1000} s`;
  if (e.code === "42P01" || e.code === "3F000") return `the database has no ${table} table`;
  if (e.code === "42501") return `role ${ROLE} may not read ${table}`;
  return e.message ?? String(err);
}

/** Connections are per project and branch: each branch-scoped integration has its own database. */
const connKey = (s: Scope, provider: string) => `${scopeKey(s)}\u0000${provider}`;

async function withDatabase<T>(ctx: Context, s: Scope, provider: string, run: (pool: Pool, table: UserTable) => Promise<T>): Promise<T | undefined> {
  if (!ctx.settings.readUsersFromDatabase) return undefined;
  const key = connKey(s, provider);
  let conn = conns.get(key);
  if (conn === undefined) {
    conn = open(ctx, s, provider).catch((err: Error) => ({ unavailable: err.message }));
    conns.set(key, conn);
  }
  const c = await conn;
  if ("unavailable" in c) {
    notice(key, s, c.unavailable);
    return undefined;
  }
  try {
    return await run(c.pool, tableOf(s));
  } catch (err) {
    notice(key, s, describe(err, s));
    return undefined;
  }
}

/** The user with this id (deleted or not); null when the table has no such row; undefined when it cannot be asked. */
export async function userById(ctx: Context, s: Scope, provider: string, id: string): Promise<SyncedUser | null | undefined> {
  // Better Auth's ids are uuids: compared as text, an id of another form is no row rather than an error.
  const rows = await withDatabase(ctx, s, provider, async (pool, t) => (await pool.query<SyncedUser>(`${t.select} WHERE id::text = $1`, [id])).rows);
  return rows === undefined ? undefined : rows[0] === undefined ? null : userOf(rows[0]);
}

/** The live user with this address (case-insensitive); null when there is none; undefined when it cannot be asked. */
export async function liveUserByEmail(ctx: Context, s: Scope, provider: string, email: string): Promise<SyncedUser | null | undefined> {
  const rows = await withDatabase(ctx, s, provider, async (pool, t) =>
    (await pool.query<SyncedUser>(`${t.select} WHERE lower(email) = lower($1) AND ${t.live} ORDER BY ${t.newestFirst} LIMIT 1`, [email])).rows,
  );
  return rows === undefined ? undefined : rows[0] === undefined ? null : userOf(rows[0]);
}

/** Why read-back is off for this project in this run, if it is (for error messages). */
export async function readBackProblem(ctx: Context, s: Scope, provider: string): Promise<string | undefined> {
  if (!ctx.settings.readUsersFromDatabase) return `${SETTING.readUsers} is false`;
  const c = await conns.get(connKey(s, provider));
  return c !== undefined && "unavailable" in c ? c.unavailable : undefined;
}

/** One user of a branch as `getNeonAuthUsers` answers it (Better Auth's `neon_auth."user"` row). */
export interface BranchUser {
  id: string;
  email: string;
  name: string;
  roles: string[];
  emailVerified: boolean;
  createdAt: string;
  banned: boolean;
}

/**
 * Every user of a branch's Neon Auth (those with this address only, when given), oldest first,
 * read from its database as AuthUser reads back; throws why when the database cannot be asked.
 */
export async function branchUsers(ctx: Context, s: Scope, email?: string): Promise<BranchUser[]> {
  const where = email === undefined ? "" : "WHERE lower(email) = lower($1)";
  const rows = await withDatabase(ctx, s, "better_auth", async (pool) =>
    (
      await pool.query<{ id: string; email: string; name: string | null; role: string | null; banned: boolean | null; verified: boolean | null; created: Date | string | null }>(
        `SELECT id::text AS id, email, name, role, banned, "emailVerified" AS verified, "createdAt" AS created FROM neon_auth."user" ${where} ORDER BY "createdAt", lower(email)`,
        email === undefined ? [] : [email],
      )
    ).rows,
  );
  if (rows === undefined) throw new Error(`cannot read the users of ${placeOf(s)} from its database: ${(await readBackProblem(ctx, s, "better_auth")) ?? "read-back is unavailable"}`);
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    name: r.name ?? "",
    roles: (r.role ?? "").split(",").map((x) => x.trim()).filter((x) => x !== ""),
    emailVerified: r.verified === true,
    createdAt: r.created instanceof Date ? r.created.toISOString() : String(r.created ?? ""),
    banned: r.banned === true,
  }));
}
