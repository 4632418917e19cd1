/**
 * The client's options: what a caller may set, their defaults and checks, resolved once into the
 * settings the attempt loop (transport.ts) runs with.
 */
import { createHash } from "node:crypto";
import type { Dispatcher } from "undici";
import type { z } from "zod";
import { systemClock, type Clock } from "../clock";
import { isLoopbackHost } from "../schemas";
import { DEFAULT_BATCH, type BatchOptions } from "./batch";
import { NeonConfigError, type HttpMethod } from "./errors";
import { resolvePacing, sharedLimiter, type PacingOptions, type RateLimiter } from "./pacing";
import { rememberSecrets } from "./redact";
import { DEFAULT_RETRY, type RetryOptions } from "./retry";

export const DEFAULT_BASE_URL = "https://console.neon.tech/api/v2";

/**
 * 15 minutes. A pipeline job is typically bounded by tens of minutes to hours (GitHub Actions: 6 h,
 * GitLab: 1 h by default), so a wait this long still fails inside the job, with a message, rather
 * than being killed by it; and it is long enough for a queue of about 10,000 requests of the
 * account (700 a minute) ahead of this one: a fleet of dozens of stacks updated at once.
 */
export const DEFAULT_RATE_LIMIT_TIMEOUT_MS = 900_000;

export interface AttemptTimeouts {
  /** Connecting a socket (only applies to the client's own dispatcher). Default 10_000 ms. */
  connect: number;
  /** Waiting for the response headers after sending. Default 30_000 ms. */
  headers: number;
  /** Gap between response body chunks. Default 30_000 ms. */
  body: number;
}

export interface ClientOptions {
  /** Neon API key (sent as `Authorization: Bearer`). Required. */
  apiKey: string;
  /** Default `https://console.neon.tech/api/v2`. */
  baseUrl?: string;
  /** Overall deadline of one call, all attempts and waits included. Default 120_000 ms. */
  deadlineMs?: number;
  /** Per-attempt timeouts. */
  attemptTimeoutMs?: Partial<AttemptTimeouts>;
  /** Attempts per call, including the first. Default 10. Answers 423 (project locked) do not count. */
  maxAttempts?: number;
  /**
   * How long one call keeps retrying while the project answers 423 (locked by another operation),
   * counted from the call's start. Default 120_000 ms. It may exceed `deadlineMs`, which bounds
   * the other failures.
   */
  lockTimeoutMs?: number;
  /**
   * How long one call may wait for Neon's rate limit, in all: for its turn under the client's
   * pacing and after answers 429 (which, like 423, do not count against maxAttempts). Time spent so
   * moves `deadlineMs` and `lockTimeoutMs` back by as much. Default 900_000 ms (15 minutes).
   */
  rateLimitTimeoutMs?: number;
  /**
   * Told of each wait of a call before it starts: for pacing, after a 429, for a locked project
   * (423) or for a long-running operation. For showing progress; it must not throw or block.
   */
  onWait?: (wait: WaitEvent) => void;
  /**
   * Told after each request that may have changed something (any method but GET) settles, with
   * where it wrote and whether it was a create that answered: so a cache of reads forgets by
   * itself. It must not throw.
   */
  onWrite?: (write: WriteEvent) => void;
  /** Asked as each attempt of a write (not GET) goes out: a provider process ends here once its engine is gone (provider/engine.ts). */
  beforeWrite?: () => void;
  /** Backoff tuning (base 250 ms, cap 10 s, Retry-After honoured up to 30 s). */
  retry?: Partial<Omit<RetryOptions, "maxAttempts">>;
  /** Client-side rate limiting; `false` disables it. Default: the service's limits. */
  pacing?: false | PacingOptions;
  /**
   * Single-domain deletes of one project (or branch) sent together (batch.ts): a batch leaves
   * as soon as every delete in hand is waiting (the engine can give no other before an answer),
   * else after `quietMs` without a new delete (longer while steps just answered may still come
   * back), `maxWaitMs` after its first, or when it holds `maxDomains`. `false` sends each alone.
   * Default `{ quietMs: 100, maxWaitMs: 3000, maxDomains: 50 }`.
   */
  batch?: false | Partial<BatchOptions>;
  /** Bound on waiting for long-running operations. Default 300_000 ms. */
  operationTimeoutMs?: number;
  clock?: Clock;
  /** undici dispatcher (e.g. a MockAgent in tests). Default: a keep-alive Agent owned by the client. */
  dispatcher?: Dispatcher;
  /** Source of randomness for backoff jitter, in [0, 1). Default Math.random. */
  random?: () => number;
  /** Receives one line per attempt (never a secret). */
  logger?: { debug(msg: string): void };
  userAgent?: string;
  /**
   * How errors name the settings the key and the URL came from (the values are never shown),
   * e.g. `{ apiKey: "neon-auth:apiKey" }`. Default `apiKey` and `baseUrl`. With `baseUrl` given,
   * the errors a wrong URL can cause (a 404, a refused connection, an unknown host) also name the
   * URL in use and that setting.
   */
  settingNames?: { apiKey?: string; baseUrl?: string };
  /**
   * Where the key came from, in words, for a refused key (401, 403): e.g. "NEON_API_KEY from the
   * environment". Default: the `settingNames.apiKey`, when given.
   */
  keySource?: string;
}

