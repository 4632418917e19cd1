/**
 * `npm run bench`: how close a large `pulumi up` comes to what Neon's rate limit allows,
 * what the engine costs on top, and how lean the state is. One run, against the local emulator at
 * its spec limits (700 requests/min per key, bursts of 40), with the real Pulumi CLI (file://
 * backend in a temp folder, passphrase secrets, loopback only).
 *
 * 1. Throughput: `pulumi up` of examples/full-setup with N redirect domains (extraDomains = N - 3)
 *    plus the integration, SDK keys, two OAuth providers, the email server and two users, for each
 *    N, at Pulumi's default parallelism; paced (the client's limiter on) and naive
 *    (PULUMI_NEON_AUTH_PACING=off). The engine bound: an up of bench/noop-stack, as many dynamic
 *    resources in the same shape whose provider does nothing, tells when the engine lets a provider
 *    start (its first create) and how long it takes after the last one; engine start + floor +
 *    engine tail, or the no-op up itself when that is longer, is the best any provider could do
 *    at that N.
 * 2. Preview: no-op `pulumi preview` of the N=100 stack vs the no-op stack (median of 3 each,
 *    interleaved), and the API requests made during the previews.
 * 3. Refresh: API requests per resource during `pulumi refresh` of the N=100 stack.
 * 4. State: `pulumi stack export` (CLI) bytes per resource, and the size of `__provider`.
 * 5. Memory: peak VmHWM of the dynamic-provider process, sampled every 200 ms during each up.
 *
 * Writes bench/out/bench.json and bench/out/throughput.svg, prints a table. Environment:
 * `eval "$(scripts/env)"` first (Node 24 and the Pulumi CLI on PATH). BENCH_SIZES=10,100 and
 * BENCH_NAIVE_SIZES=100 narrow the run (preview, refresh and state use N=100, else the first size);
 * BENCH_SKIP_CHECKPOINTS=off drops the extra PULUMI_SKIP_CHECKPOINTS run at the largest N.
 * `node scripts/bench.mts --report` prints the table and redraws the chart from bench.json.
 * No timing thresholds: this prints figures, it never fails on them.
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import type { Stack } from "@pulumi/pulumi/automation/index.js";
import type { EmulatorHandle } from "../src/emulator/index.ts";
import { copyProgram, prepareWorkspace, pulumiEnv, repo } from "./workspace.mts";

const require = createRequire(import.meta.url);
const { SERVICE_RATE_LIMIT } = require("../dist/schemas/limits.js") as typeof import("../src/schemas/limits.ts");
const { LocalWorkspace } = require("@pulumi/pulumi/automation/index.js") as typeof import("@pulumi/pulumi/automation/index.js");

// ---- settings ---------------------------------------------------------------------------------
const KEY = "bench-key-5d0c8e27a1";
const PROJECT = "p-bench";
const BRANCH = "br-main-p-bench";
const PASSPHRASE = "bench-passphrase-not-a-secret";
const { perMinute: PER_MINUTE, burst: BURST } = SERVICE_RATE_LIMIT;
/** Dynamic resources of full-setup besides the N domains: integration, keys, 2 OAuth, email, 2 users. */
const OTHERS = 7;
const PREVIEW_RUNS = 3;

/** 600 shows that the engine's start-up grows with N rather than staying fixed (README, Performance). */
const sizes = listEnv("BENCH_SIZES", [10, 100, 300, 600]);
const naiveSizes = listEnv("BENCH_NAIVE_SIZES", sizes.filter((n) => n <= 300));
/** The N whose stack also gets the preview, refresh and state measurements (100, when run). */
const PROBE_N = sizes.includes(100) ? 100 : sizes[0]!;
const outDir = path.join(repo, "bench", "out");

function listEnv(name: string, dflt: number[]): number[] {
  const v = process.env[name];
  if (!v) return dflt;
  const list = v.split(",").map((s) => Number(s.trim()));
  for (const n of list) if (!Number.isInteger(n) || n < 3) throw new Error(`${name}: sizes are integers >= 3, got "${v}"`);
  return list;
}

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);
const floorSeconds = (requests: number) => (Math.max(0, requests - BURST) * 60) / PER_MINUTE;
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

// ---- the emulator and its counters ------------------------------------------------------------
interface Stats {
  total: number;
  byStatus: Record<string, number>;
  byRoute: Record<string, number>;
}

async function control(em: EmulatorHandle, method: string, route: string): Promise<any> {
  const headers = method === "GET" ? {} : { "content-type": "application/json" };
  const res = await fetch(`${em.controlUrl}${route}`, { method, headers });
  if (!res.ok) throw new Error(`${method} /_emulator${route}: ${res.status} ${await res.text()}`);
  return res.json();
}

const stats = async (em: EmulatorHandle): Promise<Stats> => control(em, "GET", "/stats");
/** Empties the emulator's state, counters and rate-limit buckets (full bursts again), re-seeds. */
const resetEmulator = async (em: EmulatorHandle) => void (await control(em, "POST", "/reset"));
/** Zeroes the request counters only (state and buckets stay). */
const clearCounters = async (em: EmulatorHandle) => void (await control(em, "DELETE", "/requests"));

