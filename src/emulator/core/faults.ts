/**
 * Fault injection for /api/v2 routes (off by default).
 *  - error: answer 503 with the error body, without acting;
 *  - reset: destroy the socket before acting;
 *  - lost: act, then destroy the socket instead of sending the response;
 *  - lock: answer 423 (the project-lock message), without acting;
 *  - latency: add a uniformly random delay of min..max milliseconds before acting.
 * Random faults draw from an injectable `random()`; one-shot faults queued with `next` come first
 * and are matched by method and path (template or exact path, relative to /api/v2).
 */

export const FAULT_KINDS = ["error", "reset", "lost", "lock"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface OneShotFault {
  kind: FaultKind | "latency";
  /** HTTP method to match (any when absent). */
  method?: string;
  /** Path template (`/projects/{project_id}/auth/domains`) or exact path; `/api/v2` prefix optional; any when absent. */
  path?: string;
  /** For `error`: the status to answer (default 503). */
  status?: number;
  /** For `latency`: the delay in milliseconds (default 1000). */
  ms?: number;
}

export interface FaultSettings {
  error: number;
  reset: number;
  lost: number;
  lock: number;
  /** Inclusive range in milliseconds, or null for none. */
  latency: { min: number; max: number } | null;
}

export interface FaultDecision {
  kind: FaultKind | null;
  status?: number;
  latencyMs: number;
  oneShot: boolean;
}

export function noFaults(): FaultSettings {
  return { error: 0, reset: 0, lost: 0, lock: 0, latency: null };
}

/** Parses `error=0.1,reset=0.05,lost=0.05,lock=0.05,latency=0-300`. */
export function parseFaultSpec(spec: string): FaultSettings {
  const out = noFaults();
  for (const part of spec.split(",").map((s) => s.trim()).filter((s) => s !== "")) {
    const eq = part.indexOf("=");
    if (eq < 0) throw new Error(`faults: "${part}" is not name=value`);
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === "latency") {
      const m = /^(\d+)(?:-(\d+))?$/.exec(value);
      if (!m) throw new Error(`faults: latency must be MIN-MAX milliseconds, got "${value}"`);
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : Number(m[2]);
      if (max < min) throw new Error("faults: latency MAX must be >= MIN");
      out.latency = { min, max };
    } else if ((FAULT_KINDS as readonly string[]).includes(name)) {
      const p = Number(value);
      if (!(value !== "" && p >= 0 && p <= 1)) throw new Error(`faults: ${name} must be a probability between 0 and 1, got "${value}"`);
      out[name as FaultKind] = p;
    } else {
      throw new Error(`faults: unknown fault "${name}" (known: ${FAULT_KINDS.join(", ")}, latency)`);
    }
  }
  const sum = out.error + out.reset + out.lost + out.lock;
  if (sum > 1) throw new Error("faults: the probabilities add up to more than 1");
  return out;
}

/** Validates a settings object given over the control route or programmatically. */
export function checkFaultSettings(v: unknown): FaultSettings {
  if (typeof v !== "object" || v === null) throw new Error("faults: must be an object");
  const o = v as Record<string, unknown>;
  const out = noFaults();
  for (const k of FAULT_KINDS) {
    const p = o[k];
    if (p === undefined || p === null) continue;
    if (typeof p !== "number" || !(p >= 0 && p <= 1)) throw new Error(`${k}: must be a probability between 0 and 1`);
    out[k] = p;
  }
  const lat = o.latency;
  if (typeof lat === "string") out.latency = parseFaultSpec(`latency=${lat}`).latency;
  else if (typeof lat === "object" && lat !== null) {
    const { min, max } = lat as Record<string, unknown>;
    if (typeof min !== "number" || typeof max !== "number" || min < 0 || max < min) {
      throw new Error("latency: must be {min, max} milliseconds with 0 <= min <= max");
    }
    out.latency = { min, max };
  } else if (lat !== undefined && lat !== null) throw new Error("latency: must be {min, max} or \"MIN-MAX\"");
  if (out.error + out.reset + out.lost + out.lock > 1) throw new Error("faults: the probabilities add up to more than 1");
  return out;
}