export type WaitKind = "pacing" | "rate-limit" | "lock" | "operation";

/**
 * A request that may have changed something (ClientOptions.onWrite): its project and branch (from the path,
 * or the body where project-level endpoints take it), and whether it was a POST that answered (adds its own object).
 */
export interface WriteEvent {
  projectId: string | undefined;
  branchId: string | undefined;
  created: boolean;
}

/** One wait of a call (ClientOptions.onWait). */
export interface WaitEvent {
  /**
   * `pacing`: for a token of the client's rate limiter; `rate-limit`: after a 429; `lock`: the
   * project answered 423; `operation`: a long-running operation is not finished yet.
   */
  kind: WaitKind;
  method: HttpMethod;
  /** The request's path (an operation's, for `operation`). */
  path: string;
  /** The call's X-Request-ID (the operation id for `operation`). */
  requestId: string;
  /** How long this wait will last (an estimate for `pacing`), ms. */
  waitMs: number;
  /** How long the call has been under way, ms. */
  waitedMs: number;
  /** The most it may still wait before giving up: what is left of the budget of this kind, ms. */
  leftMs: number;
  /**
   * For a request's own waits (not `operation`): the attempt that follows the wait (1 for the
   * first), and the most attempts the call may make as things stand, its `maxAttempts` plus the
   * answers 423 and 429 so far (which do not count against it).
   */
  attempt?: { next: number; of: number };
}

export interface WaitOptions {
  /** Bound on the whole wait. Default: the client's operationTimeoutMs (5 minutes). */
  timeoutMs?: number;
}

/** What a client runs with, resolved from ClientOptions by resolveOptions. */
export interface Resolved {
  readonly apiKey: string;
  readonly baseUrl: string;
  readonly origin: string;
  readonly prefix: string;
  readonly dispatcher: Dispatcher;
  readonly ownsDispatcher: boolean;
  readonly clock: Clock;
  readonly random: () => number;
  readonly logger: { debug(msg: string): void } | undefined;
  readonly userAgent: string;
  readonly deadlineMs: number;
  readonly lockTimeoutMs: number;
  readonly rateLimitTimeoutMs: number;
  readonly operationTimeoutMs: number;
  readonly onWait: ((wait: WaitEvent) => void) | undefined;
  readonly onWrite: ((write: WriteEvent) => void) | undefined;
  readonly beforeWrite: (() => void) | undefined;
  readonly timeouts: AttemptTimeouts;
  readonly retry: RetryOptions;
  readonly limiter: RateLimiter | undefined;
  /** Domain delete batching; `maxDomains: 1` when switched off. */
  readonly batch: BatchOptions;
  /** Appended to errors a wrong base URL can cause; empty when the caller did not say where it came from. */
  readonly urlHint: string;
  /** Appended to a 401 or 403: where the key came from (`keySource`), or nothing. */
  readonly keyHint: string;
  readonly settings: { apiKey: string; baseUrl: string };
}

