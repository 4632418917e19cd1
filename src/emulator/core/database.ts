/**
 * The emulated projects' Postgres: one embedded PostgreSQL (PGlite, a WebAssembly build of the
 * real server) per branch database, served over the wire protocol on a loopback port by
 * pglite-socket, so clients connect with any Postgres driver. Nothing to install: no server on
 * the machine, no temp cluster, works on a fresh CI runner. A database starts on first need (a
 * `connection_uri` request), keeping start-up fast for everything that never connects.
 *
 * What a branch's `neon_auth` schema holds depends on the generation, each declaring its tables as
 * a `TableSet` (below) that the assembled emulator hands to the databases:
 * - a project-level (Stack Auth) integration: `users_sync` (project/users.ts), a projection of the
 *   state rewritten after each change (live users, and deleted users with `deleted_at` set, as
 *   Neon's sync soft-deletes), since Neon's sync writes that table and nothing reads it back;
 * - a branch-scoped integration: `"user"` and `project_config` (branch/neonAuthTables.ts). Once the
 *   database runs, `"user"` is the truth for that branch's users: the API reads and writes it, and
 *   a row changed by SQL is what the API sees next. `project_config` follows the API's settings.
 * The state keeps a snapshot of each `"user"` table (taken after every API access to it, and when a
 * database stops), so `--state` persistence and `/_emulator/reset` cover the databases with no
 * file of their own, and a restarted emulator seeds the same rows. Each database runs in a process
 * of its own (databaseProcess.ts), ended when its branch or project is deleted (or the state
 * reset): what it held is given back at once.
 */
import { randomBytes } from "node:crypto";
import { NEON_DEFAULTS } from "../../schemas/common";
import { DatabaseProcess } from "./databaseProcess";
import { HttpError } from "./http";
import type { ProjectRec, Store } from "./store";

/** The database and owner role every emulated project has (Neon's defaults). */
export const DEFAULT_DATABASE = NEON_DEFAULTS.database;
export const DEFAULT_ROLE = NEON_DEFAULTS.role;

/** The schema of a branch database that every generation's tables live in. */
export const NEON_AUTH_SCHEMA = "neon_auth";

/** What a table set needs of a database (apart from PGlite's own types, which stay out of the published ones). */
export interface SqlSession {
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

/** A SQL literal (standard_conforming_strings is on: only quotes need doubling). */
export function lit(v: string | null): string {
  return v === null ? "NULL" : `'${v.replace(/'/g, "''")}'`;
}

/**
 * Some tables of a branch database's `neon_auth` schema, kept by one generation (Generation in context.ts):
 * the databases write them from the state after each change.
 */
export interface TableSet<W = unknown> {
  /** What the tables of one branch should hold, from the state; undefined: the branch has none of them. */
  wanted(p: ProjectRec | undefined, branchId: string): W | undefined;
  /** The part of `want` a rewrite depends on, compared as JSON with the last one written. Default: all of it. */
  key?(want: W): unknown;
  /**
   * The statements that bring the tables to `want` (undefined: none wanted). `present`: an earlier
   * write made them (they were wanted then).
   */
  script(want: W | undefined, present: boolean): string;
  /**
   * For tables that are the truth while the database runs (the API and SQL clients change them):
   * copies them into the state before the database stops; true when the state changed.
   */
  keep?(db: SqlSession, p: ProjectRec, branchId: string): Promise<boolean>;
}

interface Running {
  db: DatabaseProcess;
  /** JSON of the table sets' keys last written, to skip rewrites when nothing changed. */
  written: string;
  /** The table sets the last write made (or kept): their tables exist. */
  present: Set<TableSet>;
  /** Writes run one after another, in the order of the changes. */
  queue: Promise<void>;
}

export interface DatabasesOptions {
  /** False: every database refuses connections (as behind a network policy). Default true. */
  reachable?: boolean;
  /** The generations' tables in the `neon_auth` schema, written in this order. Default none. */
  tables?: readonly TableSet[];
}

const registry = new WeakMap<Store, Databases>();

/**
 * Resolves once the store's running databases show its last change; at once where none run. An
 * answer waits for it (server.ts), so that what a write made is in `users_sync` or
 * `neon_auth."user"` for a read that follows its answer, or follows where its answer was lost.
 * Assumption: Neon's own tables of a branch-scoped integration are written before the answer,
 * and `users_sync` is taken to be too, where Neon's docs say it is "updated asynchronously"
 * (`auth/legacy/database-integration`): the delay of its sync is not emulated (README, fidelity ledger).
 */
export async function databasesSettled(store: Store): Promise<void> {
  await registry.get(store)?.settled();
}

/** The databases of the emulator that owns `store` (route handlers reach them through their store). */
export function databasesOf(store: Store): Databases {
  const d = registry.get(store);
  if (d === undefined) throw new HttpError(503, "the emulator's databases are not available");
  return d;
}

export class Databases {
  reachable: boolean;
  readonly #store: Store;
  readonly #tables: readonly TableSet[];
  readonly #running = new Map<string, Promise<Running>>();
  #closed = false;

