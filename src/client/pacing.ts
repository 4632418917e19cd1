/**
 * Client-side pacing: token buckets matching the service's limits (schemas/limits.ts), so a whole
 * `pulumi up` stays under them instead of learning them from 429s, and a rate that adapts when it
 * meets 429s anyway: the limit is per account, so other processes on the same key (a fleet of
 * stacks updated at once, the console) spend the same budget.
 *
 * Per (base URL, API key) there is one limiter holding
 * - an account bucket: capacity `burst` (40), refilled at `perMinute` (700) per 60 s;
 * - one bucket per route (method + path template, e.g. `POST /projects/{project_id}/auth/domains`):
 *   capacity `routeBurst` (40), refilled at `routePerSecond` (40) per second.
 * A request needs one token from both. Waiters are served first come, first served, in two lanes:
 * requests already under way (a retry, a batch of deletes that engine steps wait on) go before new
 * ones, so a queue of new requests never starves them. All waiting goes through the Clock.
 *
 * Margins (the server counts arrivals, which jitter against our send times):
 * - refill runs at `rateFactor` (99.5%) of the nominal rate, so the server's bucket slowly builds a
 *   cushion during a long run;
 * - `reserve` (1) token of each capacity is never used: a burst leaves the server one token, which
 *   absorbs up to 1/rate (~86 ms) of arrival jitter. Cost: one request's worth of time per run.
 *
 * Sharing (AIMD, as TCP shares a link): a 429 means someone else spends the account's budget too.
 * The account rate is then multiplied by `decrease` (0.6, jittered by ±10% so that processes hit
 * together do not stay in step), once per episode: 429s answering requests sent before the last
 * decrease are the same episode. The bucket's capacity shrinks with the rate (a process at 1/K of
 * the rate bursts at most 1/K of the burst), and both buckets are drained. Each success then adds
 * `increase / rate` requests per second, i.e. `increase` (req/s) per second of sending, doubled for
 * every 4 s without a 429 after the first 4 (the others may have finished), up to the nominal rate. K processes on one key thus converge to about 1/K of the budget each. A process
 * alone never meets a 429 and never slows down.
 */
import { SERVICE_RATE_LIMIT } from "../schemas/limits";
import type { Clock } from "../clock";

/** See RateLimiter.succeeded. */
const QUIET_MS = 4_000;

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
  /** Factor applied to the account rate on a 429 (once per episode), in (0, 1). Default 0.6. */
  decrease?: number;
  /** Requests per second regained per second of sending after a decrease. Default 0.1. */
  increase?: number;
  /** Lowest account rate, as a fraction of the nominal one. Default 0.01. */
  minFraction?: number;
}

export type ResolvedPacing = Required<PacingOptions>;

export const DEFAULT_PACING: ResolvedPacing = {
  perMinute: SERVICE_RATE_LIMIT.perMinute,
  burst: SERVICE_RATE_LIMIT.burst,
  routeBurst: SERVICE_RATE_LIMIT.routePerSecond,
  routePerSecond: SERVICE_RATE_LIMIT.routePerSecond,
  rateFactor: 0.995,
  reserve: 1,
  decrease: 0.6,
  increase: 0.1,
  minFraction: 0.01,
};

