/**
 * The emulated projects' Postgres: one embedded PostgreSQL (PGlite, a WebAssembly build of the
 * real server) per branch database, served over the wire protocol on a loopback port by
 * pglite-socket, so clients connect with any Postgres driver. Nothing to install: no server on
 * the machine, no temp cluster, works on a fresh CI runner.
 *
 * The databases are a projection of the emulator's state, never a second source of truth: the
 * `neon_auth.users_sync` table of a branch is rewritten from the store after each change (live users,
 * and deleted users with `deleted_at` set, as Neon's sync soft-deletes). So `--state` persistence
 * and `/_emulator/reset` cover them with no file of their own, and a restarted emulator rebuilds
 * the same rows. A database starts on first need (a `connection_uri` request), keeping start-up
 * fast for everything that never connects.
 */
import { randomBytes } from "node:crypto";
import type { PGlite } from "@electric-sql/pglite";
import type { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import type { AuthBranchRec } from "./branchKit";
import { HttpError } from "./http";
import { SCHEMA_NAME, TABLE_NAME } from "./integration";
import { iso, type ProjectRec, type Store } from "./store";

/** The database and owner role every emulated project has (Neon's defaults). */
export const DEFAULT_DATABASE = "neondb";
export const DEFAULT_ROLE = "neondb_owner";

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
 * no `neon_auth` schema. The one place that says which users sync where: a project-level
 * integration into the branch it was created on; a branch-scoped one into its own branch.
 */
export function usersSyncOf(p: ProjectRec, branchId: string): UsersSyncRow[] | undefined {
  let rows: UsersSyncRow[] | undefined;
  for (const i of Object.values(p.integrations)) {
    if (i.branch_id !== branchId) continue;
    rows = [...(rows ?? []), ...i.users.map((u) => row(u)), ...(i.deleted_users ?? []).map((u) => row(u, u.deleted_ms))];
  }
  const branch = p.branches.find((b) => b.id === branchId) as AuthBranchRec | undefined;
  if (branch?.neon_auth !== undefined) rows = [...(rows ?? []), ...branch.neon_auth.users.map((u) => row(u))];
  return rows;
}

interface Running {
  db: PGlite;
  server: PGLiteSocketServer;
  port: number;
  /** JSON of the rows last written, to skip rewrites when nothing changed. */
  written: string;
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
    this.#closed = true;
    await this.#stopAll();
    registry.delete(this.#store);
  }

  async #stopAll(): Promise<void> {
    const all = [...this.#running.values()];
    this.#running.clear();
    await Promise.all(all.map(async (r) => {
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
        const running: Running = { db, server, port, written: "", queue: Promise.resolve() };
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
    const p = this.#store.data.projects[projectId];
    const rows = p === undefined ? undefined : usersSyncOf(p, branchId);
    const text = JSON.stringify(rows ?? null);
    if (text === running.written) return;
    running.written = text;
    running.queue = running.queue.then(() => writeRows(running.db, rows)).catch((e: Error) => {
      running.written = "";
      process.emitWarning(`neon-auth-emulator: could not write ${SCHEMA_NAME}.${TABLE_NAME}: ${e.message}`);
    });
  }

  /** Resolves once every pending write to the running databases is done. */
  async settled(): Promise<void> {
    for (const r of [...this.#running.values()]) {
      const running = await r.catch(() => undefined);
      if (running !== undefined) await running.queue;
    }
  }
}

/** A SQL literal (standard_conforming_strings is on: only quotes need doubling). */
function lit(v: string | null): string {
  return v === null ? "NULL" : `'${v.replace(/'/g, "''")}'`;
}

/**
 * One `exec` of one script, so the rewrite holds PGlite's lock from BEGIN to COMMIT: the socket
 * server's queue would stall on a query that arrives while a transaction of ours is open between
 * statements.
 */
async function writeRows(db: PGlite, rows: UsersSyncRow[] | undefined): Promise<void> {
  if (rows === undefined) {
    await db.exec(`DROP SCHEMA IF EXISTS ${SCHEMA_NAME} CASCADE`);
    return;
  }
  const values = rows.map((r) =>
    `(${[r.id, r.email, r.name, r.created_at, r.updated_at, r.deleted_at].map(lit).join(", ")}, ${lit(JSON.stringify(r.raw_json))})`,
  );
  const script =
    `BEGIN; ${DDL} DELETE FROM ${SCHEMA_NAME}.${TABLE_NAME};` +
      (values.length === 0 ? "" : ` INSERT INTO ${SCHEMA_NAME}.${TABLE_NAME} (id, email, name, created_at, updated_at, deleted_at, raw_json) VALUES ${values.join(", ")};`) +
      " COMMIT;";
  try {
    await db.exec(script);
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
