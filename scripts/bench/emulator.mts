/** The bench's view of the in-process emulator: its control routes, counters and request times. */
import type { EmulatorHandle } from "../../src/emulator/index.ts";

export interface Stats {
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

export const stats = async (em: EmulatorHandle): Promise<Stats> => control(em, "GET", "/stats");
/** Empties the emulator's state, counters and rate-limit buckets (full bursts again), re-seeds. */
export const resetEmulator = async (em: EmulatorHandle) => void (await control(em, "POST", "/reset"));
/** Zeroes the request counters only (state and buckets stay). */
export const clearCounters = async (em: EmulatorHandle) => void (await control(em, "DELETE", "/requests"));

/** Requests of a route given as `METHOD template`, from the counters. */
export const routeCount = (s: Stats, route: string) => s.byRoute[route] ?? 0;

export interface Timeline {
  /** Command start to the first API request: engine and program start-up, plus any step before the first request. */
  startS: number;
  /** First request sent to last answer: the part the rate limit governs. */
  spanS: number;
  /** Last answer to the end of the command: the engine finishing up (state write, exit). */
  tailS: number;
}

/** Where the API requests of one command fell within it (the emulator logs each with its time). */
export async function timeline(em: EmulatorHandle, op: { startedAt: number; endedAt: number }): Promise<Timeline | null> {
  const { requests } = (await control(em, "GET", "/requests")) as { requests: Array<{ time: string; duration_ms: number }> };
  if (requests.length === 0) return null;
  const first = Math.min(...requests.map((r) => Date.parse(r.time)));
  const last = Math.max(...requests.map((r) => Date.parse(r.time) + r.duration_ms));
  return { startS: (first - op.startedAt) / 1000, spanS: (last - first) / 1000, tailS: (op.endedAt - last) / 1000 };
}
