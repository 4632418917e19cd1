/**
 * The time bounds of one call (transport.ts): its deadline; the lock budget it may live to once the
 * project answers 423; and the rate-limit budget, whose waits move the other two back by the time
 * they take, so that a fleet sharing one key waits its turn instead of failing. One timer aborts
 * `signal` when the call's time is up.
 */
import type { Resolved } from "./options";

class DeadlineReached extends Error {
  override readonly name = "DeadlineReached";
}

export class CallBounds {
  readonly started: number;
  readonly deadlineMs: number;
  /**
   * A locked project is waited for against its own time budget, not an attempt count (an
   * operation wait's own deadline bounds its polls, locked or not).
   */
  readonly lockBudgetMs: number;
  readonly rateBudgetMs: number;
  rateWaitedMs = 0;
  readonly #o: Pick<Resolved, "clock" | "timeouts">;
  #deadlineAt: number;
  #lockedUntil: number;
  /**
   * Once the project answers 423, the call may live to the end of the lock budget; its last
   * attempt goes out as the budget ends and gets the time of one answer.
   */
  #lockArmed: boolean;
  readonly #deadline = new AbortController();
  #stopTimer = new AbortController();

  /** `deadlineMs`: the call's own deadline (an operation wait's), else the client's. */
  constructor(o: Pick<Resolved, "clock" | "timeouts" | "deadlineMs" | "lockTimeoutMs" | "rateLimitTimeoutMs">, deadlineMs: number | undefined) {
    this.#o = o;
    this.started = o.clock.now();
    this.deadlineMs = deadlineMs ?? o.deadlineMs;
    this.rateBudgetMs = o.rateLimitTimeoutMs;
    this.#deadlineAt = this.started + this.deadlineMs;
    this.lockBudgetMs = deadlineMs === undefined ? o.lockTimeoutMs : this.deadlineMs;
    this.#lockedUntil = this.started + this.lockBudgetMs;
    this.#lockArmed = deadlineMs !== undefined || this.lockBudgetMs < this.deadlineMs;
  }

  /** Aborted when the call's time is up. */
  get signal(): AbortSignal {
    return this.#deadline.signal;
  }

  /** (Re)starts the timer that aborts the call at its deadline, or at the lock budget's end once armed. */
  arm(): void {
    const clock = this.#o.clock;
    this.#stopTimer.abort();
    this.#stopTimer = new AbortController();
    const at = this.#lockArmed ? Math.max(this.#deadlineAt, this.#lockedUntil + this.#o.timeouts.headers) : this.#deadlineAt;
    clock.sleep(at - clock.now(), this.#stopTimer.signal).then(
      () => this.#deadline.abort(new DeadlineReached("deadline")),
      () => undefined,
    );
  }

  /** The project answered 423: from now on the call may live to the end of the lock budget. */
  armLock(): void {
    if (this.#lockArmed) return;
    this.#lockArmed = true;
    this.arm();
  }

  /** Stops the timer for good (the call is over). */
  stop(): void {
    this.#stopTimer.abort();
  }

  /** A wait of `delayMs` from now would end at or past the deadline. */
  passesDeadline(delayMs: number): boolean {
    return this.#o.clock.now() + delayMs >= this.#deadlineAt;
  }

  lockLeftMs(): number {
    return this.#lockedUntil - this.#o.clock.now();
  }

  rateLeftMs(): number {
    return this.rateBudgetMs - this.rateWaitedMs;
  }

  /**
   * Runs a wait for the rate limit against what is left of its budget, the deadline paused meanwhile
   * and then moved back (with the lock budget's end) by the time spent. Answers whether the wait
   * failed, and whether that was the budget running out.
   */
  async rateWait(wait: (signal: AbortSignal) => Promise<void>): Promise<{ failed: boolean; budgetEnded: boolean }> {
    const clock = this.#o.clock;
    this.#stopTimer.abort();
    this.#stopTimer = new AbortController();
    const budget = new AbortController();
    clock.sleep(this.rateLeftMs(), this.#stopTimer.signal).then(
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
    this.rateWaitedMs += spent;
    this.#deadlineAt += spent;
    this.#lockedUntil += spent;
    return { failed, budgetEnded: budget.signal.aborted };
  }
}
