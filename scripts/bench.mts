/**
 * `npm run bench`: both API generations against what Neon's rate limit allows and what the engine
 * costs, for `up`, `preview`, `refresh` and `destroy`. One run, against the local emulator at its
 * spec limits, with the real Pulumi CLI (file:// backend in a temp folder, passphrase secrets,
 * loopback only).
 *
 * For each N (BENCH_SIZES, default 100,300,600) and generation (BENCH_GENERATIONS, default
 * project,branch), bench/domains-stack with one integration (AuthIntegration, or a branch's
 * NeonAuth) and N redirect domains:
 * - up at Pulumi's default parallelism, with the peak memory of the dynamic-provider process;
 * - preview (median of 5, interleaved with the do-nothing stack's) and refresh, with their requests;
 * - state bytes per resource (`pulumi stack export`);
 * - destroy at the default parallelism, and for BENCH_PARALLEL_SIZES (default 300) an up and a
 *   destroy at `--parallel` BENCH_PARALLEL (default 64), the do-nothing stack likewise.
 * bench/noop-stack (as many dynamic resources, same shape, a provider doing nothing) gives the
 * engine's own time for each command. Each of those rows is measured on both faces of the package
 * (BENCH_FACES, default classes,plugin): the TypeScript classes, and the provider plugin through a
 * YAML program of the same resources (scripts/bench/plugin.mts), against the same bound; memory is
 * the peak of the dynamic-provider process, or of the plugin's. Helpers: scripts/bench/*.mts.
 *
 * Then the fleet table (scripts/bench/fleet.mts): K stacks of N domains on one key at once, for K in
 * BENCH_FLEET (default 1,4,8,16) and N = BENCH_FLEET_N (default 60); `--fleet-only` runs that table
 * alone.
 *
 * Writes bench/out/bench.json and bench/out/bench.md (and bench/out/fleet.json, fleet.md) and
 * prints the tables. `eval "$(scripts/env)"` first. `node scripts/bench.mts --report` prints the
 * tables again from bench.json. No timing thresholds: this prints figures, it never fails on them.
 * It exits non-zero only when it could not measure, and then says why: the error, or the step it
 * was in when the process ended (`step`), and which commands failed.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { clearCounters, resetEmulator, routeCount, stats, timeline, type Stats } from "./bench/emulator.mts";
import { fleetBranch, fleetProject, fleetReport, fleetRows } from "./bench/fleet.mts";
import { report, type OpRow, type Result } from "./bench/report.mts";
import { stateFigures } from "./bench/state.mts";
import { pluginPath, writePluginProgram } from "./bench/plugin.mts";
import { profiledPreview, profileReport } from "./bench/profile.mts";
import { engineTimes, log, median, MemorySampler, newStack, PROVIDER_PROCESS, removeStack, round, timedOp, type BenchStack, type OpResult } from "./bench/stacks.mts";
import { apiConfig, copyProgram, prepareWorkspace, repo } from "./workspace.mts";

const require = createRequire(import.meta.url);
const { SERVICE_RATE_LIMIT } = require("../dist/schemas/limits.js") as typeof import("../src/schemas/limits.ts");

const KEY = "bench-key-5d0c8e27a1";
const PROJECT = "p-bench";
const BRANCH = "br-main-p-bench";
const PASSPHRASE = "bench-passphrase-not-a-secret";
const { perMinute: PER_MINUTE, burst: BURST } = SERVICE_RATE_LIMIT;
const PREVIEW_RUNS = 5;
const DELETE_ROUTES = ["DELETE /projects/{project_id}/auth/domains", "DELETE /projects/{project_id}/branches/{branch_id}/auth/domains"];

const sizes = listEnv("BENCH_SIZES", [100, 300, 600]);
const parallelSizes = listEnv("BENCH_PARALLEL_SIZES", [300]);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 64);
const generations = (process.env.BENCH_GENERATIONS ?? "project,branch").split(",").map((g) => g.trim());
type Face = keyof typeof PROVIDER_PROCESS;
const faces = (process.env.BENCH_FACES ?? "classes,plugin").split(",").map((f) => f.trim()).filter(Boolean) as Face[];
const outDir = path.join(repo, "bench", "out");
const fleetSizes = listEnv("BENCH_FLEET", [1, 4, 8, 16]);
const FLEET_N = Number(process.env.BENCH_FLEET_N ?? 60);
const fleetOnly = process.argv.includes("--fleet-only");
/** With BENCH_PROFILE set, one more preview of each stack under `--cpu-prof`, summarized in bench/out/profile.md. */
const profiling = (process.env.BENCH_PROFILE ?? "") !== "";
const profiles: string[] = [];

