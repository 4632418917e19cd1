#!/usr/bin/env node
/**
 * neon-auth-emulator: runs the local emulator of Neon's auth management API.
 * Prints the API base URL (one line) on stdout when ready; notes go to stderr.
 */
import { assertNodeVersion } from "../nodeVersion";
// Before anything else loads: on an old Node our dependencies fail with messages that never say why.
try {
  assertNodeVersion("pulumi-neon-auth");
} catch (err) {
  process.stderr.write(`neon-auth-emulator: ${(err as Error).message}\n`);
  process.exit(1);
}
// Only the worker loads the emulator itself (the main thread parses arguments and waits).
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

export function parseArgs(argv: string[], env: NodeJS.ProcessEnv): EmulatorOptions {
  const opts: EmulatorOptions = { operationDelayMs: 200 };
  const keys: string[] = [];
  const seeds: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      if (eq > 0) return arg.slice(eq + 1);
      const v = argv[++i];
      if (v === undefined) fail(`${name} needs a value`);
      return v;
    };
    const int = (v: string, min: number, max: number): number => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) fail(`${name} must be an integer between ${min} and ${max}`);
      return n;
    };
    switch (name) {
      case "-h":
      case "--help":
        process.stdout.write(USAGE);
        process.exit(0);
      case "--port":
        opts.port = int(value(), 0, 65535);
        break;
      case "--host":
        opts.host = value();
        break;
      case "--api-key":
        keys.push(value());
        break;
      case "--state":
        opts.stateFile = value();
        break;
      case "--seed-project":
        seeds.push(value());
        break;
      case "--rate-limit": {
        const v = value();
        if (v !== "off" && v !== "spec") fail("--rate-limit must be off or spec");
        opts.rateLimit = v;
        break;
      }
      case "--faults":
        opts.faults = value();
        break;
      case "--operation-delay":
        opts.operationDelayMs = int(value(), 0, 3_600_000);
        break;
      case "--strict":
        opts.strict = true;
        break;
      case "--control-token":
        opts.controlToken = value();
        break;
      case "--allow-host":
        (opts.allowedHosts ??= []).push(value());
        break;
      case "--database": {
        const v = value();
        if (v !== "on" && v !== "unreachable") fail("--database must be on or unreachable");
        opts.databaseReachable = v === "on";
        break;
      }
      default:
        fail(`unknown argument ${arg}`);
    }
  }
  if (keys.length === 0 && env.NEON_EMULATOR_API_KEYS) {
    keys.push(...env.NEON_EMULATOR_API_KEYS.split(",").map((k) => k.trim()).filter((k) => k !== ""));
  }
  if (keys.length > 0) opts.apiKeys = keys;
  if (opts.controlToken === undefined && env.NEON_EMULATOR_CONTROL_TOKEN) opts.controlToken = env.NEON_EMULATOR_CONTROL_TOKEN;
  if (seeds.length > 0) opts.seedProjects = seeds;
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
