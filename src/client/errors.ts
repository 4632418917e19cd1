/**
 * The one error hierarchy of the client. Every failure a caller can see is a `NeonError`:
 *
 * - `NeonApiError`: the service answered with a non-2xx status.
 * - `NeonNetworkError`: no (complete) answer arrived: connection refused, reset, per-attempt timeout.
 * - `NeonTimeoutError`: the overall deadline of one call passed.
 * - `NeonResponseError`: a 2xx answer that does not match the expected shape.
 * - `NeonOperationError`: a long-running operation ended badly or the wait for it timed out.
 * - `NeonConfigError`: the client was set up wrongly (missing API key, bad base URL) or a request
 *   body failed its schema before anything was sent.
 *
 * Messages never contain the API key or any secret carried in bodies (see redact.ts); every value
 * that came from a body went through the redaction helper first.
 */
import { SERVICE_RATE_LIMIT } from "../schemas/limits";
import { STATUS_CODES } from "node:http";

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE" | "PUT";

/** Where a call went: method and path relative to the base URL (no `/api/v2` prefix). */
export interface CallInfo {
  method: HttpMethod;
  path: string;
  /** Request id: the service's (`x-neon-ret-request-id` / body `request_id`) when known, else ours. */
  requestId?: string;
  /** Attempts made for this call, including the last one. */
  attempts: number;
}

export class NeonError extends Error {
  override readonly name: string = "NeonError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

export interface CallFacts extends CallInfo {
  retryable: boolean;
  mayHaveActed: boolean;
}

/**
 * A failure of one call that went (or tried to go) to the service: where it went, how many attempts,
 * the request id, and the two answers callers act on (retry? read back first?).
 */
export class NeonCallError extends NeonError {
  override readonly name: string = "NeonCallError";
  readonly requestId: string | undefined;
  readonly method: HttpMethod;
  readonly path: string;
  readonly attempts: number;
  /** A retry may succeed: the policy treats the failure as transient. */
  readonly retryable: boolean;
  /**
   * The server may have carried out the request although the call failed: for a write, read back
   * before creating again, since the object may exist.
   */
  readonly mayHaveActed: boolean;

  constructor(message: string, facts: CallFacts, options?: { cause?: unknown }) {
    super(message, options);
    this.requestId = facts.requestId;
    this.method = facts.method;
    this.path = facts.path;
    this.attempts = facts.attempts;
    this.retryable = facts.retryable;
    this.mayHaveActed = facts.mayHaveActed;
  }
}

function suffix(requestId: string | undefined, attempts: number): string {
  let s = "";
  if (requestId) s += ` (request id ${requestId})`;
  if (attempts > 1) s += `; gave up after ${attempts} attempts`;
  return s;
}

export interface NeonApiErrorInit extends CallInfo {
  status: number;
  statusText?: string;
  /** Neon's `code` (free string, often empty). */
  code: string;
  /** Neon's `message`, already redacted. */
  neonMessage: string;
  retryable: boolean;
  mayHaveActed: boolean;
  /** Appended to the message: where the call went, when that may be the cause (a 404). */
  hint?: string;
}

/** The service answered with a non-2xx status. */
/** `retryable`: the status is one the retry policy treats as transient (423, 429, 5xx); `mayHaveActed`: a 5xx other than 503 on a write. */
export class NeonApiError extends NeonCallError {
  override readonly name: string = "NeonApiError";
  readonly status: number;
  /** Neon's error `code` ("" when the service gave none). */
  readonly code: string;
  /** Neon's error `message` (redacted), or "" when the body had none. */
  readonly neonMessage: string;

  constructor(init: NeonApiErrorInit) {
    const text = init.neonMessage || init.statusText || STATUS_CODES[init.status] || "error";
    super(`${init.status} from ${init.method} ${init.path}: ${text}${suffix(init.requestId, init.attempts)}${init.hint ?? ""}`, init);
    this.status = init.status;
    this.code = init.code;
    this.neonMessage = init.neonMessage;
  }
}

export interface NeonNetworkErrorInit extends CallInfo {
  /** Low-level error code (ECONNREFUSED, UND_ERR_SOCKET, ...), when known. */
  errorCode?: string;
  /** Short description of the low-level failure (no secrets). */
  detail: string;
  mayHaveActed: boolean;
  /** False for failures no retry can heal (a refused certificate). Default true. */
  retryable?: boolean;
  cause?: unknown;
}

/** No complete answer arrived: connection refused or reset, per-attempt timeout, TLS failure. */
/**
 * Network failures are transient by nature, except a refused certificate or an unsendable header;
 * `mayHaveActed` when the request was written, or we cannot tell.
 */
export class NeonNetworkError extends NeonCallError {
  override readonly name: string = "NeonNetworkError";
  readonly errorCode: string | undefined;