export function checkOneShot(v: unknown, index: number): OneShotFault {
  const where = `next.${index}`;
  if (typeof v !== "object" || v === null) throw new Error(`${where}: must be an object`);
  const o = v as Record<string, unknown>;
  const kinds: readonly string[] = [...FAULT_KINDS, "latency"];
  if (typeof o.kind !== "string" || !kinds.includes(o.kind)) throw new Error(`${where}.kind: must be one of ${kinds.join(", ")}`);
  const out: OneShotFault = { kind: o.kind as OneShotFault["kind"] };
  if (o.method !== undefined) {
    if (typeof o.method !== "string") throw new Error(`${where}.method: must be a string`);
    out.method = o.method.toUpperCase();
  }
  if (o.path !== undefined) {
    if (typeof o.path !== "string" || !o.path.startsWith("/")) throw new Error(`${where}.path: must be a path starting with /`);
    out.path = o.path.startsWith("/api/v2/") ? o.path.slice("/api/v2".length) : o.path;
  }
  if (o.status !== undefined) {
    if (typeof o.status !== "number" || !Number.isInteger(o.status) || o.status < 400 || o.status > 599) {
      throw new Error(`${where}.status: must be an HTTP error status (400-599)`);
    }
    out.status = o.status;
  }
  if (o.ms !== undefined) {
    if (typeof o.ms !== "number" || o.ms < 0) throw new Error(`${where}.ms: must be a number of milliseconds >= 0`);
    out.ms = o.ms;
  }
  return out;
}

export class Faults {
  settings: FaultSettings;
  queue: OneShotFault[] = [];
  /** Count of injected faults by kind. */
  readonly injected: Record<string, number> = {};

  constructor(
    initial: FaultSettings = noFaults(),
    private readonly random: () => number = Math.random,
  ) {
    this.settings = initial;
  }

  /** Replaces the settings and, when given, the one-shot queue. */
  set(settings: FaultSettings, next?: OneShotFault[]): void {
    this.settings = settings;
    if (next !== undefined) this.queue = [...next];
  }

  enqueue(...faults: OneShotFault[]): void {
    this.queue.push(...faults);
  }

  reset(): void {
    this.settings = noFaults();
    this.queue = [];
    for (const k of Object.keys(this.injected)) delete this.injected[k];
  }

  snapshot() {
    return { ...this.settings, next: this.queue.map((f) => ({ ...f })) };
  }

  /** Decides the fault of one request to an /api/v2 route. */
  decide(method: string, path: string, template: string): FaultDecision {
    const at = this.queue.findIndex(
      (f) =>
        (f.method === undefined || f.method === method) && (f.path === undefined || f.path === path || f.path === template),
    );
    if (at >= 0) {
      const f = this.queue.splice(at, 1)[0] as OneShotFault;
      if (f.kind === "latency") return this.count({ kind: null, latencyMs: f.ms ?? 1000, oneShot: true }, "latency");
      return this.count({ kind: f.kind, status: f.status, latencyMs: 0, oneShot: true }, f.kind);
    }
    const s = this.settings;
    let latencyMs = 0;
    if (s.latency !== null) {
      latencyMs = Math.round(s.latency.min + this.random() * (s.latency.max - s.latency.min));
    }
    const total = s.error + s.reset + s.lost + s.lock;
    if (total <= 0) return { kind: null, latencyMs, oneShot: false };
    const r = this.random();
    let acc = 0;
    for (const k of FAULT_KINDS) {
      acc += s[k];
      if (r < acc) return this.count({ kind: k, latencyMs, oneShot: false }, k);
    }
    return { kind: null, latencyMs, oneShot: false };
  }

  private count(d: FaultDecision, kind: string): FaultDecision {
    this.injected[kind] = (this.injected[kind] ?? 0) + 1;
    return d;
  }
}
