/**
 * The service's rate limits (schemas/limits.ts) as two token buckets per account. Neon counts per
 * account, whatever the connection or process (API-FACTS.md, "Rate limits"); the emulator holds one
 * account per API key (assumption: it does not model several keys of one account), so every
 * connection of a key draws from one bucket (test/contract/emulator-ratelimit.test.ts):
 *  - account bucket: capacity `burst` (40), refilled at `perMinute / 60` tokens per second (700/60);
 *  - route bucket (per key and route, route = method + path template): capacity `burst` (40),
 *    refilled at `burst` tokens per second.
 * A request passes only when both buckets hold a token; it then takes one from each. A refused
 * request takes nothing. (With the spec settings the account bucket is always the tighter one; the
 * route bucket binds only with custom settings where perMinute / 60 > burst or accountBurst > burst.)
 * So R requests sent at once by a fresh key need at least
 * max(0, R − 40) × 60/700 seconds.
 */
import { SERVICE_RATE_LIMIT } from "../../schemas/limits";
import type { Clock } from "../../clock";

export interface RateLimitSettings {
  /** Sustained requests per minute per account (refill of the account bucket). */
  perMinute: number;
  /** Requests per second per route (capacity and refill of each route bucket). */
  burst: number;
  /** Capacity of the account bucket; default `burst`. */
  accountBurst?: number;
}

export type RateLimitOption = "off" | "spec" | RateLimitSettings;

export const SPEC_RATE_LIMIT: RateLimitSettings = { perMinute: SERVICE_RATE_LIMIT.perMinute, burst: SERVICE_RATE_LIMIT.burst };

interface Bucket {
  tokens: number;
  at: number;
}

export interface RateDecision {
  ok: boolean;
  /** Which bucket refused. */
  scope?: "account" | "route";
  /** Seconds until a retry can pass (integer, at least 1), when refused. */
  retryAfter?: number;
  message?: string;
}

/** Refuses (429) what is over the limits; the client's pacing.ts waits instead. */
export class RequestThrottle {
  private readonly accounts = new Map<string, Bucket>();
  private readonly routes = new Map<string, Bucket>();
  readonly settings: RateLimitSettings | null;

  constructor(
    option: RateLimitOption,
    private readonly clock: Clock,
  ) {
    this.settings = option === "off" ? null : option === "spec" ? { ...SPEC_RATE_LIMIT } : { ...option };
    if (this.settings !== null) {
      const { perMinute, burst, accountBurst } = this.settings;
      if (!(perMinute > 0 && burst >= 1 && (accountBurst === undefined || accountBurst >= 1))) {
        throw new Error("rate limit: perMinute must be > 0, burst and accountBurst >= 1");
      }
    }
  }

  reset(): void {
    this.accounts.clear();
    this.routes.clear();
  }

  /** Takes a token from the account and the route bucket, or says how long to wait. */
  take(account: string, route: string): RateDecision {
    const s = this.settings;
    if (s === null) return { ok: true };
    const now = this.clock.now();
    const acc = this.refill(this.accounts, account, now, s.accountBurst ?? s.burst, s.perMinute / 60);
    const rt = this.refill(this.routes, `${account} ${route}`, now, s.burst, s.burst);
    if (acc.tokens >= 1 && rt.tokens >= 1) {
      acc.tokens -= 1;
      rt.tokens -= 1;
      return { ok: true };
    }
    const waitAcc = acc.tokens >= 1 ? 0 : (1 - acc.tokens) / (s.perMinute / 60);
    const waitRoute = rt.tokens >= 1 ? 0 : (1 - rt.tokens) / s.burst;
    const scope = waitAcc >= waitRoute ? "account" : "route";
    const retryAfter = Math.max(1, Math.ceil(Math.max(waitAcc, waitRoute) - 1e-9));
    const message =
      scope === "account"
        ? `rate limit exceeded: at most ${s.perMinute} requests per minute per account`
        : `rate limit exceeded: at most ${s.burst} requests per second per route`;
    return { ok: false, scope, retryAfter, message };
  }

  private refill(map: Map<string, Bucket>, key: string, now: number, capacity: number, perSecond: number): Bucket {
    let b = map.get(key);
    if (b === undefined) {
      b = { tokens: capacity, at: now };
      map.set(key, b);
      return b;
    }
    if (now > b.at) {
      b.tokens = Math.min(capacity, b.tokens + ((now - b.at) / 1000) * perSecond);
      b.at = now;
    }
    return b;
  }
}
