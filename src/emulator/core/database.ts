/**
 * The emulated projects' Postgres: one embedded PostgreSQL (PGlite, a WebAssembly build of the
 * real server) per branch database, served over the wire protocol on a loopback port by
 * pglite-socket, so clients connect with any Postgres driver. Nothing to install: no server on
 * the machine, no temp cluster, works on a fresh CI runner. A database starts on first need (a
 * `connection_uri` request), keeping start-up fast for everything that never connects.
 *
 * What a branch's `neon_auth` schema holds depends on the generation:
 * - a project-level (Stack Auth) integration: `users_sync`, a projection of the state rewritten
 *   after each change (live users, and deleted users with `deleted_at` set, as Neon's sync
 *   soft-deletes), since Neon's sync writes that table and nothing reads it back;
 * - a branch-scoped integration: `"user"` and `project_config` (branch/neonAuthTables.ts). Once the
 *   database runs, `"user"` is the truth for that branch's users: the API reads and writes it, and
 *   a row changed by SQL is what the API sees next. `project_config` follows the API's settings.
 * The state keeps a snapshot of each `"user"` table (taken after every API access to it, and when a
 * database stops), so `--state` persistence and `/_emulator/reset` cover the databases with no
 * file of their own, and a restarted emulator seeds the same rows.
 */
import { randomBytes } from "node:crypto";
import type { PGlite } from "@electric-sql/pglite";
import type { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import type { AuthBranchRec } from "../branch/kit";
import { NEON_DEFAULTS } from "../../schemas/common";
import { HttpError } from "./http";
import { SCHEMA_NAME, TABLE_NAME } from "../project/integration";
import { CONFIG_DDL, CONFIG_TABLE, configRowSql, insertUsersSql, lit, pull, USER_DDL, USER_TABLE, type SqlSession } from "../branch/neonAuthSql";
import { iso, type ProjectRec, type Store } from "./store";

/** The database and owner role every emulated project has (Neon's defaults). */
export const DEFAULT_DATABASE = NEON_DEFAULTS.database;
export const DEFAULT_ROLE = NEON_DEFAULTS.role;

export interface UsersSyncRow {
  id: string;
  email: string;
  name: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  raw_json: Record<string, unknown>;
}

const DDL = `
CREATE SCHEMA IF NOT EXISTS ${SCHEMA_NAME};
CREATE TABLE IF NOT EXISTS ${SCHEMA_NAME}.${TABLE_NAME} (
  id text PRIMARY KEY,
  email text,
  name text,
  created_at timestamptz,
  updated_at timestamptz,
  deleted_at timestamptz,
  raw_json jsonb NOT NULL
);`;

function row(u: { id: string; email: string; name: string | null; created_ms: number; updated_ms?: number }, deletedMs?: number): UsersSyncRow {
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
    rows = [...(rows ?? []), ...i.users.map((u) => row(u)), ...(i.deleted_users ?? []).map((u) => row(u, u.deleted_ms))];
  }
  return rows;
}

/** What the schema of one branch's database should hold, from the state. */
function wantedOf(p: ProjectRec | undefined, branchId: string) {
  const branch = p?.branches.find((b) => b.id === branchId) as AuthBranchRec | undefined;
  return {
    usersSync: p === undefined ? undefined : usersSyncOf(p, branchId),
    /** The stored users, when the branch has Better Auth tables (kept after a disable without delete_data). */
    users: branch?.neon_auth?.users,
    config: p === undefined || branch?.auth === undefined ? undefined : configRowSql(branch.auth, p.name),
  };
}

interface Running {
  db: PGlite;
  server: PGLiteSocketServer;
  port: number;
  /** JSON of the projections last written (users_sync, project_config), to skip rewrites when nothing changed. */
  written: string;
  /** `neon_auth."user"` exists: made (and seeded from the state) once, then changed only by statements. */
  usersTable: boolean;
  /** Writes run one after another, in the order of the changes. */
  queue: Promise<void>;
}

export interface DatabasesOptions {
  /** False: every database refuses connections (as behind a network policy). Default true. */
  reachable?: boolean;
}

const registry = new WeakMap<Store, Databases>();