interface Timeline {
  /** Command start to the first API request: engine and program start-up, plus any step before the first request. */
  startS: number;
  /** First request sent to last answer: the part the rate limit governs. */
  spanS: number;
  /** Last answer to the end of the command: the engine finishing up (state write, exit). */
  tailS: number;
}

/** Where the API requests of one command fell within it (the emulator logs each with its time). */
async function timeline(em: EmulatorHandle, op: { startedAt: number; endedAt: number }): Promise<Timeline | null> {
  const { requests } = (await control(em, "GET", "/requests")) as { requests: Array<{ time: string; duration_ms: number }> };
  if (requests.length === 0) return null;
  const first = Math.min(...requests.map((r) => Date.parse(r.time)));
  const last = Math.max(...requests.map((r) => Date.parse(r.time) + r.duration_ms));
  return { startS: (first - op.startedAt) / 1000, spanS: (last - first) / 1000, tailS: (op.endedAt - last) / 1000 };
}

/** When the engine let the do-nothing provider work: its first create, and the end after its last. */
interface EngineTimes {
  /** Command start to the first create call: the engine and program start-up alone. */
  firstCreateS: number;
  /** Last create call to the end of the command. */
  tailS: number;
}

function engineTimes(createLog: string, op: { startedAt: number; endedAt: number }): EngineTimes | null {
  if (!fs.existsSync(createLog)) return null;
  const times = fs.readFileSync(createLog, "utf8").split("\n").filter(Boolean).map(Number);
  if (times.length === 0) return null;
  return { firstCreateS: (Math.min(...times) - op.startedAt) / 1000, tailS: (op.endedAt - Math.max(...times)) / 1000 };
}

// ---- peak memory of the dynamic-provider process ----------------------------------------------
/**
 * Polls /proc every 200 ms for processes whose command line names `dynamic-provider` and whose
 * working folder is the program's (the engine starts plugins there), so concurrent runs of other
 * people on the machine are not counted. VmHWM is the process's own peak RSS, so the last sample
 * of each process is its peak.
 */
class MemorySampler {
  private peaks = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private dir: string;
  constructor(dir: string) {
    this.dir = dir;
  }