/** This package's version, from its package.json (the User-Agent, the plugin's schema and info). */
export const VERSION: string = (() => {
  try {
    return (require("../../package.json") as { version?: string }).version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
})();

/** SHA-256 of the key, hex: the only form in which a key is used as a map key. */
export function hashKey(apiKey: string): string {
  return createHash("sha256").update(apiKey).digest("hex");
}

/**
 * The base URL, checked: `https:` everywhere but on loopback hosts, where traffic never leaves
 * the machine (the emulator). Errors name the setting and at most the origin: a value that does
 * not parse is never shown, as it may be a key pasted into the wrong setting.
 */
export function normaliseBaseUrl(raw: unknown, setting = "baseUrl"): URL {
  if (typeof raw !== "string" || raw.trim() === "") {
    throw new NeonConfigError(`${setting} must be a URL such as ${DEFAULT_BASE_URL}`);
  }
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new NeonConfigError(
      `${setting} is not a valid URL (the value is not shown, in case it is a secret); expected a URL such as ${DEFAULT_BASE_URL}`,
    );
  }
  if (url.username || url.password) {
    throw new NeonConfigError(`${setting} must not carry credentials (user:password@host); the API key has a setting of its own`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new NeonConfigError(`${setting} must be an https URL such as ${DEFAULT_BASE_URL}`);
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    throw new NeonConfigError(
      `${setting} must use https: the API key would travel in clear to ${url.origin}. ` +
        "Plain http is accepted for loopback hosts only (127.0.0.0/8, localhost, [::1]), such as the local emulator",
    );
  }
  url.search = "";
  url.hash = "";
  url.pathname = url.pathname.replace(/\/+$/, "");
  return url;
}

/** `field.path: problem` for each issue; values are never echoed. */
export function formatIssues(error: z.ZodError): string[] {
  return error.issues.map((i) => `${i.path.length ? i.path.map(String).join(".") : "(root)"}: ${i.message}`);
}

/** The batching options, checked; off is a bound of one domain per request. */
function resolveBatch(batch: ClientOptions["batch"]): BatchOptions {
  if (batch === false) return { ...DEFAULT_BATCH, maxDomains: 1 };
  const b = { ...DEFAULT_BATCH, ...Object.fromEntries(Object.entries(batch ?? {}).filter(([, v]) => v !== undefined)) };
  return {
    quietMs: positive("batch.quietMs", b.quietMs),
    maxWaitMs: positive("batch.maxWaitMs", b.maxWaitMs),
    maxDomains: Math.floor(positive("batch.maxDomains", b.maxDomains)),
  };
}

function positive(name: string, v: number): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) throw new NeonConfigError(`${name} must be a positive number`);
  return v;
}

export function settingNames(options: ClientOptions): { apiKey: string; baseUrl: string } {
  return { apiKey: options.settingNames?.apiKey ?? "apiKey", baseUrl: options.settingNames?.baseUrl ?? "baseUrl" };
}

/**
 * The API key, trimmed, or a NeonConfigError naming its setting. A key that HTTP cannot carry
 * (CR, LF, NUL, spaces, non-ASCII) would fail every attempt the same way: it is refused here,
 * once, before anything is sent; the message never shows the key.
 */
