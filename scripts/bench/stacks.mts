/**
 * Stacks of the bench and the one way every command is run and measured: the CLI as a pipeline
 * types it, timed from spawn to exit, with its CPU time, its engine events and (on request) the
 * peak memory of its dynamic-provider process. The Pulumi environment is the e2e harness's
 * (scripts/workspace.mts, pulumiEnv).
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import type { Stack } from "@pulumi/pulumi/automation/index.js";
import { pulumiEnv } from "../workspace.mts";

const require = createRequire(import.meta.url);
const { LocalWorkspace } = require("@pulumi/pulumi/automation/index.js") as typeof import("@pulumi/pulumi/automation/index.js");

export const log = (line: string) => process.stderr.write(`bench: ${line}\n`);
export const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** When the engine let the do-nothing provider work: its first create, and the end after its last. */
export interface EngineTimes {
  /** Command start to the first create call: the engine and program start-up alone. */
  firstCreateS: number;
  /** Last create call to the end of the command. */
  tailS: number;
}

export function engineTimes(createLog: string, op: { startedAt: number; endedAt: number }): EngineTimes | null {
  if (!fs.existsSync(createLog)) return null;
  const times = fs.readFileSync(createLog, "utf8").split("\n").filter(Boolean).map(Number);
  if (times.length === 0) return null;
  return { firstCreateS: (Math.min(...times) - op.startedAt) / 1000, tailS: (op.endedAt - Math.max(...times)) / 1000 };
}


// ---- peak memory of the dynamic-provider process ----------------------------------------------
/** What the provider process's command line holds: the classes' dynamic-provider host, or the plugin. */
export const PROVIDER_PROCESS = { classes: "dynamic-provider", plugin: "pulumi-resource-neon-auth" } as const;

/**
 * Polls /proc every 200 ms for processes whose command line names the provider (`PROVIDER_PROCESS`)
 * and whose working folder is the program's (the engine starts plugins there), so concurrent runs
 * of other people on the machine are not counted. VmHWM is the process's own peak RSS, so the last
 * sample of each process is its peak.
 */
export class MemorySampler {
  private peaks = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private dir: string;
  private process: string;
  constructor(dir: string, process: string = PROVIDER_PROCESS.classes) {
    this.dir = dir;
    this.process = process;
  }