  constructor(init: NeonNetworkErrorInit) {
    const acted = init.mayHaveActed ? "; the request may have reached the server, read back before retrying" : "";
    super(
      `network error on ${init.method} ${init.path}: ${init.detail}${acted}${suffix(init.requestId, init.attempts)}`,
      { ...init, retryable: init.retryable ?? true },
      { cause: init.cause },
    );
    this.errorCode = init.errorCode;
  }
}

export interface NeonTimeoutErrorInit extends CallInfo {
  deadlineMs: number;
  /** The last failure before the deadline passed (a NeonError), if any. */
  lastError?: NeonError;
  mayHaveActed: boolean;
  /** Set when the time ran out while the project stayed locked (423): how long it was waited for. */
  locked?: { waitedMs: number; budgetMs: number };
  /** Set when the rate-limit budget ran out (pacing and 429s): how long it was waited for. */
  rateLimited?: { waitedMs: number; budgetMs: number };
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** The overall deadline of one call passed (in a wait for a retry, for a rate-limit token or in flight). */
export class NeonTimeoutError extends NeonCallError {
  override readonly name: string = "NeonTimeoutError";
  readonly deadlineMs: number;
  /** How long the project stayed locked (423) when that is why the time ran out. */
  readonly lockedForMs: number | undefined;
  /** How long the call waited for the rate limit when that is why the time ran out. */
  readonly rateLimitedForMs: number | undefined;

  constructor(init: NeonTimeoutErrorInit) {
    const tries = init.attempts === 1 ? "1 attempt" : `${init.attempts} attempts`;
    const last = init.lastError ? `; last error: ${init.lastError.message}` : "";
    const id = init.requestId ? ` (request id ${init.requestId})` : "";
    const why = init.locked
      ? `project locked: waited ${seconds(init.locked.waitedMs)} while Neon answered 423 (another operation is running ` +
        `on the project), up to the lock budget of ${seconds(init.locked.budgetMs)} (neon-auth:lockTimeoutSeconds), ` +
        `for ${init.method} ${init.path}; gave up after ${tries}`
      : init.rateLimited
        ? `rate limited: waited ${seconds(init.rateLimited.waitedMs)} for Neon's rate limit (the account's ${SERVICE_RATE_LIMIT.perMinute} requests ` +
          `a minute, shared by every process and the console on its keys), up to the budget of ${seconds(init.rateLimited.budgetMs)} ` +
          `(neon-auth:rateLimitTimeoutSeconds), for ${init.method} ${init.path}; gave up after ${tries}`
        : `deadline of ${init.deadlineMs} ms exceeded for ${init.method} ${init.path} after ${tries}`;
    super(`${why}${id}${last}`, { ...init, retryable: true }, { cause: init.lastError });
    this.deadlineMs = init.deadlineMs;
    this.lockedForMs = init.locked?.waitedMs;
    this.rateLimitedForMs = init.rateLimited?.waitedMs;
  }
}

export interface NeonResponseErrorInit extends CallInfo {
  status: number;
  /** Human-readable problems, each `field.path: problem` (never the offending value). */
  issues: string[];
}

/** A 2xx answer whose body is not what the endpoint promises. */
/** Not retryable; the server did answer 2xx, so it acted. */
export class NeonResponseError extends NeonCallError {
  override readonly name: string = "NeonResponseError";
  readonly status: number;
  readonly issues: string[];

  constructor(init: NeonResponseErrorInit) {
    const id = init.requestId ? ` (request id ${init.requestId})` : "";
    super(`unexpected response from ${init.method} ${init.path} (status ${init.status}): ${init.issues.join("; ")}${id}`, {
      ...init,
      retryable: false,
      mayHaveActed: true,
    });
    this.status = init.status;
    this.issues = init.issues;
  }
}

/** A long-running operation ended in `error`/`failed`, or the wait for it timed out. */
export class NeonOperationError extends NeonError {
  override readonly name: string = "NeonOperationError";
  readonly operationId: string;
  readonly projectId: string;
  readonly action: string;
  /** Last status seen. */
  readonly status: string;
  readonly timedOut: boolean;

  constructor(init: { operationId: string; projectId: string; action: string; status: string; timedOut: boolean; detail?: string; cause?: unknown }) {
    const what = `operation ${init.operationId} (${init.action}) on project ${init.projectId}`;
    const msg = init.timedOut
      ? `${what} still ${init.status} after waiting ${init.detail ?? ""}`.trimEnd()
      : `${what} ended with status ${init.status}${init.detail ? `: ${init.detail}` : ""}`;
    super(msg, { cause: init.cause });
    this.operationId = init.operationId;
    this.projectId = init.projectId;
    this.action = init.action;
    this.status = init.status;
    this.timedOut = init.timedOut;
  }
}

/** Wrong setup (missing API key, bad base URL) or a request body that fails its schema. Never sent. */
export class NeonConfigError extends NeonError {
  override readonly name: string = "NeonConfigError";
}

/** True for a 404 answer: the object (or the project, or auth on it) does not exist. */
export function isNotFound(err: unknown): err is NeonApiError {
  return err instanceof NeonApiError && err.status === 404;
}

/** True for a 409 answer (e.g. the integration already exists). */
export function isConflict(err: unknown): err is NeonApiError {
  return err instanceof NeonApiError && err.status === 409;
}

/**
 * True when a failed write may nevertheless have been carried out by the server: the caller should
 * read back (list) before creating again.
 */
export function mayHaveActed(err: unknown): boolean {
  return err instanceof NeonCallError && err.mayHaveActed;
}
