#!/usr/bin/env node
/**
 * neon-auth-emulator: runs the local emulator of Neon's auth management API.
 * Prints the API base URL (one line) on stdout when ready; notes go to stderr.
 */
import { exitUnlessNodeVersion } from "../nodeVersion";
// Before anything else loads: on an old Node our dependencies fail with messages that never say why.
exitUnlessNodeVersion("neon-auth-emulator");
// Only the worker loads the emulator itself (the main thread parses arguments and waits).
import * as util from "node:util";
import { DEFAULT_API_KEY } from "./core/http";
import type { EmulatorOptions } from "./index";

const USAGE = `Usage: neon-auth-emulator [options]

  --port N                 port to listen on (default 0: a free port)
  --host HOST              address to bind (default 127.0.0.1)
  --api-key KEY            accepted API key (repeatable; or NEON_EMULATOR_API_KEYS=k1,k2;
                           default "${DEFAULT_API_KEY}"); seeded projects belong to the first
  --state FILE             persist the state in FILE (atomic writes)
  --seed-project ID[:BR]   create project ID with default branch BR (default br-main-ID) (repeatable)
  --rate-limit off|spec    rate limits of the API (default spec: 700/min, bursts of 40)
  --faults SPEC            e.g. error=0.1,reset=0.05,lost=0.05,lock=0.05,latency=0-300
  --operation-delay MS     how long project operations run (default 200)
  --control-token TOKEN    token that unlocks secrets on /_emulator/state?secrets=true
                           (or NEON_EMULATOR_CONTROL_TOKEN; default: a random one, printed at start)
  --allow-host HOST[:PORT] accept this Host header besides loopback names with the emulator's
                           port (repeatable), e.g. a container's published name and port
  --database on|unreachable  the projects' Postgres (default on); unreachable: connections are
                           refused, as behind a network policy (switch: PUT /_emulator/database)
  --strict                 refuse request fields Neon's API does not define (400), instead of
                           ignoring them as Neon's OpenAPI document allows; for a client's own tests
  --newer-neon             answer as a newer Neon would: objects gain a field (added_by_newer_neon),
                           new integrations list members of unknown types nobody declared
  --no-control             serve no control route (404 under /_emulator, as at Neon): for runs
                           that must use only what they could use against Neon
  -h, --help               this help

Auth lives in a project. Seed one with --seed-project, or create one as Neon's API does
(201, with the project, its default branch and operations):

  curl -s -X POST http://127.0.0.1:PORT/api/v2/projects \\
    -H "Authorization: Bearer KEY" -H "Content-Type: application/json" -d '{"project":{"name":"demo"}}'

Then point a stack at it: pulumi config set neon-auth:apiUrl http://127.0.0.1:PORT/api/v2
and pulumi config set --secret neon-auth:apiKey KEY. Control routes and limits of the emulator:
node_modules/pulumi-neon-auth/src/emulator/README.md.
`;

function fail(msg: string): never {
  process.stderr.write(`neon-auth-emulator: ${msg}\n\n${USAGE}`);
  process.exit(2);
}

/** The options, as Node's own parser reads them (`--port 4000` and `--port=4000` alike). */
const OPTIONS = {
  help: { type: "boolean", short: "h" },
  port: { type: "string" },
  host: { type: "string" },
  "api-key": { type: "string", multiple: true },
  state: { type: "string" },
  "seed-project": { type: "string", multiple: true },
  "rate-limit": { type: "string" },
  faults: { type: "string" },
  "operation-delay": { type: "string" },
  strict: { type: "boolean" },
  "newer-neon": { type: "boolean" },
  "no-control": { type: "boolean" },
  "control-token": { type: "string" },
  "allow-host": { type: "string", multiple: true },
  database: { type: "string" },
} as const;

function int(name: string, v: string, min: number, max: number): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) fail(`--${name} must be an integer between ${min} and ${max}`);
  return n;
}

function oneOf<T extends string>(name: string, v: string, values: readonly T[]): T {
  if (!(values as readonly string[]).includes(v)) fail(`--${name} must be ${values.join(" or ")}`);
  return v as T;
}

