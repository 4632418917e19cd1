/**
 * The remote mode of the e2e: with NEON_AUTH_E2E_TARGET (an API base URL, `…/api/v2`) and
 * NEON_API_KEY set, `emulator()` starts no emulator but a small proxy on loopback in front of that
 * API, so each test runs as written against the real service (or any API without control routes):
 *
 * - The tests' own key is replaced by NEON_API_KEY on the way out, so no state, log or output of a
 *   test ever holds the real key.
 * - Each seeded project is made at the target, named `neon-auth-e2e-<run>-<seed id>`, and the ids
 *   the test chose (`p-x`, `br-main-p-x`) are swapped for the real ones in paths and JSON bodies on
 *   the way out, and back on the way in. A project a test makes through the API gets the same
 *   name prefix. `close()` deletes every project the proxy made.
 * - The proxy keeps the request log the emulator would (method, path, route, status), so request
 *   counts of what the package sends are asserted in remote mode too.
 * - Everything else that only the emulator has (faults, its state, the users table, switches of the
 *   world outside the API) throws `NeedsEmulator`: such tests are marked `emulatorOnly(reason)` and
 *   skipped with the reason printed.
 */
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "vitest";
import { E2E_PREFIX } from "../../scripts/probe/run.mts";
import { allRoutes } from "../../src/emulator/server";
import { Router } from "../../src/emulator/core/router";
import type { EmulatorHandle, EmulatorOptions, RequestLogEntry } from "../../src/emulator";

const TARGET = process.env.NEON_AUTH_E2E_TARGET?.replace(/\/+$/, "");
/** True when the e2e run against a remote API rather than an emulator of their own. */
export const REMOTE = TARGET !== undefined && TARGET !== "";
/** One run's mark, shared by the files of a run (global-setup sets it) so its guard finds its own. */
export const RUN = (process.env.NEON_AUTH_E2E_RUN ??= new Date().toISOString().slice(0, 19).replace(/[-:T]/g, "").toLowerCase());

/**
 * The target's key. A test worker takes it out of its environment before any test starts, so that
 * no Pulumi CLI, program or plugin a test starts can see it (they get the tests' own key, which the
 * proxy replaces on the way out; a test of "no key configured" finds none). The main process, where
 * the leftover guard runs and which starts no program, keeps it for the workers it starts.
 */
const g = globalThis as { neonAuthE2eKey?: string };
g.neonAuthE2eKey ??= process.env.NEON_API_KEY;
if (REMOTE && process.env.VITEST_WORKER_ID !== undefined) delete process.env.NEON_API_KEY;

export class NeedsEmulator extends Error {}

/**
 * A describe block that needs what only the emulator has (its control routes, faults, its state):
 * skipped in remote mode, saying why.
 */
export function emulatorOnly(reason: string): typeof describe {
  if (REMOTE) process.stderr.write(`remote mode: skipping a block that needs the emulator: ${reason}\n`);
  return describe.skipIf(REMOTE) as typeof describe;
}

/** One test that needs what only the emulator has: skipped in remote mode, saying why. */
export function emulatorOnlyIt(reason: string): typeof it {
  if (REMOTE) process.stderr.write(`remote mode: skipping a test that needs the emulator: ${reason}\n`);
  return it.skipIf(REMOTE) as typeof it;
}

/**
 * Checks of what only the emulator can show (a secret as it was stored, its own record): run
 * against the emulator, left out in remote mode, where the rest of the test still runs.
 */
export async function atEmulator(check: () => unknown): Promise<void> {
  if (!REMOTE) await check();
}

/**
 * Faults only the emulator injects, for a test whose end state must be the same with or without
 * them (the package recovers): injected at the emulator; in remote mode the test runs the path
 * without them, and what it asserts about the fault itself goes in `atEmulator`.
 */
export function injectAtEmulator(em: EmulatorHandle, ...faults: Parameters<EmulatorHandle["injectFaults"]>): void {
  if (!REMOTE) em.injectFaults(...faults);
}

const router = new Router<(typeof allRoutes)[number]>().add("/api/v2", allRoutes);

interface Remote {
  readonly url: string;
  readonly key: string;
}

function remote(): Remote {
  const key = g.neonAuthE2eKey;
  if (!REMOTE || !key) throw new Error("remote mode needs NEON_AUTH_E2E_TARGET and NEON_API_KEY");
  return { url: TARGET!, key };
}

