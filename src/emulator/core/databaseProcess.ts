/**
 * One branch database in a process of its own (database.ts): PGlite and its wire-protocol server
 * run in a child Node process, and the emulator sends it SQL over the IPC channel. Why a process:
 * a PGlite instance holds about 250 MB (its WebAssembly memory and compiled code), and once
 * closed in the emulator's own process V8 gives back only part of it, late (measured: 10 databases
 * started and closed one after another left the process about 1.4 times what one left, even with
 * forced collections). Ending the process gives all of it back at once, when the branch or its
 * project is deleted or the emulator stops.
 *
 * A new database starts from a copy of an empty one (`template`), not from initdb: initdb in
 * WebAssembly cost 3.6 s of a core per database, loading the copy 1 s (measured), and a suite
 * starts hundreds. The first database of a PGlite version writes the copy to the temp folder.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** What the child answers: its port once up, then one reply per request. */
type FromChild = { ready: number } | { failed: string } | { id: number; rows?: unknown[]; error?: { message: string; code?: string } };
interface ToChild {
  id: number;
  op: "exec" | "query";
  sql: string;
  params?: unknown[];
}

/**
 * The child's program, run as `node -e` text (so it runs alike from the sources and the build): it
 * uses nothing but its argument and Node's globals. It exits when the emulator's channel closes,
 * so a killed emulator leaves no database behind.
 */
function databaseProgram(paths: { pglite: string; socket: string; template: string }): void {
  const { PGlite } = require(paths.pglite);
  const { PGLiteSocketServer } = require(paths.socket);
  const fs = require("node:fs");
  const send = (m: unknown) => process.send?.(m);
  process.on("disconnect", () => process.exit(0));
  // From the copy of an empty database when there is one; else initdb, then the copy is written
  // (aside, then renamed: another database may be starting from it meanwhile).
  const created = async () => {
    try {
      return await PGlite.create({ loadDataDir: new Blob([fs.readFileSync(paths.template)]) });
    } catch {
      const db = await PGlite.create();
      const aside = `${paths.template}.${process.pid}`;
      fs.mkdirSync(require("node:path").dirname(aside), { recursive: true });
      fs.writeFileSync(aside, Buffer.from(await (await db.dumpDataDir("gzip")).arrayBuffer()));
      fs.renameSync(aside, paths.template);
      return db;
    }
  };
  (async () => {
    const db = await created();
    const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 16 });
    await server.start();
    process.on("message", async (m: { id: number; op: string; sql: string; params?: unknown[] }) => {
      try {
        const result = m.op === "exec" ? await db.exec(m.sql).then(() => undefined) : await db.query(m.sql, m.params);
        send({ id: m.id, rows: result?.rows });
      } catch (e) {
        const err = e as { message?: string; code?: string };
        send({ id: m.id, error: { message: String(err?.message ?? e), ...(typeof err?.code === "string" ? { code: err.code } : {}) } });
      }
    });
    send({ ready: Number(String(server.getServerConn()).split(":").pop()) });
  })().catch((e: Error) => {
    send({ failed: String(e?.message ?? e) });
    process.exit(1);
  });
}

/** Where the copy of an empty database of this PGlite lives: one per version (its package.json, above its entry point). */
function templateOf(entry: string): string {
  let dir = path.dirname(entry);
  while (!fs.existsSync(path.join(dir, "package.json"))) dir = path.dirname(dir);
  const { version } = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { version: string };
  return path.join(os.tmpdir(), "neon-auth-emulator", `pglite-${version}-empty.tar.gz`);
}

/** A running branch database: SQL over the channel (a `SqlSession` of database.ts), and the port its clients connect to. */
export class DatabaseProcess {
  readonly port: number;
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, { resolve: (rows: unknown[]) => void; reject: (e: Error) => void }>();
  #next = 0;
  #gone: Error | undefined;

  private constructor(child: ChildProcess, port: number) {
    this.#child = child;
    this.port = port;
    child.on("message", (m: FromChild) => {
      if (!("id" in m)) return;
      const waiting = this.#pending.get(m.id);
      this.#pending.delete(m.id);
      if (m.error !== undefined) waiting?.reject(Object.assign(new Error(m.error.message), m.error.code === undefined ? {} : { code: m.error.code }));
      else waiting?.resolve(m.rows ?? []);
    });
    child.on("exit", () => {
      this.#gone = new Error("the branch database stopped");
      for (const w of this.#pending.values()) w.reject(this.#gone);
      this.#pending.clear();
    });
  }

  /** Starts a database process; resolves once it accepts connections. */
  static start(): Promise<DatabaseProcess> {
    const pglite = require.resolve("@electric-sql/pglite");
    const paths = { pglite, socket: require.resolve("@electric-sql/pglite-socket"), template: templateOf(pglite) };
    const child = spawn(process.execPath, ["-e", `(${databaseProgram.toString()})(${JSON.stringify(paths)})`], {
      stdio: ["ignore", "ignore", "inherit", "ipc"],
      serialization: "advanced",
    });
    return new Promise((resolve, reject) => {
      const failed = (why: string) => reject(new Error(`the branch database did not start: ${why}`));
      child.once("error", (e) => failed(e.message));
      child.once("exit", (code) => failed(`its process exited (${code})`));
      child.on("message", function first(m: FromChild) {
        if ("ready" in m) resolve(new DatabaseProcess(child, m.ready));
        else if ("failed" in m) failed(m.failed);
        else return;
        child.off("message", first);
      });
    });
  }

  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }> {
    return this.#send({ op: "query", sql, ...(params === undefined ? {} : { params }) }).then((rows) => ({ rows: rows as R[] }));
  }

  async exec(sql: string): Promise<void> {
    await this.#send({ op: "exec", sql });
  }

  /** Ends the process, which gives back everything the database held. */
  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.#child.once("exit", resolve));
    this.#child.kill("SIGKILL");
    await exited;
  }

  #send(req: Omit<ToChild, "id">): Promise<unknown[]> {
    if (this.#gone !== undefined) return Promise.reject(this.#gone);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#child.send({ id, ...req });
    });
  }
}
