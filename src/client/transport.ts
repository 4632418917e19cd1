/**
 * The attempt loop every call goes through: pacing, one X-Request-ID per call, the retry policy of
 * retry.ts against a deadline (and a separate budget while the project answers 423), and errors of
 * the one hierarchy of errors.ts, with secrets redacted.
 */
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { pathSegmentProblem } from "../schemas";
import { NeonApiError, NeonConfigError, NeonError, NeonNetworkError, NeonResponseError, NeonTimeoutError, type HttpMethod } from "./errors";
import { CallBounds } from "./callBounds";
import { AttemptNetworkError, errorCode, sendAttempt, type AttemptResponse } from "./http";
import { type Resolved, type WaitKind } from "./options";
import { apiError, cleanRequestId, headerValue, lastRequestId, parseAnswer, redactedCause, remedy } from "./answers";
import { collectSecrets, redactText, rememberSecrets, serverText } from "./redact";
import { backoffDelay, CONNECT_ATTEMPTS, isConnectFailure, isPermanentNetworkCode, networkMayHaveActed, parseRetryAfter, shouldRetry } from "./retry";

export interface CallSpec<T> {
  method: HttpMethod;
  /** Path template relative to the base URL, e.g. `/projects/{project_id}/auth/domains`. */
  route: string;
  params?: Record<string, string>;
  /** Query string (already validated), with its leading `?`. */
  query?: string;
  /** Request body (already validated). */
  body?: unknown;
  /** Response schema; absent for endpoints that answer with no body. */
  schema?: z.ZodType<T>;
  /** Overrides the client's per-call deadline (used by operation waits). */
  deadlineMs?: number;
  /** Success statuses of the endpoint; absent: any 2xx. */
  success?: readonly number[];
  /** Already under way (a batch engine steps wait on): paced before new requests. */
  urgent?: boolean;
}

export class Transport {
  readonly #o: Resolved;

  constructor(resolved: Resolved) {
    this.#o = resolved;
  }

  async call<T>(spec: CallSpec<T>): Promise<T> {
    return new OneCall(this.#o, spec).run();
  }
}

/** One attempt: how its log lines name it (`METHOD path attempt k/M (request id …)`), and when it went out. */
interface Attempt { tag: string; t0: number }

/**
 * One call: its request, the bounds its attempts share (the deadline, the lock budget, the
 * rate-limit budget), and what the attempts met so far. Each step of the loop is a method.
 */
class OneCall<T> {
  readonly #o: Resolved;
  readonly #spec: CallSpec<T>;
  readonly #method: HttpMethod;
  readonly #path: string;
  readonly #routeKey: string;
  /**
   * One X-Request-ID per call, reused by every attempt of that call, so the service's logs tie the
   * retries of one call together. Errors report the service's own id when it sends one.
   */
  readonly #requestId = randomUUID();
  readonly #bodyText: string | undefined;
  readonly #secrets: string[];
  readonly #bounds: CallBounds;
  #attempts = 0;
  /** Answers 423 and 429, which do not count against maxAttempts. */
  #notCounted = 0;
  /** Answers 429. */
  #limited = 0;
  #lastError: NeonError | undefined;
  #anyActed = false;

  constructor(o: Resolved, spec: CallSpec<T>) {
    this.#o = o;
    this.#spec = spec;
    this.#method = spec.method;
    this.#path = requestPath(spec);
    this.#routeKey = `${spec.method} ${spec.route}`;
    this.#bodyText = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    this.#secrets = [o.apiKey, ...collectSecrets(spec.body)];
    rememberSecrets(this.#secrets);
    this.#bounds = new CallBounds(o, spec.deadlineMs);
  }

  async run(): Promise<T> {
    this.#bounds.arm();
    try {
      for (;;) {
        const paced = await this.#pace();
        this.#attempts++;
        const attempt = {
          tag: `${this.#method} ${this.#path} attempt ${this.#attempts}/${this.#o.retry.maxAttempts} (request id ${this.#requestId}${paced > 0 ? `, paced ${paced} ms` : ""})`,
          t0: this.#o.clock.now(),
        };
        let res: AttemptResponse;
        try {
          res = await this.#send();
        } catch (e) {
          await this.#afterNetworkError(e, attempt);
          continue;
        }
        if (res.status !== 429) this.#o.limiter?.succeeded();
        if (res.status >= 200 && res.status < 300) return this.#success(res, attempt);
        await this.#afterFailedAnswer(res, attempt);
      }
    } finally {
      this.#bounds.stop();
    }
  }

  #lastStatus(): number | undefined {
    return this.#lastError instanceof NeonApiError ? this.#lastError.status : undefined;
  }

