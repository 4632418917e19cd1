/**
 * The attempt loop every call goes through: pacing, one X-Request-ID per call, the retry policy of
 * retry.ts against a deadline (and a separate budget while the project answers 423), and errors of
 * the one hierarchy of errors.ts, with secrets redacted.
 */
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { pathSegmentProblem } from "../schemas";
import { NeonApiError, NeonConfigError, NeonError, NeonNetworkError, NeonResponseError, NeonTimeoutError, type HttpMethod } from "./errors";
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

class DeadlineReached extends Error {
  override readonly name = "DeadlineReached";
}

export class Transport {
  readonly #o: Resolved;

  constructor(resolved: Resolved) {
    this.#o = resolved;
  }

  async call<T>(spec: CallSpec<T>): Promise<T> {
    const clock = this.#o.clock;
    const method = spec.method;
    let path = spec.route.replace(/\{(\w+)\}/g, (_, name: string) => {
      const v = spec.params?.[name];
      if (v === undefined) throw new Error(`internal: missing path parameter ${name}`);
      return encodeURIComponent(pathParam(name, v));
    });
    if (path === "") path = "/";
    path += spec.query ?? "";
    const routeKey = `${method} ${spec.route}`;
    // One X-Request-ID per call, reused by every attempt of that call, so the service's logs tie the
    // retries of one call together. Errors report the service's own id when it sends one.
    const ourRequestId = randomUUID();
    const bodyText = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const secrets = [this.#o.apiKey, ...collectSecrets(spec.body)];
    rememberSecrets(secrets);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#o.apiKey}`,
      accept: "application/json",
      "user-agent": this.#o.userAgent,
      "x-request-id": ourRequestId,
    };
    if (bodyText !== undefined) headers["content-type"] = "application/json";

    const started = clock.now();
    const deadlineMs = spec.deadlineMs ?? this.#o.deadlineMs;
    // Time spent waiting for the rate limit (pacing, 429s) is charged to its own budget and moves
    // the other bounds back by as much: a fleet sharing one key waits its turn instead of failing.
    const rateBudgetMs = this.#o.rateLimitTimeoutMs;
    let rateWaitedMs = 0;
    let deadlineAt = started + deadlineMs;
    // A locked project is waited for against its own time budget, not an attempt count (an
    // operation wait's own deadline bounds its polls, locked or not).
    const lockBudgetMs = spec.deadlineMs === undefined ? this.#o.lockTimeoutMs : deadlineMs;
    let lockedUntil = started + lockBudgetMs;
    const deadline = new AbortController();
    let stopTimer = new AbortController();
    // Once the project answers 423, the call may live to the end of the lock budget; its last
    // attempt goes out as the budget ends and gets the time of one answer.
    let lockArmed = spec.deadlineMs !== undefined || lockBudgetMs < deadlineMs;
    const armDeadline = () => {
      stopTimer.abort();
      stopTimer = new AbortController();
      const at = lockArmed ? Math.max(deadlineAt, lockedUntil + this.#o.timeouts.headers) : deadlineAt;
      clock.sleep(at - clock.now(), stopTimer.signal).then(
        () => deadline.abort(new DeadlineReached("deadline")),
        () => undefined,
      );
    };
    armDeadline();

    let attempts = 0;
    /** Answers 423 and 429, which do not count against maxAttempts. */
    let notCounted = 0;
    /** Answers 429. */
    let limited = 0;
    let lastError: NeonError | undefined;
    let anyActed = false;
    const lastStatus = () => (lastError instanceof NeonApiError ? lastError.status : undefined);
    // Time that runs out while the project answers 423 is reported as the lock it is.
    const timeout = (mayHaveActed: boolean, why: "deadline" | "rate" = "deadline") =>
      new NeonTimeoutError({
        method,
        path,
        attempts,
        deadlineMs,
        requestId: lastRequestId(lastError) ?? ourRequestId,
        mayHaveActed: anyActed || mayHaveActed,
        ...(lastError ? { lastError } : {}),
        ...(why === "deadline" && lastStatus() === 423 ? { locked: { waitedMs: clock.now() - started, budgetMs: lockBudgetMs } } : {}),
        ...(why === "rate" ? { rateLimited: { waitedMs: rateWaitedMs, budgetMs: rateBudgetMs } } : {}),
      });
    const log = (msg: string) => this.#o.logger?.debug(redactText(msg, secrets));
    const observe = (kind: WaitKind, waitMs: number, leftMs: number) => {
      if (!this.#o.onWait) return;
      try {
        this.#o.onWait({
          kind,
          method,
          path,
          requestId: ourRequestId,
          waitMs,
          waitedMs: clock.now() - started,
          leftMs: Math.max(0, leftMs),
          attempt: { next: attempts + 1, of: this.#o.retry.maxAttempts + notCounted },
        });
      } catch {
        // An observer's failure is not the call's.
      }
    };
    /**
     * Waits for the rate limit (a token, or a 429's Retry-After) against the rate budget. The
     * deadline of other failures is paused meanwhile and moved back by the time spent. With
     * `lastChance` (a token wait), the end of the budget lets one last attempt go out.
     */
    const rateWait = async (kind: "pacing" | "rate-limit", expectedMs: number, wait: (signal: AbortSignal) => Promise<void>, lastChance = false) => {
      const left = rateBudgetMs - rateWaitedMs;
      if (left <= 0) {
        log("the rate-limit budget is used up");
        throw timeout(false, "rate");
      }
      observe(kind, Math.min(expectedMs, left), left);
      stopTimer.abort();
      stopTimer = new AbortController();
      const budget = new AbortController();
      clock.sleep(left, stopTimer.signal).then(
        () => budget.abort(new DeadlineReached("rate-limit budget")),
        () => undefined,
      );
      const t = clock.now();
      let failed = false;
      try {
        await wait(budget.signal);
      } catch {
        failed = true;
      }
      const spent = clock.now() - t;
      rateWaitedMs += spent;
      deadlineAt += spent;
      lockedUntil += spent;
      // The budget ran out waiting for a token: as with a lock, the last attempt goes out as it ends.
      if (failed && !(lastChance && budget.signal.aborted)) throw timeout(false, "rate");
      armDeadline();
    };

    try {
      for (;;) {
        let paced = 0;
        if (this.#o.limiter) {
          const limiter = this.#o.limiter;
          // A retry, or a batch engine steps wait on, is already under way: it goes first.
          const urgent = attempts > 0 || spec.urgent === true;
          const expected = limiter.expectedWaitMs(urgent);
          const before = clock.now();
          if (expected === 0) {
            // A token is there; at most a slow start's round trip or a route's second stands between.
            try {
              await limiter.acquire(routeKey, deadline.signal, urgent);
            } catch {
              throw timeout(false);
            }
          }
          else await rateWait(lastStatus() === 429 ? "rate-limit" : "pacing", expected, (signal) => limiter.acquire(routeKey, signal, urgent), true);
          paced = clock.now() - before;
        }
        attempts++;
        const t0 = clock.now();
        const tag = `${method} ${path} attempt ${attempts}/${this.#o.retry.maxAttempts} (request id ${ourRequestId}${paced > 0 ? `, paced ${paced} ms` : ""})`;

        let res: AttemptResponse;
        try {
          res = await sendAttempt(this.#o.dispatcher, {
            origin: this.#o.origin,
            path: this.#o.prefix + path,
            method,
            headers,
            ...(bodyText === undefined ? {} : { body: bodyText }),
            headersTimeoutMs: this.#o.timeouts.headers,
            bodyTimeoutMs: this.#o.timeouts.body,
            signal: deadline.signal,
          });
        } catch (e) {
          if (!(e instanceof AttemptNetworkError)) throw e;
          this.#o.limiter?.succeeded();
          const code = errorCode(e.original);
          const acted = method !== "GET" && networkMayHaveActed(code, e.requestSent);
          if (e.aborted && deadline.signal.aborted) {
            log(`${tag}: deadline reached in flight after ${clock.now() - t0} ms`);
            throw timeout(acted);
          }
          anyActed ||= acted;
          const permanent = isPermanentNetworkCode(code);
          const cannotConnect = isConnectFailure(code);
          const detail = redactText(`${code ? `${code}: ` : ""}${serverText(e.message, 300)}`, secrets);
          const err = new NeonNetworkError({
            method,
            path,
            attempts,
            // A request that never left this machine has no id anyone could look up.
            ...(e.requestSent ? { requestId: ourRequestId } : {}),
            detail: permanent ? `${detail}; ${remedy(this.#o, code!)}` : cannotConnect ? `${detail}${this.#o.urlHint}` : detail,
            mayHaveActed: anyActed,
            retryable: !permanent,
            ...(code ? { errorCode: code } : {}),
            cause: redactedCause(e.original, secrets),
          });
          log(`${tag}: network error ${detail}${e.requestSent ? " after the request was sent" : " before the request was sent"}`);
          if (!shouldRetry(method, { kind: "network", mayHaveActed: acted, ...(code ? { code } : {}) })) throw err;
          if (cannotConnect && attempts >= CONNECT_ATTEMPTS) throw err;
          lastError = err;
          await this.#pause(attempts - notCounted, undefined, deadlineAt, deadline.signal, err, log, () => timeout(false));
          continue;
        }

        const requestId = cleanRequestId(headerValue(res.headers["x-neon-ret-request-id"]));
        if (res.status !== 429) this.#o.limiter?.succeeded();
        if (res.status >= 200 && res.status < 300) {
          log(`${tag}: ${res.status} in ${clock.now() - t0} ms${requestId ? ` (server request id ${requestId})` : ""}`);
          if (spec.success !== undefined && !spec.success.includes(res.status)) {
            const issue = `(status): ${res.status} is not a success status of ${method} ${spec.route} (expected ${spec.success.join(" or ")})`;
            throw new NeonResponseError({ method, path, attempts, status: res.status, issues: [issue], requestId: requestId ?? ourRequestId });
          }
          if (!spec.schema) return undefined as T;
          const parsed = parseAnswer(spec.schema, res, method, path, attempts, requestId ?? ourRequestId);
          rememberSecrets(collectSecrets(parsed));
          return parsed;
        }

        const err = apiError(this.#o, res, method, path, attempts, requestId, ourRequestId, secrets, anyActed);
        anyActed = err.mayHaveActed;
        log(`${tag}: ${res.status} in ${clock.now() - t0} ms${err.neonMessage ? ` (${err.neonMessage})` : ""}`);
        if (!shouldRetry(method, { kind: "status", status: res.status })) throw err;
        lastError = err;
        const retryAfter = parseRetryAfter(res.headers["retry-after"], clock.now(), this.#o.retry.maxRetryAfterMs);
        if (res.status === 429) {
          // Waited out against the rate budget, not the attempts: the limiter (slowed down, and
          // drained) spaces the retry; a Retry-After, when the service sends one, comes first.
          notCounted++;
          limited++;
          this.#o.limiter?.drain(routeKey, t0);
          const wait = retryAfter ?? (this.#o.limiter ? 0 : backoffDelay(limited, this.#o.random, this.#o.retry));
          log(`${tag}: rate limited; retrying ${wait > 0 ? `in ${wait} ms${retryAfter !== undefined ? " (Retry-After)" : ""}` : "at the next token"}`);
          if (wait > 0) await rateWait("rate-limit", wait, (signal) => clock.sleep(wait, signal));
          else if (rateWaitedMs >= rateBudgetMs) throw timeout(false, "rate");
        } else if (res.status === 423) {
          notCounted++;
          if (!lockArmed) {
            lockArmed = true;
            armDeadline();
          }
          await this.#pause(undefined, retryAfter, lockedUntil, deadline.signal, err, log, () => timeout(false), attempts, observe);
        } else {
          await this.#pause(attempts - notCounted, retryAfter, deadlineAt, deadline.signal, err, log, () => timeout(false));
        }
      }
    } finally {
      stopTimer.abort();
    }
  }

  /**
   * Waits before the next attempt, or throws when attempts or time have run out. `counted` is the
   * number of attempts that count against maxAttempts (undefined: this failure does not count, as
   * for a lock); `backoffStep` the attempt number the backoff grows with.
   */
  async #pause(
    counted: number | undefined,
    retryAfterMs: number | undefined,
    until: number,
    signal: AbortSignal,
    lastError: NeonError,
    log: (m: string) => void,
    timeout: () => NeonTimeoutError,
    backoffStep = counted ?? 1,
    observe?: (kind: WaitKind, waitMs: number, leftMs: number) => void,
  ): Promise<void> {
    if (counted !== undefined && counted >= this.#o.retry.maxAttempts) {
      log(`giving up after ${counted} attempts`);
      throw lastError;
    }
    let delay = retryAfterMs ?? backoffDelay(backoffStep, this.#o.random, this.#o.retry);
    if (counted === undefined) {
      // A lock is waited for to the end of its budget: the last attempt goes out when it ends.
      const left = until - this.#o.clock.now();
      if (left <= 0) {
        log("the lock budget is used up");
        throw timeout();
      }
      delay = Math.min(delay, left);
      observe?.("lock", delay, left);
    } else if (this.#o.clock.now() + delay >= until) {
      log(`next attempt in ${delay} ms would pass the deadline`);
      throw timeout();
    }
    log(`retrying in ${delay} ms${retryAfterMs !== undefined ? " (Retry-After)" : ""}`);
    try {
      await this.#o.clock.sleep(delay, signal);
    } catch {
      throw timeout();
    }
  }

}

/** A value that can stand as one path segment; `.` or `..` would send the request elsewhere. */
function pathParam(name: string, v: string): string {
  const problem = pathSegmentProblem(v);
  if (problem) throw new NeonConfigError(`${name} ${problem}; nothing was sent`);
  return v;
}