/**
 * With NEON_AUTH_E2E_TALLY=<file>, every request sent to the target (the tests' and the proxy's
 * own) appends a line `METHOD status` there: what a whole remote run costs in requests.
 */
function tally(method: string, status: number): void {
  const file = process.env.NEON_AUTH_E2E_TALLY;
  if (file) fs.appendFileSync(file, `${method} ${status}\n`);
}

async function api(r: Remote, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  for (let i = 0; ; i++) {
    const res = await fetch(`${r.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${r.key}`, accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    tally(method, res.status);
    if ([423, 429, 503].includes(res.status) && i < 120) {
      await new Promise((ok) => setTimeout(ok, 1_000));
      continue;
    }
    return { status: res.status, json: text === "" ? undefined : JSON.parse(text) };
  }
}

/**
 * Waits for a new project's operations to finish, as a pipeline does before it uses the project:
 * until then Neon refuses writes with 423, which a test's set-up would meet at once.
 */
async function settled(r: Remote, projectId: string, operations: { id: string }[]): Promise<void> {
  for (const op of operations) {
    for (let i = 0; i < 240; i++) {
      const got = await api(r, "GET", `/projects/${projectId}/operations/${op.id}`);
      if (got.status !== 200 || !["scheduling", "running"].includes(got.json.operation.status)) break;
      await new Promise((ok) => setTimeout(ok, 500));
    }
  }
}

/**
 * Two-way id swap: the test's ids out, the target's back. Out: whole path segments and whole JSON
 * strings only. Back: also an id standing as a word inside a string (an error message naming the
 * project), so that a test's expected message holds at the target as at the emulator.
 */
class Ids {
  private readonly out = new Map<string, string>();
  private readonly back = new Map<string, string>();
  add(test: string, real: string): void {
    this.out.set(test, real);
    this.back.set(real, test);
  }
  /** A value the target shows for one the test chose, swapped on the way in only (a seeded project's name). */
  addBack(real: string, test: string): void {
    this.back.set(real, test);
  }
  path(p: string, m: Map<string, string> = this.out): string {
    const [pathname, query] = p.split("?", 2) as [string, string | undefined];
    const swapped = pathname.split("/").map((s) => m.get(s) ?? s).join("/");
    return query === undefined ? swapped : `${swapped}?${query.replace(/([=&])([^=&]+)/g, (_all, sep: string, v: string) => `${sep}${m.get(v) ?? v}`)}`;
  }
  json(text: string, m: Map<string, string>): string {
    if (m.size === 0 || text === "") return text;
    const word = m === this.back ? new RegExp(`(?<![\\w-])(${[...m.keys()].map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})(?![\\w-])`, "g") : undefined;
    return JSON.stringify(JSON.parse(text), (_k, v) => (typeof v !== "string" ? v : m.has(v) ? m.get(v) : word ? v.replace(word, (id) => m.get(id)!) : v));
  }
  get outward(): Map<string, string> {
    return this.out;
  }
  get inward(): Map<string, string> {
    return this.back;
  }
}

/** The projects of this run still at the target (their names), for the leftover guard. */
export async function leftovers(): Promise<string[]> {
  const r = remote();
  const mark = `${E2E_PREFIX}${RUN}-`;
  const res = await api(r, "GET", `/projects?search=${encodeURIComponent(mark)}&limit=400`);
  if (res.status !== 200) throw new Error(`remote mode: listing projects answered ${res.status}`);
  return (res.json.projects as { name: string }[]).map((p) => p.name).filter((n) => n.startsWith(mark));
}

/** Starts the proxy with the seeded projects made at the target; the handle stands where an emulator's would. */
export async function remoteEmulator(opts: EmulatorOptions): Promise<EmulatorHandle> {
  const r = remote();
  const ids = new Ids();
  const made: string[] = [];
  const log: RequestLogEntry[] = [];
  const makeProject = async (name: string): Promise<any> => {
    const res = await api(r, "POST", "/projects", { project: { name: `${E2E_PREFIX}${RUN}-${name}` } });
    if (res.status !== 201) throw new Error(`remote mode: making a project answered ${res.status}`);
    made.push(res.json.project.id);
    await settled(r, res.json.project.id, res.json.operations ?? []);
    return res.json;
  };
  for (const seed of opts.seedProjects ?? []) {
    const [id, branch] = typeof seed === "string" ? seed.split(":", 2) : [seed.id, seed.branchId];
    const real = await makeProject(id!);
    ids.add(id!, real.project.id);
    // The emulator names a seeded project by its id (Neon Auth's default app name is the project's).
    ids.addBack(real.project.name, id!);
    ids.add(branch || `br-main-${id}`, real.branch.id);
  }
  const ours = new Set(opts.apiKeys ?? []);
  const logBodies = new Set(opts.logBodies ?? []);
  const server = http.createServer((req, res) => void forward({ r, ids, log, makeProject, ours, logBodies }, req, res));
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const only = (what: string) => () => {
    throw new NeedsEmulator(`${what} exists only on the emulator: mark the block emulatorOnly(…)`);
  };
  const handle = {
    url: `${base}/api/v2`,
    controlUrl: `${base}/_emulator`,
    apiKeys: opts.apiKeys ?? [],
    requestLog: { list: () => log, clear: () => log.splice(0).length },
    close: async () => {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
      for (const id of made) await api(r, "DELETE", `/projects/${id}`);
    },
  };
  return new Proxy(handle, {
    get: (t, p) => (p in t ? (t as any)[p] : p === "then" ? undefined : only(`em.${String(p)}`)()),
  }) as unknown as EmulatorHandle;
}

interface Proxied {
  readonly r: Remote;
  readonly ids: Ids;
  readonly log: RequestLogEntry[];
  readonly makeProject: (name: string) => Promise<any>;
  /** The tests' keys: replaced by the real one. Any other key goes as it is (a wrong key stays wrong). */
  readonly ours: ReadonlySet<string>;
  /** The routes whose request bodies the log keeps, as the emulator's option says. */
  readonly logBodies: ReadonlySet<string>;
}

async function forward({ r, ids, log, makeProject, ours, logBodies }: Proxied, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const started = Date.now();
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const url = req.url ?? "/";
  const method = req.method ?? "GET";
  // The emulator's own control routes: only the request log has a remote stand-in.
  if (url.startsWith("/_emulator/requests")) {
    if (method === "DELETE") log.splice(0);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(method === "DELETE" ? { cleared: true } : { requests: log }));
    return;
  }
  if (!url.startsWith("/api/v2/")) {
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ message: `remote mode: ${url} exists only on the emulator` }));
    return;
  }
  const sent = Buffer.concat(chunks).toString("utf8");
  const body = ids.json(sent, ids.outward);
  const apiPath = url.slice("/api/v2".length);
  if (method === "POST" && apiPath === "/projects") {
    // A project the test makes is named for the run too, and deleted with the others.
    const name = JSON.parse(body || "{}")?.project?.name ?? "project";
    res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify(await makeProject(name)));
    return;
  }
  const given = (req.headers.authorization ?? "").replace(/^Bearer\s+/i, "");
  const upstream = await fetch(`${r.url}${ids.path(apiPath)}`, {
    method,
    headers: {
      authorization: `Bearer ${ours.has(given) ? r.key : given}`,
      accept: "application/json",
      ...(body === "" ? {} : { "content-type": "application/json" }),
    },
    ...(body === "" ? {} : { body }),
  });
  const text = ids.json(await upstream.text(), ids.inward);
  tally(method, upstream.status);
  const match = router.match(method, url.split("?")[0]!);
  const route = match && "route" in match ? match.route.template : null;
  // A wait the target imposed (a lock while its operations run, its rate limit) is left out of the
  // log: the tests' emulator runs operations in 0 ms, mostly without a rate limit, so it never
  // answers them, and a test's exact request counts hold at the target as there.
  if (upstream.status !== 423 && upstream.status !== 429) log.push({
    ...(route !== null && logBodies.has(route) && sent !== "" ? { body: JSON.parse(sent) } : {}),
    method,
    path: url.split("?")[0]!.slice(0, 256),
    route,
    status: upstream.status,
    time: new Date(started).toISOString(),
    duration_ms: Date.now() - started,
    request_id: upstream.headers.get("x-neon-ret-request-id") ?? "",
    key: null,
  });
  const headers: Record<string, string> = {};
  for (const h of ["retry-after", "x-neon-ret-request-id", "content-type"]) {
    const v = upstream.headers.get(h);
    if (v !== null) headers[h] = v;
  }
  res.writeHead(upstream.status, headers).end(text);
}