/** Gives the do-nothing stack the shape of a generation's children: the branch's register `branchId` too. */
async function noopShape(noop: BenchStack, generation: string): Promise<void> {
  const config = await noop.stack.getAllConfig();
  const key = Object.keys(config).find((k) => k.endsWith(":branchId"));
  if (generation === "branch") await noop.stack.setConfig("branchId", { value: BRANCH });
  else if (key !== undefined) await noop.stack.removeConfig("branchId");
}

function listEnv(name: string, dflt: number[]): number[] {
  const v = process.env[name];
  if (v === undefined) return dflt;
  if (v.trim() === "") return [];
  const list = v.split(",").map((s) => Number(s.trim()));
  for (const n of list) if (!Number.isInteger(n) || n < 1) throw new Error(`${name}: sizes are positive integers, got "${v}"`);
  return list;
}

const floorSeconds = (requests: number) => (Math.max(0, requests - BURST) * 60) / PER_MINUTE;

/** What the bench is doing, for the message when the process ends without finishing (`reportExit`). */
let step = "starting";
const failedCommands: string[] = [];
let finished = false;

async function main(): Promise<void> {
  try {
    execFileSync("pulumi", ["version"], { stdio: "ignore" });
  } catch {
    throw new Error('the Pulumi CLI is not on PATH: run `eval "$(scripts/env)"` first');
  }
  for (const g of generations) if (g !== "project" && g !== "branch") throw new Error(`BENCH_GENERATIONS: "${g}" is neither project nor branch`);
  for (const f of faces) if (!(f in PROVIDER_PROCESS)) throw new Error(`BENCH_FACES: "${f}" is neither classes nor plugin`);
  const started = performance.now();
  fs.mkdirSync(outDir, { recursive: true });
  log("preparing the program workspace (npm pack + install)");
  const workspace = prepareWorkspace(log);
  const realDir = copyProgram(workspace, path.join(repo, "bench", "domains-stack"));
  const noopDir = copyProgram(workspace, path.join(repo, "bench", "noop-stack"));
  const backendDir = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-bench-state-"));
  const { startEmulator } = require("../dist/emulator/index.js") as typeof import("../src/emulator/index.ts");
  const fleetSeeds = Array.from({ length: Math.max(0, ...fleetSizes) }, (_, i) => `${fleetProject(i)}:${fleetBranch(i)}`);
  const em = await startEmulator({ apiKeys: [KEY], seedProjects: [`${PROJECT}:${BRANCH}`, ...fleetSeeds], rateLimit: "spec", strict: true });
  log(`emulator at ${em.url} (rate limit: spec)`);
  const stackOf = (dir: string, name: string, config: Record<string, { value: string; secret?: boolean }>, env: Record<string, string> = {}) =>
    newStack(backendDir, PASSPHRASE, dir, name, config, env);

  const noopSampler = new MemorySampler(noopDir);
  const pluginDirs: string[] = [];
  const pluginEnv: Record<string, string> = faces.includes("plugin") ? { PATH: pluginPath(workspace) } : {};
  const rows: OpRow[] = [];
  const memory: Result["memory"] = [];
  const state: Result["state"] = [];

  const row = (face: Face, generation: string, n: number, op: string, r: OpResult, st: Stats | null, noopS: number | null, boundS: number | null, parallel = "default"): OpRow => {
    const out: OpRow = {
      face,
      generation,
      n,
      resources: n + 1,
      op,
      parallel,
      ok: r.ok,
      wallS: round(r.wallS),
      cpuS: r.cpuS === null ? null : round(r.cpuS),
      floorS: round(floorSeconds(n + 1)),
      noopS: noopS === null ? null : round(noopS),
      boundS: boundS === null ? null : round(boundS),
      requests: st?.total ?? 0,
      deleteDomainRequests: st ? DELETE_ROUTES.reduce((a, k) => a + routeCount(st, k), 0) : 0,
      status429: st?.byStatus["429"] ?? 0,
      failedResources: r.failedResources,
      surfaced429: r.surfaced429,
    };
    rows.push(out);
    if (!r.ok) failedCommands.push(`${face} ${generation} N=${n} ${op}${parallel === "default" ? "" : ` --parallel ${parallel}`}: ${r.error}`);
    log(
      `${face} ${generation} N=${n} ${op}${parallel === "default" ? "" : ` --parallel ${parallel}`}: ${out.wallS} s (floor ${out.floorS}, do-nothing ${out.noopS}, ` +
        `bound ${out.boundS}), ${out.requests} requests, ${out.deleteDomainRequests} DELETE domains, ${out.status429}×429, failed ${out.failedResources}` +
        `${r.ok ? "" : ` ERROR ${r.error}`}`,
    );
    return out;
  };

  try {
    for (const n of fleetOnly ? [] : sizes) {
      step = `do-nothing N=${n} up`;
      const createLog = path.join(backendDir, `creates-noop-${n}.txt`);
      const noop = await stackOf(noopDir, `noop-${n}`, { count: { value: String(n + 1) } }, { BENCH_NOOP_LOG: createLog });
      const noopUp = await timedOp(noop, "up", { sampler: noopSampler });
      const engine = noopUp.ok ? engineTimes(createLog, noopUp) : null;
      const upBound = engine ? Math.max(noopUp.wallS, engine.firstCreateS + floorSeconds(n + 1) + engine.tailS) : null;
      log(`N=${n} do-nothing up ${noopUp.wallS.toFixed(2)} s, first create ${engine?.firstCreateS.toFixed(2)} s, tail ${engine?.tailS.toFixed(2)} s`);
      const noopRefresh = await timedOp(noop, "refresh");
      const noopState = stateFigures(noop);

      for (const generation of generations) {
        // The do-nothing stack takes this generation's shape for the previews it is held to: a
        // branch's children register their branch too. (Its up, refresh and destroy, run once,
        // keep the project's shape: a refresh runs no program, and up and destroy are rate-bound.)
        await noopShape(noop, generation);
        for (const face of faces) {
          step = `${face} ${generation} N=${n}`;
          await resetEmulator(em);
          const place = { projectId: { value: PROJECT }, branchId: { value: BRANCH } };
          let s: BenchStack;
          let sampler: MemorySampler;
          if (face === "classes") {
            s = await stackOf(realDir, `${generation}-${n}`, { ...apiConfig(em.url, KEY), generation: { value: generation }, count: { value: String(n) }, ...place });
            sampler = new MemorySampler(realDir, PROVIDER_PROCESS.classes);
          } else {
            const dir = writePluginProgram(path.join(workspace, "programs"), generation, n);
            pluginDirs.push(dir);
            s = await stackOf(dir, `plugin-${generation}-${n}`, { ...apiConfig(em.url, KEY), ...place }, pluginEnv);
            sampler = new MemorySampler(dir, PROVIDER_PROCESS.plugin);
          }
          step = `${face} ${generation} N=${n} up`;
          const up = await timedOp(s, "up", { sampler });
          const upStats = await stats(em);
          const tl = await timeline(em, up);
          row(face, generation, n, "up", up, upStats, noopUp.wallS, upBound);
          if (tl) log(`  first request at ${tl.startS.toFixed(2)} s, API span ${tl.spanS.toFixed(2)} s, tail ${tl.tailS.toFixed(2)} s; ${JSON.stringify(upStats.byRoute)}`);
          memory.push({ face, generation, n, providerPeakMiB: up.memory?.peakMiB ?? null, noopPeakMiB: noopUp.memory?.peakMiB ?? null });

          // Previews interleaved with the do-nothing stack's, so background load hits both alike.
          step = `${face} ${generation} N=${n} preview`;
          const real: number[] = [];
          const base: number[] = [];
          let previewRequests = 0;
          let last: OpResult | undefined;
          for (let i = 0; i < PREVIEW_RUNS; i++) {
            base.push((await timedOp(noop, "preview")).wallS);
            await clearCounters(em);
            last = await timedOp(s, "preview");
            previewRequests += (await stats(em)).total;
            real.push(last.wallS);
          }
          const noopPreview = median(base);
          row(face, generation, n, "preview", { ...last!, wallS: median(real) }, { total: previewRequests, byStatus: {}, byRoute: {} }, noopPreview, noopPreview);
          if (profiling) {
            profiles.push(profileReport(`${face} ${generation} N=${n} preview`, await profiledPreview(s, path.join(backendDir, `profile-${face}-${generation}-${n}`))));
            if (face === faces[0] && generation === generations[0]) profiles.push(profileReport(`do-nothing N=${n} preview`, await profiledPreview(noop, path.join(backendDir, `profile-noop-${n}`))));
          }

          step = `${face} ${generation} N=${n} refresh`;
          await clearCounters(em);
          const refresh = await timedOp(s, "refresh");
          row(face, generation, n, "refresh", refresh, await stats(em), noopRefresh.wallS, noopRefresh.wallS);

          step = `${face} ${generation} N=${n} state`;
          const sf = stateFigures(s);
          state.push({
            face,
            generation,
            n,
            bytesPerResource: sf.bytesPerDynamicResource,
            domainEntryBytes: sf.domainEntryBytes,
            noopBytesPerResource: noopState.bytesPerDynamicResource,
            noopEntryBytes: noopState.domainEntryBytes,
            providerBytesPerResource: sf.providerBytesPerResource,
          });

          step = `${face} ${generation} N=${n} destroy`;
          await clearCounters(em);
          const destroy = await timedOp(s, "destroy");
          const destroyStats = await stats(em);
          // The do-nothing destroy is measured after both generations; the row gets it then.
          row(face, generation, n, "destroy", destroy, destroyStats, null, null);

          if (parallelSizes.includes(n)) {
            step = `${face} ${generation} N=${n} --parallel ${PARALLEL}`;
            await resetEmulator(em);
            const up2 = await timedOp(s, "up", { parallel: PARALLEL });
            row(face, generation, n, "up", up2, await stats(em), null, null, String(PARALLEL));
            await clearCounters(em);
            const d2 = await timedOp(s, "destroy", { parallel: PARALLEL });
            row(face, generation, n, "destroy", d2, await stats(em), null, null, String(PARALLEL));
          }
          await removeStack(s);
        }
      }

      step = `do-nothing N=${n} destroy`;
      const noopDestroy = await timedOp(noop, "destroy");
      log(`N=${n} do-nothing destroy ${noopDestroy.wallS.toFixed(2)} s`);
      let noopUpHigh: OpResult | undefined;
      let noopDestroyHigh: OpResult | undefined;
      if (parallelSizes.includes(n)) {
        noopUpHigh = await timedOp(noop, "up", { parallel: PARALLEL });
        noopDestroyHigh = await timedOp(noop, "destroy", { parallel: PARALLEL });
        log(`N=${n} do-nothing --parallel ${PARALLEL}: up ${noopUpHigh.wallS.toFixed(2)} s, destroy ${noopDestroyHigh.wallS.toFixed(2)} s`);
      }
      for (const r of rows.filter((x) => x.n === n && x.noopS === null)) {
        const high = r.parallel !== "default";
        const noopS = r.op === "destroy" ? (high ? noopDestroyHigh : noopDestroy)?.wallS : high ? noopUpHigh?.wallS : undefined;
        if (noopS === undefined) continue;
        r.noopS = round(noopS);
        // At a higher parallelism the engine's start and tail are not re-measured: the no-op command is the bound.
        r.boundS = r.op === "up" ? round(Math.max(noopS, (engine?.firstCreateS ?? 0) + floorSeconds(n + 1) + (engine?.tailS ?? 0))) : round(noopS);
      }
      await removeStack(noop);
    }
    if (fleetSizes.length > 0) {
      step = `fleet ${fleetSizes.join(",")}`;
      const fleet = await fleetRows({ em, backendDir, passphrase: PASSPHRASE, dir: realDir, key: KEY, perMinute: PER_MINUTE, burst: BURST }, fleetSizes, FLEET_N);
      const machine = { cpus: os.cpus().length, loadavg: os.loadavg().map((x) => round(x)), node: process.version };
      fs.writeFileSync(path.join(outDir, "fleet.json"), `${JSON.stringify({ date: new Date().toISOString(), machine, limits: { perMinute: PER_MINUTE, burst: BURST }, rows: fleet }, null, 2)}\n`);
      const md = `Fleet bench of ${new Date().toISOString()} (${JSON.stringify(machine)}); emulator at ${PER_MINUTE}/min, burst ${BURST}.\n\n${fleetReport(fleet)}`;
      fs.writeFileSync(path.join(outDir, "fleet.md"), md);
      process.stdout.write(md);
      log("wrote bench/out/fleet.json and bench/out/fleet.md");
    }
  } finally {
    // A failure here is said, never allowed to replace the error that brought us here.
    step = "cleaning up";
    await em.close().catch((err: unknown) => log(`could not close the emulator: ${describe(err)}`));
    for (const dir of [realDir, noopDir, backendDir, ...pluginDirs]) fs.rmSync(dir, { recursive: true, force: true });
  }

  if (profiles.length > 0) {
    fs.writeFileSync(path.join(outDir, "profile.md"), `CPU profiles of one preview each (${new Date().toISOString()}, load ${os.loadavg()[0]!.toFixed(2)}).\n\n${profiles.join("")}`);
    log("wrote bench/out/profile.md");
  }
  if (fleetOnly) return finish();
  const result: Result = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, loadavg: os.loadavg().map((x) => round(x)), node: process.version, pulumi: execFileSync("pulumi", ["version"], { encoding: "utf8" }).trim() },
    limits: { perMinute: PER_MINUTE, burst: BURST },
    rows,
    memory,
    state,
    benchWallS: round((performance.now() - started) / 1000, 1),
  };
  fs.writeFileSync(path.join(outDir, "bench.json"), `${JSON.stringify(result, null, 2)}\n`);
  fs.writeFileSync(path.join(outDir, "bench.md"), report(result));
  process.stdout.write(report(result));
  log(`wrote bench/out/bench.json and bench/out/bench.md (${result.benchWallS} s)`);
  finish();
}

