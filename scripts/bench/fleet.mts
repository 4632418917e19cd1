/**
 * The fleet table of `npm run bench` (issue 27): K stacks of N domains (a branch's NeonAuth and N
 * redirect domains each, on branches of their own) on one API key, started together, as a
 * pipeline updates its environments and preview branches at once. For each K, `up` then `destroy`
 * of all K at once: the wall time from the first start to the last end, against the shared floor
 * (the rate limit's time for all their requests together: max(0, R − burst) × 60/perMinute s,
 * R = the requests the service accepted), the 429s among all answers, and the stacks that failed.
 */
import * as os from "node:os";
import { performance } from "node:perf_hooks";
import type { EmulatorHandle } from "../../src/emulator/index.ts";
import { apiConfig } from "../workspace.mts";
import { clearCounters, resetEmulator, stats, timeline } from "./emulator.mts";
import { fmt, markdownTable } from "./report.mts";
import { log, newStack, removeStack, round, timedOp, type BenchStack, type OpResult } from "./stacks.mts";

export interface FleetRow {
  k: number;
  n: number;
  op: "up" | "destroy";
  wallS: number;
  /** Requests the service accepted (not 429). */
  accepted: number;
  floorS: number;
  /** First request to last answer, over all K: the part the rate limit governs. */
  apiSpanS: number | null;
  requests: number;
  status429: number;
  failedStacks: number;
  /** 1-minute load average when the row was measured (the machine is shared). */
  load1: number;
}

export const fleetProject = (i: number) => `p-fleet-${i}`;
export const fleetBranch = (i: number) => `br-main-p-fleet-${i}`;

export interface FleetSetup {
  em: EmulatorHandle;
  backendDir: string;
  passphrase: string;
  /** The copied bench/domains-stack program. */
  dir: string;
  key: string;
  perMinute: number;
  burst: number;
}

/** Runs `op` on every stack at once; the wall time spans the first start to the last end. */
async function together(stacks: BenchStack[], op: "up" | "destroy"): Promise<{ wallS: number; results: OpResult[] }> {
  const t0 = performance.now();
  const results = await Promise.all(stacks.map((s) => timedOp(s, op)));
  return { wallS: (performance.now() - t0) / 1000, results };
}

export async function fleetRows(setup: FleetSetup, ks: number[], n: number): Promise<FleetRow[]> {
  const rows: FleetRow[] = [];
  const floor = (accepted: number) => (Math.max(0, accepted - setup.burst) * 60) / setup.perMinute;
  for (const k of ks) {
    await resetEmulator(setup.em);
    const stacks: BenchStack[] = [];
    try {
      for (let i = 0; i < k; i++) {
        stacks.push(
          await newStack(setup.backendDir, setup.passphrase, setup.dir, `fleet-${k}-${i}`, {
            ...apiConfig(setup.em.url, setup.key),
            generation: { value: "branch" },
            count: { value: String(n) },
            projectId: { value: fleetProject(i) },
            branchId: { value: fleetBranch(i) },
          }),
        );
      }
      for (const op of ["up", "destroy"] as const) {
        // Full buckets for each command, as after a quiet spell.
        if (op === "destroy") await new Promise((r) => setTimeout(r, (setup.burst * 60_000) / setup.perMinute));
        await clearCounters(setup.em);
        const { wallS, results } = await together(stacks, op);
        const after = await stats(setup.em);
        const span = await timeline(setup.em, { startedAt: Math.min(...results.map((r) => r.startedAt)), endedAt: Math.max(...results.map((r) => r.endedAt)) });
        const requests = after.total;
        const status429 = after.byStatus["429"] ?? 0;
        const row: FleetRow = {
          k,
          n,
          op,
          wallS: round(wallS),
          accepted: requests - status429,
          floorS: round(floor(requests - status429)),
          apiSpanS: span ? round(span.spanS) : null,
          requests,
          status429,
          failedStacks: results.filter((r) => !r.ok).length,
          load1: round(os.loadavg()[0]!),
        };
        rows.push(row);
        const errors = results.filter((r) => !r.ok).map((r) => r.error);
        log(
          `fleet K=${k} N=${n} ${op}: ${row.wallS} s (shared floor ${row.floorS} s${row.floorS > 0 ? `, ${fmt(row.wallS / row.floorS, 2)}x` : ""}; API span ${row.apiSpanS} s), ` +
            `${requests} requests, ${status429}x429 (${fmt((100 * status429) / Math.max(1, requests))} %), failed ${row.failedStacks}, load ${row.load1}` +
            `${errors.length ? ` ERRORS ${errors.join(" || ")}` : ""}`,
        );
      }
    } finally {
      for (const s of stacks) await removeStack(s);
    }
  }
  return rows;
}

export function fleetReport(rows: FleetRow[]): string {
  return (
    markdownTable(
      ["K", "N", "op", "wall s", "shared floor s", "wall/floor", "API span s", "span/floor", "requests", "429s", "429 %", "failed stacks", "load (1 min)"],
      rows.map((r) => [
        String(r.k),
        String(r.n),
        r.op,
        fmt(r.wallS, 2),
        fmt(r.floorS, 2),
        r.floorS > 0 ? fmt(r.wallS / r.floorS, 2) : "— (within the burst)",
        fmt(r.apiSpanS, 2),
        r.floorS > 0 && r.apiSpanS !== null ? fmt(r.apiSpanS / r.floorS, 2) : "—",
        String(r.requests),
        String(r.status429),
        fmt((100 * r.status429) / Math.max(1, r.requests)),
        String(r.failedStacks),
        fmt(r.load1, 2),
      ]),
    ) +
    "\nK stacks of N domains on one key, each command run on all K at once. shared floor = max(0, R − burst) × 60/perMinute s,\n" +
    "R = the requests the service accepted from all K (the rate limit's time for all of them together). wall = first start to\n" +
    "last end of the K commands, engine start-up included. API span = first request to last answer over all K: the part\n" +
    "the rate limit governs (wall − span is the engines' start and finish, CPU-bound on a shared machine).\n"
  );
}