export function parseArgs(argv: string[], env: NodeJS.ProcessEnv): EmulatorOptions {
  let values: ReturnType<typeof util.parseArgs<{ args: string[]; options: typeof OPTIONS }>>["values"];
  try {
    ({ values } = util.parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (err) {
    fail((err as Error).message);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const keys = values["api-key"] ?? env.NEON_EMULATOR_API_KEYS?.split(",").map((k) => k.trim()).filter((k) => k !== "") ?? [];
  const v = values;
  const opts: EmulatorOptions = {
    operationDelayMs: v["operation-delay"] === undefined ? 200 : int("operation-delay", v["operation-delay"], 0, 3_600_000),
    ...(v.port === undefined ? {} : { port: int("port", v.port, 0, 65535) }),
    ...(v.host === undefined ? {} : { host: v.host }),
    ...(keys.length === 0 ? {} : { apiKeys: keys }),
    ...(v.state === undefined ? {} : { stateFile: v.state }),
    ...(v["seed-project"] === undefined ? {} : { seedProjects: v["seed-project"] }),
    ...(v["rate-limit"] === undefined ? {} : { rateLimit: oneOf("rate-limit", v["rate-limit"], ["off", "spec"] as const) }),
    ...(v.faults === undefined ? {} : { faults: v.faults }),
    ...(v.strict ? { strict: true } : {}),
    ...(v["newer-neon"] ? { newerNeon: true } : {}),
    ...(v["no-control"] ? { control: false } : {}),
    ...(v["allow-host"] === undefined ? {} : { allowedHosts: v["allow-host"] }),
    ...(v.database === undefined ? {} : { databaseReachable: oneOf("database", v.database, ["on", "unreachable"] as const) === "on" }),
  };
  const controlToken = v["control-token"] ?? (env.NEON_EMULATOR_CONTROL_TOKEN || undefined);
  if (controlToken !== undefined) opts.controlToken = controlToken;
  return opts;
}

/**
 * The server runs in a worker thread with a small young generation: a client that floods it
 * with garbage (16 KB paths, bodies it never authenticates) would otherwise grow V8's nursery
 * to its 48 MB default on top of everything else. One process still, so a kill stops it all.
 */
const YOUNG_GENERATION_MB = 8;

interface Started {
  url: string;
  controlUrl: string;
  controlToken: string;
}

function serveInWorker(): void {
  const { parentPort, workerData } = require("node:worker_threads") as typeof import("node:worker_threads");
  void (async () => {
    let emu;
    try {
      const { startEmulator } = require("./index") as typeof import("./index");
      emu = await startEmulator(workerData as EmulatorOptions);
    } catch (e) {
      parentPort!.postMessage({ error: (e as Error).message });
      return;
    }
    const started: Started = { url: emu.url, controlUrl: emu.controlUrl, controlToken: emu.controlToken };
    parentPort!.postMessage({ started });
    parentPort!.on("message", () => {
      emu.close().then(
        () => parentPort!.postMessage({ closed: true }),
        (e: unknown) => parentPort!.postMessage({ closed: true, error: (e as Error).message }),
      );
    });
  })();
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2), process.env);
  if (opts.apiKeys === undefined) {
    process.stderr.write(`neon-auth-emulator: no --api-key given; accepting the default key "${DEFAULT_API_KEY}"\n`);
  }
  const { Worker } = require("node:worker_threads") as typeof import("node:worker_threads");
  const worker = new Worker(__filename, { workerData: opts, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
  worker.on("error", (e) => {
    process.stderr.write(`neon-auth-emulator: ${e.message}\n`);
    process.exit(1);
  });
  worker.on("exit", (code) => process.exit(code === 0 ? 1 : code));
  let stopping = false;
  worker.on("message", (m: { started?: Started; error?: string; closed?: boolean }) => {
    if (m.closed) {
      if (m.error) process.stderr.write(`neon-auth-emulator: ${m.error}\n`);
      process.exit(m.error ? 1 : 0);
    }
    if (m.error) {
      process.stderr.write(`neon-auth-emulator: ${m.error}\n`);
      process.exit(1);
    }
    if (!m.started) return;
    process.stdout.write(`${m.started.url}\n`);
    if (opts.controlToken === undefined) {
      process.stderr.write(
        `neon-auth-emulator: control token ${m.started.controlToken} (send it as Authorization: Bearer to read secrets from ${m.started.controlUrl}/state?secrets=true)\n`,
      );
    }
  });
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`neon-auth-emulator: ${signal}, shutting down\n`);
    worker.postMessage("stop");
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

// The worker runs this same file as its main module.
if (require.main === module) {
  if (require("node:worker_threads").isMainThread) void main();
  else serveInWorker();
}