export function checkApiKey(options: ClientOptions): string {
  const setting = settingNames(options).apiKey;
  if (typeof options?.apiKey !== "string" || options.apiKey.trim() === "") {
    throw new NeonConfigError(
      // The caller's own name for the setting (the resources pass theirs): this layer knows no stack config.
      `the Neon API key (${setting}) is missing or blank`,
    );
  }
  const key = options.apiKey.trim();
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new NeonConfigError(
      `the Neon API key (${setting}) holds characters that cannot be sent in an HTTP header ` +
        "(control characters such as CR, LF or NUL, spaces, or non-ASCII letters); the value is not shown. Set it again, without them",
    );
  }
  rememberSecrets([key]);
  return key;
}


/** Checks the options and fills in the defaults; throws NeonConfigError naming the setting. */
export function resolveOptions(options: ClientOptions): Resolved {
  const apiKey = checkApiKey(options);
  const settings = settingNames(options);
  const url = normaliseBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL, settings.baseUrl);
  const baseUrl = url.origin + url.pathname;
  const named = options.settingNames?.baseUrl;
  const urlHint = !named
    ? ""
    : options.baseUrl === undefined
      ? `; Neon API at ${baseUrl} (the default base URL; ${named} sets another)`
      : `; Neon API at ${baseUrl} (base URL from ${named})`;
  // A refused key (401, 403) says where it came from, never what it is.
  const source = options.keySource ?? options.settingNames?.apiKey;
  const keyHint = source ? `; the API key is ${source}` : "";
  const clock = options.clock ?? systemClock;
  const timeouts = {
    connect: positive("attemptTimeoutMs.connect", options.attemptTimeoutMs?.connect ?? 10_000),
    headers: positive("attemptTimeoutMs.headers", options.attemptTimeoutMs?.headers ?? 30_000),
    body: positive("attemptTimeoutMs.body", options.attemptTimeoutMs?.body ?? 30_000),
  };
  const resolved = {
    apiKey,
    settings,
    baseUrl,
    origin: url.origin,
    prefix: url.pathname,
    urlHint,
    keyHint,
    clock,
    random: options.random ?? Math.random,
    logger: options.logger,
    userAgent: options.userAgent ?? `pulumi-neon-auth/${VERSION} (node ${process.versions.node})`,
    deadlineMs: positive("deadlineMs", options.deadlineMs ?? 120_000),
    lockTimeoutMs: positive("lockTimeoutMs", options.lockTimeoutMs ?? 120_000),
    rateLimitTimeoutMs: positive("rateLimitTimeoutMs", options.rateLimitTimeoutMs ?? DEFAULT_RATE_LIMIT_TIMEOUT_MS),
    onWait: options.onWait,
    onWrite: options.onWrite,
    beforeWrite: options.beforeWrite,
    operationTimeoutMs: positive("operationTimeoutMs", options.operationTimeoutMs ?? 300_000),
    timeouts,
    batch: resolveBatch(options.batch),
    retry: {
      ...DEFAULT_RETRY,
      ...Object.fromEntries(Object.entries(options.retry ?? {}).filter(([, v]) => v !== undefined)),
      maxAttempts: Math.max(1, Math.floor(options.maxAttempts ?? DEFAULT_RETRY.maxAttempts)),
    },
  };
  let limiter: RateLimiter | undefined;
  if (options.pacing !== false) {
    let limits;
    try {
      limits = resolvePacing(options.pacing);
    } catch (e) {
      throw new NeonConfigError((e as Error).message);
    }
    limiter = sharedLimiter(baseUrl, hashKey(apiKey), limits, clock, resolved.random);
  }
  if (options.dispatcher) return { ...resolved, limiter, dispatcher: options.dispatcher, ownsDispatcher: false };
  // undici is loaded here, not at import: a Pulumi program loads this package to declare
  // resources and never sends a request, so it should not pay undici's ~50 ms start-up.
  const { Agent } = require("undici") as typeof import("undici");
  const dispatcher = new Agent({
    connectTimeout: timeouts.connect,
    headersTimeout: timeouts.headers,
    bodyTimeout: timeouts.body,
    keepAliveTimeout: 10_000,
    connections: 128,
  });
  return { ...resolved, limiter, dispatcher, ownsDispatcher: true };
}