  constructor(store: Store, opts: DatabasesOptions = {}) {
    this.#store = store;
    this.reachable = opts.reachable ?? true;
    this.#tables = opts.tables ?? [];
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
    const port = this.reachable ? (await this.#start(p.id, branchId)).db.port : await closedPort();
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
   * Stops every database; the tables that are the truth while it runs are copied into the state
   * first, so what SQL clients changed is kept (and seeded again at the next start).
   */
  async #stopAll(): Promise<void> {
    const all = [...this.#running.entries()];
    const pulled = await Promise.all(all.flatMap(([key]) => {
      const [projectId, branchId] = key.split("/") as [string, string];
      const p = this.#store.data.projects[projectId];
      if (p === undefined) return [];
      return this.#tables.map((t) =>
        t.keep === undefined ? false : this.onTables(t, projectId, branchId, (db) => t.keep!(db, p, branchId)).catch(() => false),
      );
    }));
    if (pulled.includes(true)) this.#store.mutated();
    this.#running.clear();
    await Promise.all(all.map(([, r]) => stopped(r)));
  }

  #start(projectId: string, branchId: string): Promise<Running> {
    if (this.#closed) return Promise.reject(new HttpError(503, "the emulator is closing"));
    const key = `${projectId}/${branchId}`;
    let r = this.#running.get(key);
    if (r === undefined) {
      r = (async () => {
        const db = await DatabaseProcess.start();
        const running: Running = { db, written: "", present: new Set(), queue: Promise.resolve() };
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
      // Its branch or project deleted (or the state reset): the database goes, and all it held.
      if (this.#store.data.projects[projectId]?.branches.some((b) => b.id === branchId) !== true) {
        this.#running.delete(key);
        void stopped(r);
        continue;
      }
      // Settled databases are written synchronously here (the write is queued before the change's
      // answer leaves), so a client that reads after the answer sees the change.
      void r.then((running) => this.#sync(projectId, branchId, running), () => undefined);
    }
  }

  #sync(projectId: string, branchId: string, running: Running): void {
    const p = this.#store.data.projects[projectId];
    const wanted = this.#tables.map((t) => t.wanted(p, branchId));
    const text = JSON.stringify(this.#tables.map((t, n) => {
      const want = wanted[n];
      return want === undefined ? null : t.key === undefined ? want : t.key(want);
    }));
    if (text === running.written) return;
    running.written = text;
    let script = "";
    this.#tables.forEach((t, n) => {
      script += t.script(wanted[n], running.present.has(t));
      if (wanted[n] === undefined) running.present.delete(t);
      else running.present.add(t);
    });
    if (wanted.every((w) => w === undefined)) script += ` DROP SCHEMA IF EXISTS ${NEON_AUTH_SCHEMA} CASCADE;`;
    running.queue = running.queue.then(() => writeScript(running.db, script)).catch((e: Error) => {
      running.written = "";
      process.emitWarning(`neon-auth-emulator: could not write the ${NEON_AUTH_SCHEMA} schema: ${e.message}`);
    });
  }

  /**
   * @internal
   * Runs `fn` on the tables of `tables` in a branch's database, after the writes queued before it
   * and before those queued after; undefined when the database does not run or lacks those tables
   * (then nobody can have changed them since the state was written).
   */
  async onTables<T>(tables: TableSet, projectId: string, branchId: string, fn: (db: SqlSession) => Promise<T>): Promise<T | undefined> {
    const r = this.#running.get(`${projectId}/${branchId}`);
    const running = await r?.catch(() => undefined);
    if (running === undefined) return undefined;
    await running.queue;
    if (!running.present.has(tables)) return undefined;
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

/**
 * One `exec` of one script, so the rewrite holds PGlite's lock from BEGIN to COMMIT: the socket
 * server's queue would stall on a query that arrives while a transaction of ours is open between
 * statements.
 */
async function writeScript(db: DatabaseProcess, script: string): Promise<void> {
  try {
    await db.exec(`BEGIN; ${script} COMMIT;`);
  } catch (e) {
    await db.exec("ROLLBACK").catch(() => undefined);
    throw e;
  }
}

/** Stops a database once the writes queued on it are done (or failed). */
async function stopped(r: Promise<Running>): Promise<void> {
  const running = await r.catch(() => undefined);
  if (running === undefined) return;
  await running.queue.catch(() => undefined);
  await running.db.stop().catch(() => undefined);
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