/** The end of a run that measured: done, with the commands that failed named once more (the tables hold their rows). */
function finish(): void {
  finished = true;
  if (failedCommands.length > 0) log(`${failedCommands.length} command(s) failed; the tables show them as FAILED:\n  ${failedCommands.join("\n  ")}`);
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  return `a non-Error was thrown: ${JSON.stringify(err) ?? String(err)}`;
}

/**
 * Whatever ends the process (an error thrown, a rejection nobody awaited, a stray process.exit),
 * a run that did not finish says why and where. A run once exited 1 after the N = 300 rows and
 * printed nothing.
 */
function reportExit(): void {
  const fail = (what: string) => (err: unknown) => {
    log(`${what} during "${step}": ${describe(err)}`);
    process.exitCode = 1;
  };
  process.on("uncaughtException", fail("uncaught exception"));
  process.on("unhandledRejection", fail("unhandled rejection"));
  process.on("exit", (code) => {
    if (finished && code === 0) return;
    // A run that ended early did not measure what it was asked to, even when nothing set a code.
    if (!finished) process.exitCode = code === 0 ? 1 : code;
    const failed = failedCommands.length > 0 ? `; failed commands:\n  ${failedCommands.join("\n  ")}` : "";
    log(`exit ${code} ${finished ? "after the tables" : `before finishing, during "${step}"`}${failed}`);
  });
}

function reprint(): void {
  const result = JSON.parse(fs.readFileSync(path.join(outDir, "bench.json"), "utf8")) as Result;
  fs.writeFileSync(path.join(outDir, "bench.md"), report(result));
  process.stdout.write(report(result));
}

reportExit();
(process.argv[2] === "--report" ? Promise.resolve().then(reprint).then(() => void (finished = true)) : main()).catch((err: unknown) => {
  log(`failed during "${step}": ${describe(err)}`);
  process.exitCode = 1;
});
