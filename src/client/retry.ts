/**
 * The one retry policy of the client.
 *
 * What is retried:
 * - HTTP 429 (rate limit), 423 (project locked by another operation), 503 and every other 5xx;
 * - network failures (connection refused or reset, per-attempt timeouts).
 *
 * What may be replayed:
 * - GET, PATCH, DELETE (and PUT) after any of the above. In this API they are idempotent: PATCH sets
 *   absolute values (the OAuth provider's credentials, the email server's configuration), so applying
 *   it twice leaves the same state; DELETE of an object that is already gone answers 404, which the
 *   resources treat as "done".
 * - POST (create integration, create user, add domain, add provider, generate keys, transfer) only
 *   where the server cannot have acted: 429, 423, 503, and a network failure before the request was
 *   fully written (connect refused / timed out / DNS, or a socket error before undici reported the
 *   request as sent). A POST whose response was lost after it was written, or that got a 5xx other
 *   than 503, is not replayed: the error carries `mayHaveActed: true` so the caller reads back first.
 *
 * Waits: exponential backoff with full jitter (`random() * min(cap, base * 2^(n-1))`); a `Retry-After`
 * header (delta seconds or HTTP date) is honoured, clamped to [0, maxRetryAfterMs], and used instead of
 * the backoff. Every call has an overall deadline; all waits go through the injected Clock.
 */
import type { HttpMethod } from "./errors";

export interface RetryOptions {
  /** Attempts per call, including the first. Default 10. */
  maxAttempts: number;
  /** First backoff ceiling in ms. Default 250. */
  baseDelayMs: number;
  /** Largest backoff ceiling in ms. Default 10_000. */
  maxDelayMs: number;
  /** Largest honoured Retry-After in ms. Default 30_000. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 10,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 30_000,
};

/** Statuses the policy treats as transient. */
export function isRetryableStatus(status: number): boolean {
  return status === 423 || status === 429 || (status >= 500 && status <= 599);
}

/** Statuses after which the server has certainly not acted (safe to replay any method). */
export function isNotActedStatus(status: number): boolean {
  return status === 423 || status === 429 || status === 503;
}

export function isIdempotent(method: HttpMethod): boolean {
  return method !== "POST";
}

/**
 * Network error codes that can only happen before a request reaches the server: nothing was written,
 * so even a POST may be replayed.
 */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "ENETDOWN",
  "UND_ERR_CONNECT_TIMEOUT",
  "CERT_HAS_EXPIRED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
]);

/**
 * No server answered at that address (nothing listens, or the name does not resolve). Usually a
 * wrong base URL rather than a blip, so a few quick attempts are made, not a deadline's worth.
 */
export function isConnectFailure(errorCode: string | undefined): boolean {
  return errorCode === "ECONNREFUSED" || errorCode === "ENOTFOUND";
}

/** Attempts for a call whose connection is refused or whose host is unknown. */
export const CONNECT_ATTEMPTS = 3;

/**
 * Network failures that no retry can heal: the server's certificate was refused, or the request
 * cannot be written as HTTP at all (a header holding CR, LF or NUL). They fail at once.
 */
const PERMANENT_CODES: ReadonlySet<string> = new Set([
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_REVOKED",
  "CERT_REJECTED",
  "CERT_UNTRUSTED",
  "CERT_SIGNATURE_FAILURE",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "HOSTNAME_MISMATCH",
  "ERR_SSL_WRONG_VERSION_NUMBER",
  "UND_ERR_INVALID_ARG",
  "ERR_INVALID_CHAR",
  "ERR_INVALID_HTTP_TOKEN",
  "ERR_HTTP_INVALID_HEADER_VALUE",
]);

export function isPermanentNetworkCode(code: string | undefined): boolean {
  return code !== undefined && PERMANENT_CODES.has(code);
}

/**
 * Whether a network failure may have let the server act. `requestSent` is true once undici reported
 * the request (headers and body) as fully written, or once a response started.
 */
export function networkMayHaveActed(errorCode: string | undefined, requestSent: boolean): boolean {
  if (errorCode !== undefined && NOT_SENT_CODES.has(errorCode)) return false;
  return requestSent;
}

export type AttemptFailure =
  | { kind: "status"; status: number }
  | { kind: "network"; mayHaveActed: boolean; code?: string };

/** Whether a failed attempt of `method` may be tried again (ignoring attempt count and deadline). */
export function shouldRetry(method: HttpMethod, failure: AttemptFailure): boolean {
  if (failure.kind === "status") {
    if (!isRetryableStatus(failure.status)) return false;
    return isIdempotent(method) || isNotActedStatus(failure.status);
  }
  if (isPermanentNetworkCode(failure.code)) return false;
  return isIdempotent(method) || !failure.mayHaveActed;
}

/** Full-jitter exponential backoff before attempt `attempt + 1` (attempt counts from 1). */
export function backoffDelay(attempt: number, random: () => number, opts: RetryOptions): number {
  const ceiling = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * A `Retry-After` value in ms, clamped to [0, maxMs]; undefined when absent or unparseable.
 * Accepts delta seconds (`"3"`, `"1.5"`) and HTTP dates (relative to `nowMs`).
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number, maxMs: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (text === "") return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(text)) {
    ms = Number(text) * 1000;
  } else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - nowMs;
  }
  return Math.min(maxMs, Math.max(0, Math.ceil(ms)));
}