  /** Time that runs out while the project answers 423 is reported as the lock it is. */
  #timeout(mayHaveActed = false, why: "deadline" | "rate" = "deadline"): NeonTimeoutError {
    const lastError = this.#lastError;
    return new NeonTimeoutError({
      method: this.#method,
      path: this.#path,
      attempts: this.#attempts,
      deadlineMs: this.#bounds.deadlineMs,
      requestId: lastRequestId(lastError) ?? this.#requestId,
      mayHaveActed: this.#anyActed || mayHaveActed,
      ...(lastError ? { lastError } : {}),
      ...(why === "deadline" && this.#lastStatus() === 423
        ? { locked: { waitedMs: this.#o.clock.now() - this.#bounds.started, budgetMs: this.#bounds.lockBudgetMs } }
        : {}),
      ...(why === "rate" ? { rateLimited: { waitedMs: this.#bounds.rateWaitedMs, budgetMs: this.#bounds.rateBudgetMs } } : {}),
    });
  }

  #log(msg: string): void {
    this.#o.logger?.debug(redactText(msg, this.#secrets));
  }

  #observe(kind: WaitKind, waitMs: number, leftMs: number): void {
    if (!this.#o.onWait) return;
    try {
      const [waitedMs, attempt] = [this.#o.clock.now() - this.#bounds.started, { next: this.#attempts + 1, of: this.#o.retry.maxAttempts + this.#notCounted }];
      this.#o.onWait({ kind, method: this.#method, path: this.#path, requestId: this.#requestId, waitMs, waitedMs, leftMs: Math.max(0, leftMs), attempt });
    } catch {
      // An observer's failure is not the call's.
    }
  }

  /**
   * Waits for the rate limit (a token, or a 429's Retry-After) against the rate budget. The
   * deadline of other failures is paused meanwhile and moved back by the time spent. With
   * `lastChance` (a token wait), the end of the budget lets one last attempt go out.
   */
  async #rateWait(kind: "pacing" | "rate-limit", expectedMs: number, wait: (signal: AbortSignal) => Promise<void>, lastChance = false): Promise<void> {
    const left = this.#bounds.rateLeftMs();
    if (left <= 0) {
      this.#log("the rate-limit budget is used up");
      throw this.#timeout(false, "rate");
    }
    this.#observe(kind, Math.min(expectedMs, left), left);
    const { failed, budgetEnded } = await this.#bounds.rateWait(wait);
    // The budget ran out waiting for a token: as with a lock, the last attempt goes out as it ends.
    if (failed && !(lastChance && budgetEnded)) throw this.#timeout(false, "rate");
    this.#bounds.arm();
  }

  /** Takes a token of the limiter, if the client has one; answers how long that took. */
  async #pace(): Promise<number> {
    const limiter = this.#o.limiter;
    if (!limiter) return 0;
    const clock = this.#o.clock;
    // A retry, or a batch engine steps wait on, is already under way: it goes first.
    const urgent = this.#attempts > 0 || this.#spec.urgent === true;
    const expected = limiter.expectedWaitMs(urgent);
    const before = clock.now();
    if (expected === 0) {
      // A token is there; at most a slow start's round trip or a route's second stands between.
      try {
        await limiter.acquire(this.#routeKey, this.#bounds.signal, urgent);
      } catch {
        throw this.#timeout(false);
      }
    }
    else await this.#rateWait(this.#lastStatus() === 429 ? "rate-limit" : "pacing", expected, (signal) => limiter.acquire(this.#routeKey, signal, urgent), true);
    return clock.now() - before;
  }

  #send(): Promise<AttemptResponse> {
    const o = this.#o;
    const headers: Record<string, string> = { authorization: `Bearer ${o.apiKey}`, accept: "application/json", "user-agent": o.userAgent, "x-request-id": this.#requestId };
    if (this.#bodyText !== undefined) headers["content-type"] = "application/json";
    if (this.#method !== "GET") o.beforeWrite?.();
    return sendAttempt(o.dispatcher, {
      origin: o.origin,
      path: o.prefix + this.#path,
      method: this.#method,
      headers,
      ...(this.#bodyText === undefined ? {} : { body: this.#bodyText }),
      headersTimeoutMs: this.#o.timeouts.headers,
      bodyTimeoutMs: this.#o.timeouts.body,
      signal: this.#bounds.signal,
    });
  }

  /** A 2xx: checked against the endpoint's success statuses and its schema. An error answer's request id is apiError's to read. */
  #success(res: AttemptResponse, { tag, t0 }: Attempt): T {
    const requestId = cleanRequestId(headerValue(res.headers["x-neon-ret-request-id"]));
    const method = this.#method;
    const spec = this.#spec;
    this.#log(`${tag}: ${res.status} in ${this.#o.clock.now() - t0} ms${requestId ? ` (server request id ${requestId})` : ""}`);
    if (spec.success !== undefined && !spec.success.includes(res.status)) {
      const issue = `(status): ${res.status} is not a success status of ${method} ${spec.route} (expected ${spec.success.join(" or ")})`;
      throw new NeonResponseError({ method, path: this.#path, attempts: this.#attempts, status: res.status, issues: [issue], requestId: requestId ?? this.#requestId });
    }
    if (!spec.schema) return undefined as T;
    const parsed = parseAnswer(spec.schema, res, { method, path: this.#path, attempts: this.#attempts, requestId: requestId ?? this.#requestId });
    rememberSecrets(collectSecrets(parsed));
    return parsed;
  }

  /** No answer: thrown, or retried after a backoff when the policy allows. */
  async #afterNetworkError(e: unknown, { tag, t0 }: Attempt): Promise<void> {
    if (!(e instanceof AttemptNetworkError)) throw e;
    this.#o.limiter?.succeeded();
    const code = errorCode(e.original);
    const acted = this.#method !== "GET" && networkMayHaveActed(code, e.requestSent);
    if (e.aborted && this.#bounds.signal.aborted) {
      this.#log(`${tag}: deadline reached in flight after ${this.#o.clock.now() - t0} ms`);
      throw this.#timeout(acted);
    }
    this.#anyActed ||= acted;
    const detail = redactText(`${code ? `${code}: ` : ""}${serverText(e.message, 300)}`, this.#secrets);
    const err = this.#networkError(e, code, detail);
    this.#log(`${tag}: network error ${detail}${e.requestSent ? " after the request was sent" : " before the request was sent"}`);
    if (!shouldRetry(this.#method, { kind: "network", mayHaveActed: acted, ...(code ? { code } : {}) })) throw err;
    if (isConnectFailure(code) && this.#attempts >= CONNECT_ATTEMPTS) throw err;
    this.#lastError = err;
    await this.#backoff(undefined);
  }

  #networkError(e: AttemptNetworkError, code: string | undefined, detail: string): NeonNetworkError {
    const permanent = isPermanentNetworkCode(code);
    return new NeonNetworkError({
      method: this.#method,
      path: this.#path,
      attempts: this.#attempts,
      // A request that never left this machine has no id anyone could look up.
      ...(e.requestSent ? { requestId: this.#requestId } : {}),
      detail: permanent ? `${detail}; ${remedy(this.#o, code!)}` : isConnectFailure(code) ? `${detail}${this.#o.urlHint}` : detail,
      mayHaveActed: this.#anyActed,
      retryable: !permanent,
      ...(code ? { errorCode: code } : {}),
      cause: redactedCause(e.original, this.#secrets),
    });
  }

  /** An error answer: thrown, or waited out by its kind (rate limit, lock, other) when the policy allows. */
  async #afterFailedAnswer(res: AttemptResponse, attempt: Attempt): Promise<void> {
    const at = { method: this.#method, path: this.#path, attempts: this.#attempts, requestId: this.#requestId };
    const err = apiError(this.#o, res, at, this.#secrets, this.#anyActed);
    this.#anyActed = err.mayHaveActed;
    this.#log(`${attempt.tag}: ${res.status} in ${this.#o.clock.now() - attempt.t0} ms${err.neonMessage ? ` (${err.neonMessage})` : ""}`);
    if (!shouldRetry(this.#method, { kind: "status", status: res.status })) throw err;
    this.#lastError = err;
    const retryAfter = parseRetryAfter(res.headers["retry-after"], this.#o.clock.now(), this.#o.retry.maxRetryAfterMs);
    if (res.status === 429) await this.#afterRateLimited(retryAfter, attempt);
    else if (res.status === 423) await this.#afterLocked(retryAfter);
    else await this.#backoff(retryAfter);
  }

  /**
   * Waited out against the rate budget, not the attempts: the limiter (slowed down, and drained)
   * spaces the retry; a Retry-After, when the service sends one, comes first.
   */
  async #afterRateLimited(retryAfter: number | undefined, { tag, t0 }: Attempt): Promise<void> {
    this.#notCounted++;
    this.#limited++;
    this.#o.limiter?.drain(this.#routeKey, t0);
    const wait = retryAfter ?? (this.#o.limiter ? 0 : backoffDelay(this.#limited, this.#o.random, this.#o.retry));
    this.#log(`${tag}: rate limited; retrying ${wait > 0 ? `in ${wait} ms${retryAfter !== undefined ? " (Retry-After)" : ""}` : "at the next token"}`);
    if (wait > 0) await this.#rateWait("rate-limit", wait, (signal) => this.#o.clock.sleep(wait, signal));
    else if (this.#bounds.rateLeftMs() <= 0) throw this.#timeout(false, "rate");
  }

  async #afterLocked(retryAfter: number | undefined): Promise<void> {
    this.#notCounted++;
    this.#bounds.armLock();
    await this.#lockWait(retryAfter);
  }

  /** Waits before the next counted attempt, or throws when attempts or the deadline have run out. */
  async #backoff(retryAfterMs: number | undefined): Promise<void> {
    const counted = this.#attempts - this.#notCounted;
    if (counted >= this.#o.retry.maxAttempts) {
      this.#log(`giving up after ${counted} attempts`);
      throw this.#lastError!;
    }
    const delay = retryAfterMs ?? backoffDelay(counted, this.#o.random, this.#o.retry);
    if (this.#bounds.passesDeadline(delay)) {
      this.#log(`next attempt in ${delay} ms would pass the deadline`);
      throw this.#timeout();
    }
    await this.#sleepBeforeRetry(delay, retryAfterMs);
  }

  /** A lock is waited for to the end of its budget: the last attempt goes out when it ends. */
  async #lockWait(retryAfterMs: number | undefined): Promise<void> {
    const delay = retryAfterMs ?? backoffDelay(this.#attempts, this.#o.random, this.#o.retry);
    const left = this.#bounds.lockLeftMs();
    if (left <= 0) {
      this.#log("the lock budget is used up");
      throw this.#timeout();
    }
    this.#observe("lock", Math.min(delay, left), left);
    await this.#sleepBeforeRetry(Math.min(delay, left), retryAfterMs);
  }

  async #sleepBeforeRetry(delay: number, retryAfterMs: number | undefined): Promise<void> {
    this.#log(`retrying in ${delay} ms${retryAfterMs !== undefined ? " (Retry-After)" : ""}`);
    try {
      await this.#o.clock.sleep(delay, this.#bounds.signal);
    } catch {
      throw this.#timeout();
    }
  }
}

/** The request's path: the route with its parameters filled in, then the query. */
function requestPath(spec: CallSpec<unknown>): string {
  let path = spec.route.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = spec.params?.[name];
    if (v === undefined) throw new Error(`internal: missing path parameter ${name}`);
    return encodeURIComponent(pathParam(name, v));
  });
  if (path === "") path = "/";
  return path + (spec.query ?? "");
}

/** A value that can stand as one path segment; `.` or `..` would send the request elsewhere. */
function pathParam(name: string, v: string): string {
  const problem = pathSegmentProblem(v);
  if (problem) throw new NeonConfigError(`${name} ${problem}; nothing was sent`);
  return v;
}