  start(): void {
    this.peaks.clear();
    const dir = fs.realpathSync(this.dir);
    const sample = () => {
      for (const entry of fs.readdirSync("/proc")) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
          if (!cmdline.includes(this.process) || cmdline.includes("require.resolve")) continue;
          if (fs.readlinkSync(`/proc/${entry}/cwd`) !== dir) continue;
          const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${entry}/status`, "utf8"));
          if (m) this.peaks.set(Number(entry), Math.max(this.peaks.get(Number(entry)) ?? 0, Number(m[1])));
        } catch {
          // Gone meanwhile, or not ours to read.
        }
      }
    };
    sample();
    this.timer = setInterval(sample, 200);
  }

  /** Peak VmHWM in MiB over the processes seen, and how many there were. */
  stop(): { peakMiB: number | null; processes: number } {
    if (this.timer) clearInterval(this.timer);
    const kb = Math.max(0, ...this.peaks.values());
    return { peakMiB: this.peaks.size > 0 ? round(kb / 1024, 1) : null, processes: this.peaks.size };
  }
}

// ---- stacks -----------------------------------------------------------------------------------
/**
 * Every timed command runs the CLI itself, exactly as a user or a pipeline types it
 * (`pulumi up --yes --skip-preview`), not through the Automation API: its `up()` adds commands of
 * its own around the update (`stack select` before, `stack output` and `stack history` after),
 * about 1.4 s that are not `pulumi up`. The Automation API only creates and configures stacks.
 *
 * CPU time of a whole command (CLI, language host, program, dynamic provider): the command runs
 * under bash, which appends its `times` for its children (every process it waited for,
 * recursively) to the stack's CPU file. CPU seconds are far less sensitive than wall time to
 * other work on a shared machine.
 */
const CPU_WRAPPER = [
  '"$@"',
  "rc=$?",
  // `times` must run in this shell, not in a $(...) subshell, to see this shell's children.
  'times > "$BENCH_CPU_FILE.times"; echo "$2 $(tail -n 1 "$BENCH_CPU_FILE.times")" >> "$BENCH_CPU_FILE"',
  "exit $rc",
].join("\n");

/** CPU seconds (user + system) of the last `op` command recorded in the stack's CPU file. */
function cpuSeconds(s: BenchStack, op: string): number | null {
  let text = "";
  try {
    text = fs.readFileSync(s.cpuFile, "utf8");
  } catch {
    return null;
  }
  const line = text.split("\n").filter((l) => l.startsWith(`${op} `)).pop();
  const m = line && /(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/.exec(line);
  return m ? Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]) : null;
}

export interface BenchStack {
  stack: Stack;
  dir: string;
  env: Record<string, string>;
  cpuFile: string;
  backendDir: string;
}

export async function newStack(
  backendDir: string,
  passphrase: string,
  dir: string,
  name: string,
  config: Record<string, { value: string; secret?: boolean }>,
  env: Record<string, string> = {},
): Promise<BenchStack> {
  const cpuFile = path.join(backendDir, `cpu-${name}.txt`);
  const allEnv = { ...pulumiEnv(backendDir, passphrase), ...env, BENCH_CPU_FILE: cpuFile };
  const stack = await LocalWorkspace.createStack({ stackName: name, workDir: dir }, { envVars: allEnv });
  await stack.setAllConfig(config);
  return { stack, dir, env: allEnv, cpuFile, backendDir };
}

export async function removeStack(s: BenchStack): Promise<void> {
  try {
    await s.stack.workspace.removeStack(s.stack.name, { force: true });
  } catch (err) {
    log(`could not remove stack ${s.stack.name}: ${String(err).split("\n")[0]}`);
  }
}


export interface OpResult {
  ok: boolean;
  wallS: number;
  /** CPU seconds of the command and every process under it. */
  cpuS: number | null;
  changes: Record<string, number>;
  failedResources: number;
  /** Engine error diagnostics that mention a 429 / the rate limit (429s that reached the user). */
  surfaced429: number;
  error?: string;
  memory?: { peakMiB: number | null; processes: number };
  /** Epoch milliseconds at the start and end of the command, to place the API requests within it. */
  startedAt: number;
  endedAt: number;
}

export type Op = "up" | "destroy" | "refresh" | "preview";

/**
 * Why a command failed, in one line: its error lines, or when it printed none (killed, crashed)
 * its last lines, with the exit code or signal.
 */
function failureOf(output: string, code: number | null, signal: NodeJS.Signals | null): string {
  const lines = output.split("\n").map((l) => l.trim()).filter(Boolean);
  const errors = lines.filter((l) => /error|fail/i.test(l)).slice(0, 5);
  const how = signal === null ? `exit ${code}` : `killed by ${signal}`;
  return `${how}: ${(errors.length > 0 ? errors : lines.slice(-5)).join(" | ") || "(no output)"}`;
}

/**
 * Runs one CLI command on the stack, timed from spawn to exit, and reads the engine's event log
 * (`--event-log`, one JSON event per line) for failed resources, surfaced 429s and the change
 * summary. Asynchronous, so the in-process emulator keeps answering meanwhile.
 */
export async function timedOp(s: BenchStack, op: Op, opts: { sampler?: MemorySampler; parallel?: number } = {}): Promise<OpResult> {
  const sampler = opts.sampler;
  const events = path.join(s.backendDir, `events-${s.stack.name}-${op}.jsonl`);
  fs.rmSync(events, { force: true });
  const args = [op, "--stack", s.stack.name, "--non-interactive", "--color", "never", "--event-log", events];
  if (op !== "preview") args.push("--yes", "--skip-preview");
  if (opts.parallel !== undefined) args.push("--parallel", String(opts.parallel));
  sampler?.start();
  const startedAt = Date.now();
  const t0 = performance.now();
  const { code, signal, output } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>((resolve, reject) => {
    const child = spawn("bash", ["-c", CPU_WRAPPER, "bench", "pulumi", ...args], {
      cwd: s.dir,
      // `--event-log` exists only with PULUMI_DEBUG_COMMANDS (the Automation API sets it too).
      env: { ...process.env, ...s.env, PULUMI_DEBUG_COMMANDS: "true" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (c, sig) => resolve({ code: c, signal: sig, output }));
  });
  const wallS = (performance.now() - t0) / 1000;
  const endedAt = Date.now();
  const memory = sampler?.stop();

  const failed = new Set<string>();
  let surfaced429 = 0;
  let changes: Record<string, number> = {};
  const lines = fs.existsSync(events) ? fs.readFileSync(events, "utf8").split("\n") : [];
  for (const line of lines) {
    if (!line.trim()) continue;
    let e;
    try {
      e = JSON.parse(line);
    } catch {
      // A CLI that was killed can leave half a line; what was written before it still counts.
      continue;
    }
    if (e.resOpFailedEvent) failed.add(e.resOpFailedEvent.metadata.urn);
    const d = e.diagnosticEvent;
    if (d && d.severity === "error") {
      if (d.urn) failed.add(d.urn);
      if (/\b429\b|rate limit/i.test(d.message)) surfaced429++;
    }
    if (e.summaryEvent) changes = e.summaryEvent.resourceChanges ?? {};
  }
  // Failed resources are custom resources; the stack's own error line is not one.
  const failedResources = [...failed].filter((u) => !u.includes("pulumi:pulumi:Stack")).length;
  const error = code === 0 ? undefined : failureOf(output, code, signal);
  return {
    ok: code === 0,
    wallS,
    cpuS: cpuSeconds(s, op),
    changes,
    failedResources,
    surfaced429,
    startedAt,
    endedAt,
    ...(error ? { error } : {}),
    ...(memory ? { memory } : {}),
  };
}