/** The databases of the emulator that owns `store` (route handlers reach them through their store). */
export function databasesOf(store: Store): Databases {
  const d = registry.get(store);
  if (d === undefined) throw new HttpError(503, "the emulator's databases are not available");
  return d;
}

export class Databases {
  reachable: boolean;
  readonly #store: Store;
  readonly #running = new Map<string, Promise<Running>>();
  #closed = false;

  constructor(store: Store, opts: DatabasesOptions = {}) {
    this.#store = store;
    this.reachable = opts.reachable ?? true;
    registry.set(store, this);
    store.onChange(() => this.#syncAll());
  }

  /**
   * `postgresql://ROLE:PASSWORD@127.0.0.1:PORT/DATABASE`, starting the branch's database when it
   * does not run yet. Unreachable: a port nothing listens on, so a connection is refused.
   */
  async connectionUri(p: ProjectRec, branchId: string, database: string, role: string): Promise<string> {
    if (p.db_password === undefined) {
      p.db_password = `npg_${randomBytes(12).toString("hex")}`;
      this.#store.mutated();
    }
    const password = p.db_password;
    const port = this.reachable ? (await this.#start(p.id, branchId)).port : await closedPort();
    return `postgresql://${encodeURIComponent(role)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}?sslmode=disable`;
  }

  /** Makes the databases reachable or not; going unreachable stops the running ones. */
  async setReachable(reachable: boolean): Promise<void> {
    this.reachable = reachable;
    if (!reachable) await this.#stopAll();
  }

  /** Keys (`project/branch`) of the databases that run. */
  running(): string[] {
    return [...this.#running.keys()];
  }

  async close(): Promise<void> {
    await this.#stopAll();
    this.#closed = true;
    registry.delete(this.#store);
  }

  /**
   * Stops every database; the users tables are copied into the state first, so what SQL clients
   * changed is kept (and seeded again at the next start).
   */
  async #stopAll(): Promise<void> {
    const all = [...this.#running.entries()];
    const pulled = await Promise.all(all.map(([key]) => {
      const [projectId, branchId] = key.split("/") as [string, string];
      const branch = this.#store.data.projects[projectId]?.branches.find((b) => b.id === branchId);
      return branch === undefined ? false : this.onUserTable(projectId, branchId, (db) => pull(db, branch)).catch(() => false);
    }));
    if (pulled.includes(true)) this.#store.mutated();
    this.#running.clear();
    await Promise.all(all.map(async ([, r]) => {
      const db = await r.catch(() => undefined);
      if (db === undefined) return;
      await db.server.stop().catch(() => undefined);
      await db.queue.catch(() => undefined);
      await db.db.close().catch(() => undefined);
    }));
  }

  #start(projectId: string, branchId: string): Promise<Running> {
    if (this.#closed) return Promise.reject(new HttpError(503, "the emulator is closing"));
    const key = `${projectId}/${branchId}`;
    let r = this.#running.get(key);
    if (r === undefined) {
      r = (async () => {
        // Loaded on first need: the rest of the emulator never pays for the WebAssembly module.
        // require, not import(): both builds must be the CommonJS ones, or the socket server's
        // PGlite class would not be the one that made the database.
        const { PGlite } = require("@electric-sql/pglite") as typeof import("@electric-sql/pglite");
        const { PGLiteSocketServer } = require("@electric-sql/pglite-socket") as typeof import("@electric-sql/pglite-socket");
        const db = await PGlite.create();
        const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 16 });
        await server.start();
        const port = Number(server.getServerConn().split(":").pop());
        const running: Running = { db, server, port, written: "", usersTable: false, queue: Promise.resolve() };
        this.#sync(projectId, branchId, running);
        await running.queue;
        return running;
      })();
      this.#running.set(key, r);
      r.catch(() => this.#running.delete(key));
    }
    return r;
  }

  #syncAll(): void {
    for (const [key, r] of this.#running) {
      const [projectId, branchId] = key.split("/") as [string, string];
      // Settled databases are written synchronously here (the write is queued before the change's
      // answer leaves), so a client that reads after the answer sees the change.
      void r.then((running) => this.#sync(projectId, branchId, running), () => undefined);
    }
  }

  #sync(projectId: string, branchId: string, running: Running): void {
    const want = wantedOf(this.#store.data.projects[projectId], branchId);
    const text = JSON.stringify([want.usersSync ?? null, want.config ?? null, want.users !== undefined]);
    if (text === running.written) return;
    running.written = text;
    let script = "";
    if (want.users !== undefined && !running.usersTable) script += USER_DDL + insertUsersSql(want.users);
    if (want.users === undefined && running.usersTable) script += ` DROP TABLE IF EXISTS ${USER_TABLE};`;
    running.usersTable = want.users !== undefined;
    script += want.config === undefined ? ` DROP TABLE IF EXISTS ${CONFIG_TABLE};` : `${CONFIG_DDL} DELETE FROM ${CONFIG_TABLE};${want.config}`;
    script += usersSyncScript(want.usersSync);
    if (want.users === undefined && want.config === undefined && want.usersSync === undefined) script += ` DROP SCHEMA IF EXISTS ${SCHEMA_NAME} CASCADE;`;
    running.queue = running.queue.then(() => writeScript(running.db, script)).catch((e: Error) => {
      running.written = "";
      process.emitWarning(`neon-auth-emulator: could not write the ${SCHEMA_NAME} schema: ${e.message}`);
    });
  }

  /**
   * @internal
   * Runs `fn` on a branch's `neon_auth."user"` table, after the writes queued before it and before
   * those queued after; undefined when the database does not run or has no such table (then
   * nobody can have changed the users since the state was written).
   */
  async onUserTable<T>(projectId: string, branchId: string, fn: (db: SqlSession) => Promise<T>): Promise<T | undefined> {
    const r = this.#running.get(`${projectId}/${branchId}`);
    const running = await r?.catch(() => undefined);
    if (running === undefined) return undefined;
    await running.queue;
    if (!running.usersTable) return undefined;
    const result = running.queue.then(() => fn(running.db));
    running.queue = result.then(() => undefined, () => undefined);
    return result;
  }

  /** Resolves once every pending write to the running databases is done. */
  async settled(): Promise<void> {
    for (const r of [...this.#running.values()]) {
      const running = await r.catch(() => undefined);
      if (running !== undefined) await running.queue;
    }
  }
}

function usersSyncScript(rows: UsersSyncRow[] | undefined): string {
  if (rows === undefined) return ` DROP TABLE IF EXISTS ${SCHEMA_NAME}.${TABLE_NAME};`;
  const values = rows.map((r) =>
    `(${[r.id, r.email, r.name, r.created_at, r.updated_at, r.deleted_at].map(lit).join(", ")}, ${lit(JSON.stringify(r.raw_json))})`,
  );
  return (
    `${DDL} DELETE FROM ${SCHEMA_NAME}.${TABLE_NAME};` +
    (values.length === 0 ? "" : ` INSERT INTO ${SCHEMA_NAME}.${TABLE_NAME} (id, email, name, created_at, updated_at, deleted_at, raw_json) VALUES ${values.join(", ")};`)
  );
}

/**
 * One `exec` of one script, so the rewrite holds PGlite's lock from BEGIN to COMMIT: the socket
 * server's queue would stall on a query that arrives while a transaction of ours is open between
 * statements.
 */
async function writeScript(db: PGlite, script: string): Promise<void> {
  try {
    await db.exec(`BEGIN; ${script} COMMIT;`);
  } catch (e) {
    await db.exec("ROLLBACK").catch(() => undefined);
    throw e;
  }
}

/** A loopback port nothing listens on (bound and released at once). */
async function closedPort(): Promise<number> {
  const net = await import("node:net");
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Which database a project has: its default one, and the one each integration names. */
export function checkDatabaseAndRole(p: ProjectRec, database: string, role: string): void {
  const integrations = Object.values(p.integrations);
  if (database !== DEFAULT_DATABASE && !integrations.some((i) => i.db_name === database)) {
    throw new HttpError(404, `database "${database}" not found in project ${p.id}`);
  }
  if (role !== DEFAULT_ROLE && !integrations.some((i) => i.role_name === role)) {
    throw new HttpError(404, `role "${role}" not found in project ${p.id}`);
  }
}
