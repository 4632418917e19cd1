/**
 * Local emulator of Neon's auth management API (API v2). Start it programmatically with
 * `startEmulator()` or from the command line with `neon-auth-emulator` (see README.md).
 */
import { randomBytes } from "node:crypto";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { systemClock, type Clock } from "../clock";
import { ID_PATTERN } from "../schemas/common";
import { stateDump } from "./core/control";
import { checkFaultSettings, Faults, noFaults, parseFaultSpec, type FaultSettings, type OneShotFault } from "./core/faults";
import { DEFAULT_API_KEY, keyLabel, seedBranchId } from "./core/http";
import { RequestLog } from "./core/log";
import { insertProject } from "./core/projects";
import { RequestThrottle, type RateLimitOption } from "./core/ratelimit";
import type { EmulatorCore, Route } from "./core/context";
import { Router } from "./core/router";
import { allControlRoutes, allRoutes, API_PREFIX, CONTROL_PREFIX, createHandler } from "./server";
import { Databases } from "./core/database";
import { generations } from "./generations";
import { Store } from "./core/store";

export { DEFAULT_API_KEY, keyLabel, seedBranchId } from "./core/http";
export { parseFaultSpec, type FaultSettings, type OneShotFault, type FaultKind } from "./core/faults";
export { SPEC_RATE_LIMIT, type RateLimitOption, type RateLimitSettings } from "./core/ratelimit";
export type { RequestLogEntry } from "./core/log";


export interface SeedProject {
  id: string;
  /** Default: `br-main-<id>` cut to 60 characters. */
  branchId?: string;
  name?: string;
}

export interface EmulatorOptions {
  /** Default 0 (a free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Accepted API keys. Default: [DEFAULT_API_KEY]. Seeded projects belong to the first key. */
  apiKeys?: string[];
  /** Persist the state to this file (atomic writes after each change). Default: in memory only. */
  stateFile?: string;
  /** Projects created at start (and after a reset) when absent: "ID", "ID:BRANCH_ID" or objects. */
  seedProjects?: Array<string | SeedProject>;
  /** "spec" (default): 700/min per key with bursts of 40; "off"; or custom settings. */
  rateLimit?: RateLimitOption;
  /** Fault settings or a spec such as "error=0.1,reset=0.05,lost=0.05,lock=0.05,latency=0-300". Default: none. */
  faults?: string | Partial<FaultSettings>;
  /** Random source for faults (default Math.random): inject one for deterministic tests. */
  random?: () => number;
  /** Clock for timestamps, operations, rate limits and injected latency (default the system clock). */
  clock?: Clock;
  /** How long project operations stay `running` (and the project locked). Default 0. */
  operationDelayMs?: number;
  /**
   * True: a request body field Neon's API does not define is refused with 400 naming it, so a
   * client's tests catch a misspelt field. Default false: such fields are ignored, as Neon's
   * OpenAPI document allows them (no `additionalProperties: false`).
   */
  strict?: boolean;
  /**
   * True: answer as a newer Neon would, so that a client's tests meet one before its users do: every
   * object of every API answer gains the field `added_by_newer_neon`; a new integration lists an
   * OAuth client, a social provider and a trusted domain nobody declared, of types and ids today's
   * API does not have; that field written back by a client is accepted (even `strict`) and stored.
   * Default false. See README.md, "Newer-Neon mode".
   */
  newerNeon?: boolean;
  /**
   * True: each request log entry keeps the JSON body the request carried (`body`), so that a test
   * can assert exactly what a client sent. Bodies may hold secrets: for tests only. Default false.
   */
  logBodies?: boolean;
  /** Check every JSON response against its zod schema and answer 500 on a mismatch. Default true. */
  validateResponses?: boolean;
  /** Maximum entries kept in the request log. Default 10000. */
  requestLogLimit?: number;
  /** Maximum bytes the request log holds (oldest entries go first). Default 4 MiB. */
  requestLogBytes?: number;
  /**
   * Bearer token that unlocks secrets on the control routes (`/_emulator/state?secrets=true`).
   * Default: a random one, on the handle as `controlToken` (the CLI prints it at start).
   */
  controlToken?: string;
  /**
   * Host header values (`host` or `host:port`) accepted besides loopback names with the
   * emulator's own port, e.g. the name and published port of a container. Default none.
   */
  allowedHosts?: string[];
  /**
   * False: the projects' databases refuse connections (`connection_uri` still answers), as behind
   * a network policy; switch at run time with `PUT /_emulator/database`. Default true.
   */
  databaseReachable?: boolean;
}

export interface EmulatorHandle {
  /** Base URL of the API, e.g. `http://127.0.0.1:PORT/api/v2`. */
  url: string;
  /** Base URL of the control routes, e.g. `http://127.0.0.1:PORT/_emulator`. */
  controlUrl: string;
  port: number;
  host: string;
  /** The accepted API keys (the first owns the seeded projects). */
  apiKeys: string[];
  /** Bearer token that unlocks secrets on the control routes (as does any API key). */
  controlToken: string;
  store: Store;
  /** The projects' Postgres databases (started on first `connection_uri`). */
  databases: Databases;
  faults: Faults;
  rateLimiter: RequestThrottle;
  requestLog: RequestLog;
  /** The state as GET /_emulator/state shows it. */
  state(opts?: { secrets?: boolean }): ReturnType<typeof stateDump>;
  /** Queues one-shot faults (like PUT /_emulator/faults with `next`, but appending). */
  injectFaults(...faults: OneShotFault[]): void;
  /** Resolves once every change so far is in the state file. */
  flush(): Promise<void>;
  /** Stops the server, drops open connections and flushes the state file. */
  close(): Promise<void>;
}

