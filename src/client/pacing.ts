/**
 * Client-side pacing: token buckets matching the service's limits (schemas/limits.ts), so a whole
 * `pulumi up` stays under them instead of learning them from 429s.
 *
 * Per (base URL, API key) there is one limiter holding
 * - an account bucket: capacity `burst` (40), refilled at `perMinute` (700) per 60 s;
 * - one bucket per route (method + path template, e.g. `POST /projects/{project_id}/auth/domains`):
 *   capacity `routeBurst` (40), refilled at `routePerSecond` (40) per second.
 * A request needs one token from both. Waiters are served strictly first come, first served, and all
 * waiting goes through the Clock.
 *
 * Margins (the server counts arrivals, which jitter against our send times):
 * - refill runs at `rateFactor` (99.5%) of the nominal rate, so the server's bucket slowly builds a
 *   cushion during a long run;
 * - `reserve` (1) token of each capacity is never used: a burst leaves the server one token, which
 *   absorbs up to 1/rate (~86 ms) of arrival jitter. Cost: one request's worth of time per run.
 * On a 429 the account bucket and the route's bucket are drained to 0, so every other request of the
 * process backs off too.
 */
import { SERVICE_RATE_LIMIT } from "../schemas/limits";
import type { Clock } from "../clock";

export interface PacingOptions {
  /** Account requests per minute. Default 700. */
  perMinute?: number;
  /** Account burst (bucket capacity). Default 40. */
  burst?: number;
  /** Per-route burst (bucket capacity). Default 40. */
  routeBurst?: number;
  /** Per-route refill per second. Default 40. */
  routePerSecond?: number;
  /** Fraction of the nominal refill rates actually used. Default 0.995. */
  rateFactor?: number;
  /** Tokens of each capacity held back. Default 1. */
  reserve?: number;
}

export type ResolvedPacing = Required<PacingOptions>;

export const DEFAULT_PACING: ResolvedPacing = {
  perMinute: SERVICE_RATE_LIMIT.perMinute,
  burst: SERVICE_RATE_LIMIT.burst,
  routeBurst: SERVICE_RATE_LIMIT.routePerSecond,
  routePerSecond: SERVICE_RATE_LIMIT.routePerSecond,
  rateFactor: 0.995,
  reserve: 1,
};

export function resolvePacing(p: PacingOptions | undefined): ResolvedPacing {
  const r = { ...DEFAULT_PACING, ...stripUndefined(p ?? {}) };
  for (const [k, v] of Object.entries(r)) {
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new RangeError(`pacing.${k} must be a non-negative number`);
  }
  if (r.perMinute <= 0 || r.routePerSecond <= 0) throw new RangeError("pacing rates must be positive");
  if (r.rateFactor <= 0 || r.rateFactor > 1) throw new RangeError("pacing.rateFactor must be in (0, 1]");
  return r;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export class TokenBucket {
  private tokens: number;
  private last: number;
  constructor(
    readonly capacity: number,
    /** Tokens per millisecond. */
    readonly perMs: number,
    now: number,
  ) {
    this.tokens = capacity;
    this.last = now;
  }

  private refill(now: number): void {
    if (now > this.last) {
      this.tokens = Math.min(this.capacity, this.tokens + (now - this.last) * this.perMs);
      this.last = now;
    }
  }

  /** Milliseconds until one token is available (0 when one is). */
  waitMs(now: number): number {
    this.refill(now);
    if (this.tokens >= 1) return 0;
    return Math.max(1, Math.ceil((1 - this.tokens) / this.perMs));
  }

  take(now: number): void {
    this.refill(now);
    this.tokens -= 1;
  }

  drain(now: number): void {
    this.refill(now);
    this.tokens = Math.min(this.tokens, 0);
  }

  available(now: number): number {
    this.refill(now);
    return this.tokens;
  }
}

interface Waiter {
  route: string;
  resolve: () => void;
  reject: (e: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

export class RateLimiter {
  private readonly account: TokenBucket;
  private readonly routes = new Map<string, TokenBucket>();
  private readonly queue: Waiter[] = [];
  private pumping = false;
  /** Requests that had to wait for a token (for tests and diagnostics). */
  waited = 0;

  constructor(
    readonly limits: ResolvedPacing,
    private readonly clock: Clock,
  ) {
    const cap = Math.max(1, limits.burst - limits.reserve);
    this.account = new TokenBucket(cap, (limits.perMinute / 60_000) * limits.rateFactor, clock.now());
  }

  private route(route: string): TokenBucket {
    let b = this.routes.get(route);
    if (!b) {
      const cap = Math.max(1, this.limits.routeBurst - this.limits.reserve);
      b = new TokenBucket(cap, (this.limits.routePerSecond / 1000) * this.limits.rateFactor, this.clock.now());
      this.routes.set(route, b);
    }
    return b;
  }

  /** Resolves when the request may be sent (one token taken from both buckets). */
  acquire(route: string, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.clock.now();
    const rb = this.route(route);
    if (this.queue.length === 0 && this.account.waitMs(now) === 0 && rb.waitMs(now) === 0) {
      this.account.take(now);
      rb.take(now);
      return Promise.resolve();
    }
    this.waited++;
    return new Promise<void>((resolve, reject) => {
      const w: Waiter = { route, resolve, reject, signal, onAbort: undefined };
      if (signal) {
        w.onAbort = () => {
          const i = this.queue.indexOf(w);
          if (i >= 0) this.queue.splice(i, 1);
          reject(signal.reason);
        };
        signal.addEventListener("abort", w.onAbort, { once: true });
      }
      this.queue.push(w);
      void this.pump();
    });
  }

  /** After a 429: nobody sends on this account (or route) until the buckets refill. */
  drain(route: string): void {
    const now = this.clock.now();
    this.account.drain(now);
    this.route(route).drain(now);
  }

  /** Tokens currently in the account bucket (diagnostics). */
  accountTokens(): number {
    return this.account.available(this.clock.now());
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0) {
        const w = this.queue[0]!;
        const now = this.clock.now();
        const rb = this.route(w.route);
        const wait = Math.max(this.account.waitMs(now), rb.waitMs(now));
        if (wait === 0) {
          this.queue.shift();
          this.account.take(now);
          rb.take(now);
          if (w.signal && w.onAbort) w.signal.removeEventListener("abort", w.onAbort);
          w.resolve();
          continue;
        }
        await this.clock.sleep(wait);
      }
    } finally {
      this.pumping = false;
    }
  }
}

/**
 * Process-wide registry: one limiter per (clock, base URL, key hash, limits). The clock is part of the
 * key only so that tests on fake clocks get their own limiter; production code uses one clock.
 */
const registry = new WeakMap<Clock, Map<string, RateLimiter>>();

export function sharedLimiter(baseUrl: string, keyHash: string, limits: ResolvedPacing, clock: Clock): RateLimiter {
  let byKey = registry.get(clock);
  if (!byKey) {
    byKey = new Map();
    registry.set(clock, byKey);
  }
  const k = `${baseUrl}\u0000${keyHash}\u0000${JSON.stringify(limits)}`;
  let l = byKey.get(k);
  if (!l) {
    l = new RateLimiter(limits, clock);
    byKey.set(k, l);
  }
  return l;
}
