/**
 * The one clock of the package. Every wait, timeout and timestamp goes through a Clock so that
 * tests can run on fake time (vi.useFakeTimers drives `systemClock` too, since it defers to the
 * global timers at call time).
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` milliseconds; rejects with the signal's reason if aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, Math.max(0, ms));
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

/**
 * A Clock whose time moves only when told to: for tests and simulations. `run(promise)` advances
 * time to each next timer whenever nothing else can happen, until the promise settles, so code full
 * of waits runs instantly and deterministically.
 */
interface Timer {
  at: number;
  seq: number;
  resolve: () => void;
}

export class ManualClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(startMs = 1_700_000_000_000) {
    this.t = startMs;
  }

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer: Timer = {
        at: this.t + Math.max(0, ms),
        seq: this.seq++,
        resolve: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.timers = this.timers.filter((x) => x !== timer);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.timers.push(timer);
    });
  }

  /** Number of pending sleeps. */
  pending(): number {
    return this.timers.length;
  }

  /** Lets queued I/O callbacks and promise chains run (real event-loop turns, no time passes). */
  async settle(turns = 20): Promise<void> {
    for (let i = 0; i < turns; i++) await new Promise<void>((r) => setImmediate(r));
  }

  /** Fires the earliest timer(s); returns false when there is none. */
  private fireNext(): boolean {
    if (this.timers.length === 0) return false;
    this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const next = this.timers[0]!;
    this.t = Math.max(this.t, next.at);
    const due = this.timers.filter((x) => x.at <= this.t);
    this.timers = this.timers.filter((x) => x.at > this.t);
    for (const d of due) d.resolve();
    return true;
  }

  /** Advances time by `ms`, firing due timers in order. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await this.settle();
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.fireNext();
    }
    this.t = end;
    await this.settle();
  }

  /**
   * Settles `p`, jumping time forward to the next timer whenever everything else is idle.
   * Throws if `p` can never settle (no timers left) or after `maxMs` of virtual time.
   */
  async run<T>(p: Promise<T>, maxMs = 24 * 3600_000): Promise<T> {
    let done = false;
    let value: T | undefined;
    let error: unknown;
    let failed = false;
    p.then(
      (v) => {
        done = true;
        value = v;
      },
      (e: unknown) => {
        done = true;
        failed = true;
        error = e;
      },
    );
    const limit = this.t + maxMs;
    for (;;) {
      await this.settle();
      if (done) break;
      if (this.t > limit) throw new Error(`ManualClock.run: not settled after ${maxMs} ms of virtual time`);
      if (!this.fireNext()) {
        await this.settle(50);
        if (done) break;
        throw new Error("ManualClock.run: promise cannot settle (no pending timers)");
      }
    }
    if (failed) throw error;
    return value as T;
  }
}