  start(): void {
    this.peaks.clear();
    const dir = fs.realpathSync(this.dir);
    const sample = () => {
      for (const entry of fs.readdirSync("/proc")) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
          if (!cmdline.includes("dynamic-provider") || cmdline.includes("require.resolve")) continue;
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
const backendDir = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-bench-state-"));
const baseEnv = pulumiEnv(backendDir, PASSPHRASE);

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

interface BenchStack {
  stack: Stack;
  dir: string;
  env: Record<string, string>;
  cpuFile: string;
}

async function newStack(dir: string, name: string, config: Record<string, { value: string; secret?: boolean }>, env: Record<string, string> = {}): Promise<BenchStack> {
  const cpuFile = path.join(backendDir, `cpu-${name}.txt`);
  const allEnv = { ...baseEnv, ...env, BENCH_CPU_FILE: cpuFile };
  const stack = await LocalWorkspace.createStack({ stackName: name, workDir: dir }, { envVars: allEnv });
  await stack.setAllConfig(config);
  return { stack, dir, env: allEnv, cpuFile };
}

async function removeStack(s: BenchStack): Promise<void> {
  try {
    await s.stack.workspace.removeStack(s.stack.name, { force: true });
  } catch (err) {
    log(`could not remove stack ${s.stack.name}: ${String(err).split("\n")[0]}`);
  }
}

interface OpResult {
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

type Op = "up" | "destroy" | "refresh" | "preview";

/**
 * Runs one CLI command on the stack, timed from spawn to exit, and reads the engine's event log
 * (`--event-log`, one JSON event per line) for failed resources, surfaced 429s and the change
 * summary. Asynchronous, so the in-process emulator keeps answering meanwhile.
 */
async function timedOp(s: BenchStack, op: Op, sampler?: MemorySampler): Promise<OpResult> {
  const events = path.join(backendDir, `events-${s.stack.name}-${op}.jsonl`);
  fs.rmSync(events, { force: true });
  const args = [op, "--stack", s.stack.name, "--non-interactive", "--color", "never", "--event-log", events];
  if (op !== "preview") args.push("--yes", "--skip-preview");
  sampler?.start();
  const startedAt = Date.now();
  const t0 = performance.now();
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
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
    child.on("close", (c) => resolve({ code: c, output }));
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
    const e = JSON.parse(line);
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
  const error =
    code === 0
      ? undefined
      : output
          .split("\n")
          .filter((l) => /error|fail/i.test(l))
          .slice(0, 5)
          .join(" | ") || `exit ${code}`;
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

async function timedPreview(s: BenchStack): Promise<{ wallS: number; cpuS: number | null; changes: Record<string, number> }> {
  const r = await timedOp(s, "preview");
  if (!r.ok) throw new Error(`preview of ${s.stack.name} failed: ${r.error}`);
  return { wallS: r.wallS, cpuS: r.cpuS, changes: r.changes };
}

// ---- state ------------------------------------------------------------------------------------
interface StateFigures {
  exportBytes: number;
  resources: number;
  dynamicResources: number;
  bytesPerResource: number;
  bytesPerDynamicResource: number;
  /** Size of one RedirectDomain entry in the export (median over the domains). */
  domainEntryBytes: number;
  largestEntry: { type: string; bytes: number };
  /** Length of the serialized provider (`__provider`), per distinct value, by resource type. */
  providerBytes: Record<string, number>;
  /** `__provider` is kept in both inputs and outputs: bytes it takes per resource. */
  providerBytesPerResource: number;
  /** Where the bytes of that RedirectDomain entry go (pretty-printed as a top-level object). */
  domainEntryParts: Record<string, number>;
  /** Mean entry bytes by resource type (last part of the type token). */
  entryBytesByType: Record<string, number>;
}

function stateFigures(s: BenchStack): StateFigures {
  // The CLI's export (secrets stay ciphertext), not the Automation API's exportStack.
  const text = execFileSync("pulumi", ["stack", "export", "--stack", s.stack.name, "--cwd", s.dir], {
    env: { ...process.env, ...s.env },
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  const doc = JSON.parse(text);
  const resources: any[] = doc.deployment?.resources ?? [];
  const dynamic = resources.filter((r) => String(r.type).startsWith("pulumi-nodejs:dynamic/"));
  const providerBytes: Record<string, number> = {};
  let providerTotal = 0;
  for (const r of dynamic) {
    const type = String(r.type).split(":").pop()!;
    const p = r.outputs?.__provider ?? r.inputs?.__provider;
    if (typeof p === "string") providerBytes[type] = Buffer.byteLength(p);
    for (const where of [r.inputs, r.outputs]) {
      if (typeof where?.__provider === "string") providerTotal += Buffer.byteLength(JSON.stringify(where.__provider));
    }
  }
  const sizeOf = (r: unknown) => Buffer.byteLength(JSON.stringify(r, null, 4));
  const domainEntries = dynamic.filter((r) => String(r.type).endsWith(":RedirectDomain"));
  const domains = domainEntries.map(sizeOf);
  // One entry as the export holds it, to see where the bytes go.
  if (domainEntries.length > 0) fs.writeFileSync(path.join(outDir, "state-sample-redirect-domain.json"), `${JSON.stringify(domainEntries[domainEntries.length - 1], null, 4)}\n`);
  const largest = resources.map((r) => ({ type: String(r.type), bytes: sizeOf(r) })).sort((a, b) => b.bytes - a.bytes)[0]!;
  const byType: Record<string, number[]> = {};
  for (const r of resources) (byType[String(r.type).split(":").pop()!] ??= []).push(sizeOf(r));
  const entryBytesByType = Object.fromEntries(Object.entries(byType).map(([t, xs]) => [t, Math.round(xs.reduce((a, b) => a + b, 0) / xs.length)]));
  const domainEntryParts: Record<string, number> = {};
  const sample = domainEntries[domainEntries.length - 1];
  if (sample) {
    const without = (drop: (e: any) => void) => {
      const e = structuredClone(sample);
      drop(e);
      return sizeOf(sample) - sizeOf(e);
    };
    domainEntryParts.total = sizeOf(sample);
    domainEntryParts.stackTraceAndSourcePosition = without((e) => {
      delete e.stackTrace;
      delete e.sourcePosition;
    });
    domainEntryParts.providerInInputsAndOutputs = without((e) => {
      delete e.inputs?.__provider;
      delete e.outputs?.__provider;
    });
    domainEntryParts.urnsParentProviderDependencies = without((e) => {
      for (const k of ["urn", "parent", "provider", "dependencies"]) delete e[k];
    });
    domainEntryParts.ownInputsAndOutputs = without((e) => {
      for (const where of [e.inputs, e.outputs]) for (const k of Object.keys(where ?? {})) if (k !== "__provider") delete where[k];
    });
    domainEntryParts.rest =
      domainEntryParts.total -
      domainEntryParts.stackTraceAndSourcePosition -
      domainEntryParts.providerInInputsAndOutputs -
      domainEntryParts.urnsParentProviderDependencies -
      domainEntryParts.ownInputsAndOutputs;
  }
  const bytes = Buffer.byteLength(text);
  return {
    exportBytes: bytes,
    resources: resources.length,
    dynamicResources: dynamic.length,
    bytesPerResource: Math.round(bytes / resources.length),
    bytesPerDynamicResource: Math.round(bytes / dynamic.length),
    domainEntryBytes: domains.length > 0 ? median(domains) : 0,
    largestEntry: largest,
    providerBytes,
    providerBytesPerResource: Math.round(providerTotal / dynamic.length),
    domainEntryParts,
    entryBytesByType,
  };
}

// ---- the run ----------------------------------------------------------------------------------
interface ThroughputRow {
  mode: string;
  n: number;
  resources: number;
  up: OpResult;
  requests: number;
  accepted: number;
  status429: number;
  byRoute: Record<string, number>;
  floorS: number;
  noop: OpResult | null;
  engine: EngineTimes | null;
  timeline: Timeline | null;
  destroy: OpResult & { requests: number; status429: number };
}

interface Mode {
  name: string;
  /** Environment of the CLI (and so of the language host and the dynamic-provider process). */
  env: Record<string, string>;
  sizes: number[];
}

async function main(): Promise<void> {
  try {
    execFileSync("pulumi", ["version"], { stdio: "ignore" });
  } catch {
    throw new Error('the Pulumi CLI is not on PATH: run `eval "$(scripts/env)"` first');
  }
  const started = performance.now();
  fs.mkdirSync(outDir, { recursive: true });
  log("preparing the program workspace (npm pack + install)");
  const workspace = prepareWorkspace(log);
  const realDir = copyProgram(workspace, path.join(repo, "examples", "full-setup"));
  const noopDir = copyProgram(workspace, path.join(repo, "bench", "noop-stack"));
  const { startEmulator } = require("../dist/emulator/index.js") as typeof import("../src/emulator/index.ts");
  const em = await startEmulator({ apiKeys: [KEY], seedProjects: [`${PROJECT}:${BRANCH}`], rateLimit: "spec" });
  log(`emulator at ${em.url} (rate limit: spec)`);

  const realConfig = (n: number) => ({
    "neon-auth:apiUrl": { value: em.url },
    "neon-auth:apiKey": { value: KEY, secret: true },
    projectId: { value: PROJECT },
    branchId: { value: BRANCH },
    githubClientSecret: { value: "gh-bench-secret-0b7d", secret: true },
    smtpPassword: { value: "smtp-bench-pw-91ce", secret: true },
    extraDomains: { value: String(n - 3) },
  });
  const realSampler = new MemorySampler(realDir);
  const noopSampler = new MemorySampler(noopDir);
  const largest = Math.max(...sizes);
  const modes: Mode[] = [
    { name: "paced", env: {}, sizes },
    { name: "naive", env: { PULUMI_NEON_AUTH_PACING: "off" }, sizes: naiveSizes },
    // Not Pulumi's default: the file backend rewrites the whole state after every step; this
    // shows what the engine's per-step checkpoints cost (README, Performance).
    ...(process.env.BENCH_SKIP_CHECKPOINTS === "off" ? [] : [{ name: "paced-nockpt", env: { PULUMI_SKIP_CHECKPOINTS: "true" }, sizes: [largest] }]),
  ];

  const rows: ThroughputRow[] = [];
  const noops: Array<{ mode: string; n: number; up: OpResult; destroy: OpResult; engine: EngineTimes | null }> = [];
  let preview: any = null;
  let refresh: any = null;
  let state: StateFigures | null = null;

  try {
    for (const n of sizes) {
      const total = n + OTHERS;
      for (const mode of modes.filter((m) => m.sizes.includes(n))) {
        // Engine alone: as many dynamic resources, same shape and settings, doing nothing.
        const checkpoints: Record<string, string> = mode.env.PULUMI_SKIP_CHECKPOINTS === "true" ? { PULUMI_SKIP_CHECKPOINTS: "true" } : {};
        const noopName = Object.keys(checkpoints).length > 0 ? "noop-nockpt" : "noop";
        let noopEntry = noops.find((x) => x.n === n && x.mode === noopName);
        let noop: BenchStack | undefined;
        if (!noopEntry) {
          const createLog = path.join(backendDir, `creates-${noopName}-${n}.txt`);
          noop = await newStack(noopDir, `${noopName}-${n}`, { count: { value: String(total) } }, { ...checkpoints, BENCH_NOOP_LOG: createLog });
          const noopUp = await timedOp(noop, "up", noopSampler);
          const engine = noopUp.ok ? engineTimes(createLog, noopUp) : null;
          log(
            `N=${n} ${noopName}: up of ${total} resources ${noopUp.wallS.toFixed(1)} s, ${fmt(noopUp.cpuS)} CPU s, first create at ` +
              `${fmt(engine?.firstCreateS, 2)} s, tail ${fmt(engine?.tailS, 2)} s ${noopUp.ok ? "" : `FAILED ${noopUp.error}`}`,
          );
          noopEntry = { mode: noopName, n, up: noopUp, destroy: noopUp, engine };
          noops.push(noopEntry);
        }

        const s = await newStack(realDir, `${mode.name}-${n}`, realConfig(n), mode.env);
        await resetEmulator(em); // fresh state, zero counters, full buckets
        const up = await timedOp(s, "up", realSampler);
        const st = await stats(em);
        const tl = await timeline(em, up);
        const status429 = st.byStatus["429"] ?? 0;
        const accepted = st.total - status429;
        const floorS = floorSeconds(accepted);
        log(
          `N=${n} ${mode.name}: up ${up.wallS.toFixed(1)} s, ${fmt(up.cpuS)} CPU s (first request at ${fmt(tl?.startS)} s, ` +
            `API span ${fmt(tl?.spanS)} s, tail ${fmt(tl?.tailS)} s), ${st.total} requests (${status429} × 429), ` +
            `floor ${floorS.toFixed(1)} s, failed ${up.failedResources}${up.ok ? "" : ` ERROR ${up.error}`}`,
        );

        if (mode.name === "paced" && n === PROBE_N && up.ok && noop) {
          // 2. Preview: interleaved with the no-op stack's, so background load hits both alike.
          const real: Array<{ wallS: number; cpuS: number | null }> = [];
          const base: Array<{ wallS: number; cpuS: number | null }> = [];
          const requests: number[] = [];
          let changes: Record<string, number> = {};
          let noopChanges: Record<string, number> = {};
          for (let i = 0; i < PREVIEW_RUNS; i++) {
            const b = await timedPreview(noop);
            base.push(b);
            noopChanges = b.changes;
            await clearCounters(em);
            const r = await timedPreview(s);
            requests.push((await stats(em)).total);
            real.push(r);
            changes = r.changes;
          }
          const med = (xs: Array<number | null>) => (xs.every((x) => x !== null) ? median(xs as number[]) : null);
          const cpu = med(real.map((x) => x.cpuS));
          const noopCpu = med(base.map((x) => x.cpuS));
          preview = {
            resources: total,
            wallS: real.map((x) => round(x.wallS)),
            noopWallS: base.map((x) => round(x.wallS)),
            medianS: round(median(real.map((x) => x.wallS))),
            noopMedianS: round(median(base.map((x) => x.wallS))),
            ratio: round(median(real.map((x) => x.wallS)) / median(base.map((x) => x.wallS))),
            cpuS: real.map((x) => (x.cpuS === null ? null : round(x.cpuS))),
            noopCpuS: base.map((x) => (x.cpuS === null ? null : round(x.cpuS))),
            cpuRatio: cpu !== null && noopCpu !== null ? round(cpu / noopCpu) : null,
            apiRequests: requests,
            changes,
            noopChanges,
          };
          log(
            `  preview median ${preview.medianS} s (${fmt(cpu)} CPU s) vs no-op ${preview.noopMedianS} s (${fmt(noopCpu)} CPU s); ` +
              `API requests ${requests.join(", ")}`,
          );

          // 3. Refresh.
          await clearCounters(em);
          const ref = await timedOp(s, "refresh");
          const rst = await stats(em);
          refresh = {
            resources: total,
            wallS: round(ref.wallS),
            ok: ref.ok,
            changes: ref.changes,
            requests: rst.total,
            requestsPerResource: round(rst.total / total, 3),
            byRoute: rst.byRoute,
            status429: rst.byStatus["429"] ?? 0,
          };
          log(`  refresh ${refresh.wallS} s, ${rst.total} requests (${refresh.requestsPerResource} per resource)`);

          // 4. State.
          state = stateFigures(s);
          log(`  state ${state.exportBytes} bytes, ${state.bytesPerDynamicResource} per dynamic resource`);
        }

        await clearCounters(em);
        const d = await timedOp(s, "destroy");
        const dst = await stats(em);
        log(`N=${n} ${mode.name}: destroy ${d.wallS.toFixed(1)} s, ${dst.total} requests${d.ok ? "" : ` FAILED: ${d.error}`}`);
        await removeStack(s);
        rows.push({
          mode: mode.name,
          n,
          resources: total,
          up,
          requests: st.total,
          accepted,
          status429,
          byRoute: st.byRoute,
          floorS,
          noop: noopEntry.up.ok ? noopEntry.up : null,
          engine: noopEntry.engine,
          timeline: tl,
          destroy: { ...d, requests: dst.total, status429: dst.byStatus["429"] ?? 0 },
        });

        if (noop) {
          noopEntry.destroy = await timedOp(noop, "destroy");
          await removeStack(noop);
        }
      }
    }
  } finally {
    await em.close();
    fs.rmSync(realDir, { recursive: true, force: true });
    fs.rmSync(noopDir, { recursive: true, force: true });
    fs.rmSync(backendDir, { recursive: true, force: true });
  }

  const r2 = (x: number | null | undefined, d = 2) => (x === null || x === undefined ? null : round(x, d));
  const atLargest = rows.find((r) => r.mode === "paced" && r.n === largest)?.up.memory ?? null;
  const result = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, loadavg: os.loadavg().map((x) => round(x)), node: process.version, pulumi: execFileSync("pulumi", ["version"], { encoding: "utf8" }).trim() },
    limits: { perMinute: PER_MINUTE, burst: BURST, floor: "max(0, R - 40) * 60/700 s, R = requests the emulator accepted (429s take no token)" },
    parallelism: "Pulumi default (4 x CPUs)",
    throughput: rows.map((r) => {
      const tl = r.timeline;
      const noopS = r.noop?.wallS ?? null;
      // Neither can go faster: the API from the engine's first create to its tail, or the engine
      // alone (whose per-step cost grows with the state it rewrites, and passes the floor near N = 600).
      const boundS = r.engine && noopS !== null ? Math.max(noopS, r.engine.firstCreateS + r.floorS + r.engine.tailS) : null;
      return {
        mode: r.mode,
        n: r.n,
        resources: r.resources,
        ok: r.up.ok,
        wallS: round(r.up.wallS),
        cpuS: r2(r.up.cpuS),
        requests: r.requests,
        accepted: r.accepted,
        status429: r.status429,
        floorS: round(r.floorS),
        ratio: r.floorS > 0 ? round(r.up.wallS / r.floorS, 3) : null,
        noopS: r2(noopS),
        noopCpuS: r2(r.noop?.cpuS),
        engineFirstCreateS: r2(r.engine?.firstCreateS),
        engineTailS: r2(r.engine?.tailS),
        boundS: r2(boundS),
        boundRatio: boundS !== null && r.floorS > 0 ? round(boundS / r.floorS, 3) : null,
        overBoundS: boundS !== null ? r2(r.up.wallS - boundS) : null,
        firstRequestS: r2(tl?.startS),
        apiSpanS: r2(tl?.spanS),
        tailS: r2(tl?.tailS),
        spanRatio: tl && r.floorS > 0 ? round(tl.spanS / r.floorS) : null,
        failedResources: r.up.failedResources,
        surfaced429: r.up.surfaced429,
        changes: r.up.changes,
        error: r.up.error,
        byRoute: r.byRoute,
        providerPeakMiB: r.up.memory?.peakMiB ?? null,
        noopProviderPeakMiB: r.noop?.memory?.peakMiB ?? null,
        destroy: {
          ok: r.destroy.ok,
          wallS: round(r.destroy.wallS),
          requests: r.destroy.requests,
          status429: r.destroy.status429,
          floorS: round(floorSeconds(r.destroy.requests - r.destroy.status429)),
          failedResources: r.destroy.failedResources,
          ...(r.destroy.error ? { error: r.destroy.error } : {}),
        },
      };
    }),
    noop: noops.map((x) => ({
      mode: x.mode,
      n: x.n,
      resources: x.n + OTHERS,
      upS: round(x.up.wallS),
      upCpuS: r2(x.up.cpuS),
      firstCreateS: r2(x.engine?.firstCreateS),
      tailS: r2(x.engine?.tailS),
      ok: x.up.ok,
      destroyS: round(x.destroy.wallS),
      providerPeakMiB: x.up.memory?.peakMiB ?? null,
    })),
    preview,
    refresh,
    state,
    memory: { providerPeakMiBAtLargestN: atLargest?.peakMiB ?? null, processes: atLargest?.processes ?? null },
    benchWallS: round((performance.now() - started) / 1000, 1),
  };
  fs.writeFileSync(path.join(outDir, "bench.json"), `${JSON.stringify(result, null, 2)}\n`);
  fs.writeFileSync(path.join(outDir, "throughput.svg"), chart(result.throughput));
  process.stdout.write(table(result));
  log(`wrote ${path.relative(repo, path.join(outDir, "bench.json"))} and ${path.relative(repo, path.join(outDir, "throughput.svg"))} (${result.benchWallS} s)`);
}

// ---- output -----------------------------------------------------------------------------------
type Row = {
  mode: string; n: number; resources: number; wallS: number; cpuS: number | null; requests: number; accepted: number; status429: number;
  floorS: number; ratio: number | null; noopS: number | null; noopCpuS: number | null; engineFirstCreateS: number | null;
  engineTailS: number | null; boundS: number | null; boundRatio: number | null; overBoundS: number | null;
  firstRequestS: number | null; apiSpanS: number | null; tailS: number | null; spanRatio: number | null; failedResources: number;
  surfaced429: number; providerPeakMiB: number | null; noopProviderPeakMiB: number | null;
  destroy: { wallS: number; requests: number; status429: number; ok: boolean; failedResources: number };
};
type NoopRow = { mode: string; n: number; resources: number; upS: number; upCpuS: number | null; destroyS: number };
type Result = {
  throughput: Row[];
  noop: NoopRow[];
  preview: any;
  refresh: any;
  state: StateFigures | null;
  memory: { providerPeakMiBAtLargestN: number | null };
};

function fmt(x: number | null | undefined, digits = 1): string {
  return x === null || x === undefined ? "—" : x.toFixed(digits);
}

function markdownTable(head: string[], body: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |\n`;
  return line(head) + line(widths.map((w) => "-".repeat(w))) + body.map(line).join("");
}

function table(r: Result): string {
  let out = "\nThroughput: pulumi up of N redirect domains + 7 other resources, default parallelism, emulator at 700/min, burst 40\n";
  out += markdownTable(
    ["mode", "N", "resources", "wall s", "requests", "429s", "floor s", "wall/floor", "engine bound s", "bound/floor", "failed", "429s surfaced", "provider peak MiB", "destroy s (requests)"],
    r.throughput.map((t) => [
      t.mode, String(t.n), String(t.resources), fmt(t.wallS), String(t.requests), String(t.status429), fmt(t.floorS), fmt(t.ratio, 3),
      fmt(t.boundS), fmt(t.boundRatio, 3),
      String(t.failedResources), String(t.surfaced429), fmt(t.providerPeakMiB),
      `${fmt(t.destroy.wallS)} (${t.destroy.requests}${t.destroy.status429 ? `, ${t.destroy.status429}×429` : ""}${t.destroy.ok ? "" : ", FAILED"})`,
    ]),
  );
  out += "\nWhere the time goes (engine vs API)\n";
  out += markdownTable(
    ["mode", "N", "wall s", "1st request s", "API span s", "tail s", "span/floor", "engine 1st create s", "engine tail s", "wall - bound s", "no-op up s", "CPU s", "no-op CPU s"],
    r.throughput.map((t) => [
      t.mode, String(t.n), fmt(t.wallS), fmt(t.firstRequestS, 2), fmt(t.apiSpanS, 2), fmt(t.tailS, 2), fmt(t.spanRatio, 3),
      fmt(t.engineFirstCreateS, 2), fmt(t.engineTailS, 2), fmt(t.overBoundS, 2), fmt(t.noopS), fmt(t.cpuS), fmt(t.noopCpuS),
    ]),
  );
  out +=
    "  floor = max(0, R-40)*60/700 s for the R requests the emulator accepted. 1st request = command start to the first API\n" +
    "  request; API span = first request to last answer; tail = last answer to command end. engine 1st create / engine tail =\n" +
    "  the same for an up of bench/noop-stack (as many dynamic resources, provider doing nothing); engine bound = the larger of\n" +
    "  engine 1st create + floor + engine tail and the no-op up itself: the best any provider could do. CPU s = user+system\n" +
    "  of the command's process tree.\n" +
    "  paced-nockpt = paced with PULUMI_SKIP_CHECKPOINTS=true (not a default).\n";
  if (r.preview) {
    const p = r.preview;
    out +=
      `\nPreview (${p.resources} resources, no changes, median of ${p.wallS.length}): ${fmt(p.medianS, 2)} s vs no-op stack ${fmt(p.noopMedianS, 2)} s → ` +
      `ratio ${fmt(p.ratio, 2)} (CPU: ${fmt(p.cpuRatio, 2)}); API requests per preview: ${p.apiRequests.join(", ")}\n`;
  }
  if (r.refresh) {
    const f = r.refresh;
    out += `Refresh (${f.resources} resources): ${f.requests} API requests = ${fmt(f.requestsPerResource, 3)} per resource, ${fmt(f.wallS, 1)} s, changes ${JSON.stringify(f.changes)}\n`;
    out += `  by route: ${Object.entries(f.byRoute as Record<string, number>).map(([k, v]) => `${k} ×${v}`).join(", ")}\n`;
  }
  if (r.state) {
    const s = r.state;
    out +=
      `State (pulumi stack export): ${s.exportBytes} bytes / ${s.dynamicResources} dynamic resources = ${s.bytesPerDynamicResource} B each ` +
      `(${s.bytesPerResource} B over all ${s.resources}); one RedirectDomain entry ${s.domainEntryBytes} B; __provider ` +
      `${Object.entries(s.providerBytes).map(([k, v]) => `${k} ${v} B`).join(", ")} (kept in inputs and outputs: ${s.providerBytesPerResource} B per resource)\n` +
      `  RedirectDomain entry: ${Object.entries(s.domainEntryParts ?? {}).map(([k, v]) => `${k} ${v}`).join(", ")}\n` +
      `  mean entry bytes by type: ${Object.entries(s.entryBytesByType ?? {}).map(([k, v]) => `${k} ${v}`).join(", ")}\n`;
  }
  out += `Peak memory (VmHWM) of the dynamic-provider process, paced up at the largest N: ${fmt(r.memory.providerPeakMiBAtLargestN)} MiB\n`;
  return out;
}

/** Hand-written SVG: wall time against accepted requests, paced and naive, with the floor line. */
function chart(rows: Row[]): string {
  const W = 940;
  const H = 500;
  const m = { l: 70, r: 300, t: 50, b: 60 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const maxX = Math.max(100, ...rows.map((r) => r.accepted)) * 1.15;
  const maxY = Math.max(10, ...rows.map((r) => r.wallS), 1.1 * floorSeconds(maxX)) * 1.05;
  const nice = (max: number) => {
    const raw = max / 6;
    const p = 10 ** Math.floor(Math.log10(raw));
    return [1, 2, 5, 10].map((k) => k * p).find((s) => s >= raw)!;
  };
  const x = (v: number) => m.l + (v / maxX) * pw;
  const y = (v: number) => m.t + ph - (v / maxY) * ph;
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="DejaVu Sans, Arial, sans-serif" font-size="13">`);
  parts.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  parts.push(`<text x="${m.l}" y="28" font-size="16" font-weight="bold">pulumi up: wall time against API requests (700/min, burst 40)</text>`);
  // Grid and axes.
  const sx = nice(maxX);
  const sy = nice(maxY);
  for (let v = 0; v <= maxX; v += sx) {
    parts.push(`<line x1="${x(v)}" y1="${m.t}" x2="${x(v)}" y2="${m.t + ph}" stroke="#eee"/>`);
    parts.push(`<text x="${x(v)}" y="${m.t + ph + 18}" text-anchor="middle" fill="#333">${v}</text>`);
  }
  for (let v = 0; v <= maxY; v += sy) {
    parts.push(`<line x1="${m.l}" y1="${y(v)}" x2="${m.l + pw}" y2="${y(v)}" stroke="#eee"/>`);
    parts.push(`<text x="${m.l - 8}" y="${y(v) + 4}" text-anchor="end" fill="#333">${v}</text>`);
  }
  parts.push(`<line x1="${m.l}" y1="${m.t + ph}" x2="${m.l + pw}" y2="${m.t + ph}" stroke="#333"/>`);
  parts.push(`<line x1="${m.l}" y1="${m.t}" x2="${m.l}" y2="${m.t + ph}" stroke="#333"/>`);
  parts.push(`<text x="${m.l + pw / 2}" y="${H - 18}" text-anchor="middle">API requests accepted by the emulator (R)</text>`);
  parts.push(`<text transform="translate(20 ${m.t + ph / 2}) rotate(-90)" text-anchor="middle">wall time of pulumi up (s)</text>`);
  // Floor: max(0, R - 40) * 60/700.
  parts.push(`<polyline fill="none" stroke="#555" stroke-width="2" stroke-dasharray="6 4" points="${x(0)},${y(0)} ${x(BURST)},${y(0)} ${x(maxX)},${y(floorSeconds(maxX))}"/>`);
  // The goal: 1.1 × the floor.
  parts.push(`<polyline fill="none" stroke="#bbb" stroke-width="1.5" stroke-dasharray="2 4" points="${x(BURST)},${y(0)} ${x(maxX)},${y(1.1 * floorSeconds(maxX))}"/>`);
  // Series.
  const series = [
    // Label placement (dx, dy, anchor) differs per series so that points at the same R stay readable.
    { key: "paced", color: "#1f77b4", label: "paced (client limiter on)", value: (r: Row) => r.wallS, hollow: false, note: [10, -8, "start"] },
    { key: "naive", color: "#d62728", label: "naive (client pacing off)", value: (r: Row) => r.wallS, hollow: false, note: [-10, -8, "end"] },
    { key: "paced-nockpt", color: "#2ca02c", label: "paced, PULUMI_SKIP_CHECKPOINTS", value: (r: Row) => r.wallS, hollow: false, note: [-10, 16, "end"] },
    { key: "paced", color: "#1f77b4", label: "paced: first→last request", value: (r: Row) => r.apiSpanS, hollow: true, note: null },
    { key: "paced", color: "#777", label: "engine bound (do-nothing provider)", value: (r: Row) => r.boundS, hollow: true, note: null },
  ];
  for (const s of series) {
    const pts = rows
      .filter((r) => r.mode === s.key)
      .map((r) => ({ r, v: s.value(r) }))
      .filter((p): p is { r: Row; v: number } => typeof p.v === "number")
      .sort((a, b) => a.r.accepted - b.r.accepted);
    if (pts.length === 0) continue;
    parts.push(
      `<polyline fill="none" stroke="${s.color}" stroke-width="2"${s.hollow ? ' stroke-dasharray="2 3"' : ""} points="${pts.map((p) => `${x(p.r.accepted)},${y(p.v)}`).join(" ")}"/>`,
    );
    for (const p of pts) {
      parts.push(`<circle cx="${x(p.r.accepted)}" cy="${y(p.v)}" r="5" fill="${s.hollow ? "white" : s.color}" stroke="${s.color}" stroke-width="2"/>`);
      if (s.note) {
        const note = `N=${p.r.n}${p.r.failedResources > 0 ? `, ${p.r.failedResources} failed` : ""}${p.r.status429 > 0 ? `, ${p.r.status429}×429` : ""}`;
        const [dx, dy, anchor] = s.note as [number, number, string];
        parts.push(`<text x="${x(p.r.accepted) + dx}" y="${y(p.v) + dy}" text-anchor="${anchor}" font-size="11" fill="${s.color}">${esc(note)}</text>`);
      }
    }
  }
  // Legend.
  const lx = m.l + pw + 16;
  let ly = m.t + 10;
  const legend = (draw: string, text: string) => {
    parts.push(draw);
    parts.push(`<text x="${lx + 30}" y="${ly + 4}" font-size="12">${esc(text)}</text>`);
    ly += 24;
  };
  for (const s of series) {
    legend(
      `<line x1="${lx}" y1="${ly}" x2="${lx + 24}" y2="${ly}" stroke="${s.color}" stroke-width="2"${s.hollow ? ' stroke-dasharray="2 3"' : ""}/><circle cx="${lx + 12}" cy="${ly}" r="4" fill="${s.hollow ? "white" : s.color}" stroke="${s.color}" stroke-width="2"/>`,
      s.label,
    );
  }
  legend(`<line x1="${lx}" y1="${ly}" x2="${lx + 24}" y2="${ly}" stroke="#555" stroke-width="2" stroke-dasharray="6 4"/>`, "floor max(0, R−40)×60/700");
  legend(`<line x1="${lx}" y1="${ly}" x2="${lx + 24}" y2="${ly}" stroke="#bbb" stroke-width="1.5" stroke-dasharray="2 4"/>`, "goal: 1.1 × floor");
  parts.push("</svg>\n");
  return parts.join("\n");
}

/** `node scripts/bench.mts --report`: the table and chart again from bench/out/bench.json. */
function report(): void {
  const result = JSON.parse(fs.readFileSync(path.join(outDir, "bench.json"), "utf8"));
  fs.writeFileSync(path.join(outDir, "throughput.svg"), chart(result.throughput));
  process.stdout.write(table(result));
}

(process.argv[2] === "--report" ? Promise.resolve().then(report) : main()).catch((err) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
