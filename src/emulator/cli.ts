#!/usr/bin/env node
/**
 * neon-auth-emulator: runs the local emulator of Neon's auth management API.
 * Prints the API base URL (one line) on stdout when ready; notes go to stderr.
 */
import { startEmulator, DEFAULT_API_KEY, type EmulatorOptions } from "./index";

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
  -h, --help               this help
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
      case "--control-token":
        opts.controlToken = value();
        break;
      case "--allow-host":
        (opts.allowedHosts ??= []).push(value());
        break;
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

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2), process.env);
  if (opts.apiKeys === undefined) {
    process.stderr.write(`neon-auth-emulator: no --api-key given; accepting the default key "${DEFAULT_API_KEY}"\n`);
  }
  let emu;
  try {
    emu = await startEmulator(opts);
  } catch (e) {
    process.stderr.write(`neon-auth-emulator: ${(e as Error).message}\n`);
    process.exit(1);
  }
  process.stdout.write(`${emu.url}\n`);
  if (opts.controlToken === undefined) {
    process.stderr.write(
      `neon-auth-emulator: control token ${emu.controlToken} (send it as Authorization: Bearer to read secrets from ${emu.controlUrl}/state?secrets=true)\n`,
    );
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`neon-auth-emulator: ${signal}, shutting down\n`);
    emu.close().then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`neon-auth-emulator: ${(e as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

if (require.main === module) void main();