export function resolvePacing(p: PacingOptions | undefined): ResolvedPacing {
  const r = { ...DEFAULT_PACING, ...stripUndefined(p ?? {}) };
  for (const [k, v] of Object.entries(r)) {
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new RangeError(`pacing.${k} must be a non-negative number`);
  }
  if (r.perMinute <= 0 || r.routePerSecond <= 0) throw new RangeError("pacing rates must be positive");
  if (r.rateFactor <= 0 || r.rateFactor > 1) throw new RangeError("pacing.rateFactor must be in (0, 1]");
  if (r.decrease <= 0 || r.decrease >= 1) throw new RangeError("pacing.decrease must be in (0, 1)");
  if (r.minFraction <= 0 || r.minFraction > 1) throw new RangeError("pacing.minFraction must be in (0, 1]");
  return r;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export class TokenBucket {
  private tokens: number;
  private last: number;
  constructor(
    public capacity: number,
    /** Tokens per millisecond. */
    public perMs: number,
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

  /** Milliseconds until `n` tokens (default one) are available (0 when they are). */
  waitMs(now: number, n = 1): number {
    this.refill(now);
    if (this.tokens >= n) return 0;
    return Math.max(1, Math.ceil((n - this.tokens) / this.perMs));
  }

  take(now: number): void {
    this.refill(now);
    this.tokens -= 1;
  }

  drain(now: number): void {
    this.refill(now);
    this.tokens = Math.min(this.tokens, 0);
  }

  /** A new refill rate and capacity from `now` on (what was earned at the old rate is kept). */
  setRate(now: number, perMs: number, capacity: number): void {
    this.refill(now);
    this.perMs = perMs;
    this.capacity = capacity;
    this.tokens = Math.min(this.tokens, capacity);
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
  /** Requests already under way (retries, batches), served before `queue`. */
  private readonly urgent: Waiter[] = [];
  private readonly queue: Waiter[] = [];
  private pumping = false;
  /** Wakes the pump early when an urgent waiter arrives. */
  private nap: AbortController | undefined;
  /** Account rate when nobody else spends the budget (tokens per ms) and its bucket's capacity. */
  private readonly fullPerMs: number;
  private readonly fullCapacity: number;
  /**
   * Slow start: a new limiter may burst only as many requests as have been answered so far, plus
   * one, until its burst reaches the full capacity or it meets its first 429. A process alone
   * reaches its full burst in about six round trips; one that joins an account others are using
   * up learns it from one 429, not from a whole burst of them.
   */
  private slowStart = true;
  private answered = 0;
  /** Time of the last decrease: a 429 for a request sent earlier belongs to the same episode. */
  private lastDecrease = Number.NEGATIVE_INFINITY;
  /** Requests that had to wait for a token (for tests and diagnostics). */
  waited = 0;
  /** Rate decreases so far (for tests and diagnostics). */
  decreases = 0;

  constructor(
    readonly limits: ResolvedPacing,
    private readonly clock: Clock,
    private readonly random: () => number = Math.random,
  ) {
    this.fullCapacity = Math.max(1, limits.burst - limits.reserve);
    this.fullPerMs = (limits.perMinute / 60_000) * limits.rateFactor;
    this.account = new TokenBucket(this.fullCapacity, this.fullPerMs, clock.now());
    this.sent = 0;
  }

  /** Requests let through so far. */
  private sent: number;

  /** During slow start, whether one more request may leave now (at most 2 × answered + 1 sent). */
  private startAllows(): boolean {
    return !this.slowStart || this.sent < 2 * this.answered + 1;
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

  /**
   * Resolves when the request may be sent (one token taken from both buckets). `urgent`: the
   * request is already under way (a retry, a batch engine steps wait on) and goes before new ones.
   */
  acquire(route: string, signal?: AbortSignal, urgent = false): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.clock.now();
    const rb = this.route(route);
    const ahead = urgent ? this.urgent.length : this.urgent.length + this.queue.length;
    if (ahead === 0 && this.startAllows() && this.account.waitMs(now) === 0 && rb.waitMs(now) === 0) {
      this.account.take(now);
      rb.take(now);
      this.sent++;
      return Promise.resolve();
    }
    this.waited++;
    return new Promise<void>((resolve, reject) => {
      const lane = urgent ? this.urgent : this.queue;
      const w: Waiter = { route, resolve, reject, signal, onAbort: undefined };
      if (signal) {
        w.onAbort = () => {
          const i = lane.indexOf(w);
          if (i >= 0) lane.splice(i, 1);
          reject(signal.reason);
        };
        signal.addEventListener("abort", w.onAbort, { once: true });
      }
      lane.push(w);
      if (urgent) this.nap?.abort();
      void this.pump();
    });
  }

  /** About how long a request queued now would wait for its account token (ms; an estimate). */
  expectedWaitMs(urgent = false): number {
    const ahead = urgent ? this.urgent.length : this.urgent.length + this.queue.length;
    return this.account.waitMs(this.clock.now(), ahead + 1);
  }

  /**
   * After a 429 for a request sent at `sentAt`: nobody sends on this account (or route) until the
   * buckets refill, and, once per episode, the account rate decreases.
   */
  drain(route: string, sentAt = this.clock.now()): void {
    const now = this.clock.now();
    this.slowStart = false;
    this.nap?.abort();
    if (sentAt >= this.lastDecrease) {
      this.lastDecrease = now;
      this.decreases++;
      const jitter = 1 + 0.2 * (this.random() - 0.5);
      this.setRate(now, this.account.perMs * this.limits.decrease * jitter);
    }
    this.account.drain(now);
    this.route(route).drain(now);
  }

  /**
   * After an attempt that did not meet a 429 (an answer, or a network failure): the rate grows back
   * by `increase` per second of sending.
   */
  succeeded(): void {
    if (this.slowStart) {
      this.answered++;
      if (2 * this.answered + 1 >= this.fullCapacity) this.slowStart = false;
      this.nap?.abort();
    }
    const perMs = this.account.perMs;
    if (perMs >= this.fullPerMs) return;
    const now = this.clock.now();
    // The longer without a 429, the likelier the others have finished: the increase doubles
    // every QUIET_MS after the first, so a process left alone regains the full rate in seconds.
    const quiet = Math.min(6, Math.max(0, (now - this.lastDecrease - QUIET_MS) / QUIET_MS));
    const perSecond = perMs * 1000;
    this.setRate(now, (perSecond + (this.limits.increase * 2 ** quiet) / perSecond) / 1000);
  }

  private setRate(now: number, perMs: number): void {
    const r = Math.min(this.fullPerMs, Math.max(this.fullPerMs * this.limits.minFraction, perMs));
    this.account.setRate(now, r, Math.max(1, (this.fullCapacity * r) / this.fullPerMs));
  }

  /** The account rate in use, in requests per second (diagnostics). */
  ratePerSecond(): number {
    return this.account.perMs * 1000;
  }

  /** Tokens currently in the account bucket (diagnostics). */
  accountTokens(): number {
    return this.account.available(this.clock.now());
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (;;) {
        const lane = this.urgent.length > 0 ? this.urgent : this.queue;
        const w = lane[0];
        if (w === undefined) break;
        const now = this.clock.now();
        const rb = this.route(w.route);
        if (!this.startAllows()) {
          // An answer (succeeded or drain) wakes the pump.
          this.nap = new AbortController();
          await this.clock.sleep(1_000, this.nap.signal).catch(() => undefined);
          continue;
        }
        const wait = Math.max(this.account.waitMs(now), rb.waitMs(now));
        if (wait === 0) {
          lane.shift();
          this.account.take(now);
          rb.take(now);
          this.sent++;
          if (w.signal && w.onAbort) w.signal.removeEventListener("abort", w.onAbort);
          w.resolve();
          continue;
        }
        this.nap = new AbortController();
        await this.clock.sleep(wait, this.nap.signal).catch(() => undefined);
      }
    } finally {
      this.pumping = false;
      this.nap = undefined;
    }
  }
}

/**
 * Process-wide registry: one limiter per (clock, base URL, key hash, limits). The clock is part of the
 * key only so that tests on fake clocks get their own limiter; production code uses one clock.
 */
const registry = new WeakMap<Clock, Map<string, RateLimiter>>();

export function sharedLimiter(baseUrl: string, keyHash: string, limits: ResolvedPacing, clock: Clock, random?: () => number): RateLimiter {
  let byKey = registry.get(clock);
  if (!byKey) {
    byKey = new Map();
    registry.set(clock, byKey);
  }
  const k = `${baseUrl}\u0000${keyHash}\u0000${JSON.stringify(limits)}`;
  let l = byKey.get(k);
  if (!l) {
    l = new RateLimiter(limits, clock, random);
    byKey.set(k, l);
  }
  return l;
}