function parseSeed(s: string | SeedProject): SeedProject {
  const seed: SeedProject =
    typeof s === "string"
      ? (() => {
          const [id, branchId] = s.split(":", 2);
          return branchId === undefined || branchId === "" ? { id: id ?? "" } : { id: id ?? "", branchId };
        })()
      : s;
  if (!ID_PATTERN.test(seed.id)) throw new Error(`seed project id "${seed.id}" must match ${ID_PATTERN.source}`);
  if (seed.branchId !== undefined && !ID_PATTERN.test(seed.branchId)) {
    throw new Error(`seed branch id "${seed.branchId}" must match ${ID_PATTERN.source}`);
  }
  return seed;
}

/** The options checked, each refusal before anything is opened. */
function checkedOptions(options: EmulatorOptions) {
  const apiKeys = options.apiKeys !== undefined && options.apiKeys.length > 0 ? [...options.apiKeys] : [DEFAULT_API_KEY];
  for (const k of apiKeys) if (!/^\S+$/.test(k)) throw new Error("API keys must be non-empty and contain no whitespace");
  const seeds = (options.seedProjects ?? []).map(parseSeed);
  const faultSettings =
    options.faults === undefined ? noFaults() : typeof options.faults === "string" ? parseFaultSpec(options.faults) : checkFaultSettings(options.faults);
  const controlToken = options.controlToken ?? randomBytes(24).toString("base64url");
  if (!/^[\x21-\x7e]{16,}$/.test(controlToken)) throw new Error("controlToken must be at least 16 visible ASCII characters");
  return { apiKeys, seeds, faultSettings, controlToken };
}

/** What the running emulator holds, from the checked options (the state already open). */
function coreOf(options: EmulatorOptions, checked: ReturnType<typeof checkedOptions>, store: Store): EmulatorCore {
  const { apiKeys, seeds, faultSettings, controlToken } = checked;
  const clock = store.clock;
  const keys = new Map(apiKeys.map((k) => [k, keyLabel(k)] as const));
  const owner = keyLabel(apiKeys[0] as string);
  return {
    store,
    clock,
    limiter: new RequestThrottle(options.rateLimit ?? "spec", clock),
    faults: new Faults(faultSettings, options.random ?? Math.random),
    log: new RequestLog(options.requestLogLimit ?? 10_000, options.requestLogBytes ?? 4 * 1024 * 1024),
    config: { operationDelayMs: Math.max(0, options.operationDelayMs ?? 0), strict: options.strict ?? false, newerNeon: options.newerNeon ?? false, logBodies: options.logBodies ?? false },
    keys,
    generations,
    router: new Router<Route>().add(API_PREFIX, allRoutes).add(CONTROL_PREFIX, allControlRoutes),
    validateResponses: options.validateResponses ?? true,
    port: 0,
    allowedHosts: new Set((options.allowedHosts ?? []).map((h) => h.trim().toLowerCase()).filter((h) => h !== "")),
    controlToken,
    seed: () => {
      for (const s of seeds) {
        if (store.data.projects[s.id] !== undefined) continue;
        insertProject(store, owner, { id: s.id, name: s.name ?? s.id, branchId: s.branchId ?? seedBranchId(s.id) });
      }
    },
  };
}

async function listen(server: http.Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const clock = options.clock ?? systemClock;
  const checked = checkedOptions(options);
  const { apiKeys, controlToken } = checked;
  const store = Store.open({ file: options.stateFile, clock });
  const databases = new Databases(store, { reachable: options.databaseReachable ?? true, tables: generations.flatMap((g) => g.tables) });
  // Before seeding: a seeded branch's history starts when it is made.
  for (const g of generations) if (g.onChange !== undefined) store.onChange(() => g.onChange!(store));
  const core = coreOf(options, checked, store);
  core.seed();

  // A client gets a minute to send its headers and two to send its request; timeouts are checked
  // every second (Node's default is every 30 s, which would let slow clients pile up). Not less:
  // the embedded Postgres (PGlite) runs in this thread, and on a loaded machine its work held the
  // event loop past 10 s, which Node counted against a client whose headers had long arrived (a
  // 408 on an enabling POST that was never slow). Idle
  // connections stay open a minute, as behind a typical load balancer (assumption: Neon does not
  // document its idle timeout): with Node's 5 s, a client whose event loop was held up on a loaded
  // machine reused a connection the server had just closed, and a POST failed with ECONNRESET.
  const server = http.createServer(
    // Request heads over 8 KB (no route comes near) are refused by the parser itself with 431.
    { keepAliveTimeout: 60_000, headersTimeout: 60_000, requestTimeout: 120_000, connectionsCheckingInterval: 1_000, maxHeaderSize: 8 * 1024 },
    createHandler(core),
  );
  const host = options.host ?? "127.0.0.1";
  const port = await listen(server, options.port ?? 0, host);
  core.port = port;
  const origin = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

  let closing: Promise<void> | null = null;
  return {
    url: origin + API_PREFIX,
    controlUrl: origin + CONTROL_PREFIX,
    port,
    host,
    apiKeys,
    controlToken,
    store,
    databases,
    faults: core.faults,
    rateLimiter: core.limiter,
    requestLog: core.log,
    state: (opts) => stateDump(core, opts?.secrets === true),
    injectFaults: (...f) => core.faults.enqueue(...f),
    flush: () => store.flush(),
    close: () => {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await databases.close();
        await store.flush();
      })();
      return closing;
    },
  };
}
