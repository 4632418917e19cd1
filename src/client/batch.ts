/**
 * Domain deletes travel together. Both API generations take a list of domains in the body of
 * `DELETE …/auth/domains`, while the engine deletes one RedirectDomain per step, several steps at
 * once. Single-domain deletes of one (project, branch, provider) that arrive close together (see
 * BatchOptions) are therefore sent as one request of at most `maxDomains` domains; each caller's
 * promise settles on its own. The waits go through the client's clock.
 *
 * What a failure means for each domain:
 * - A lost answer, a reset, a 5xx, a 423 or a 429 is retried by the attempt loop (transport.ts)
 *   with the same body. Deleting is idempotent (a domain no longer listed is ignored), so a replay
 *   is safe, and the 2xx that ends it says that every domain of the body is gone: no caller is told
 *   "deleted" on anything weaker. When the retries run out, every caller of the batch gets the
 *   error (with its `mayHaveActed`), so the engine keeps those domains and the next run deletes
 *   them; a re-check by listing would only turn some of those failures into successes, at the cost
 *   of a request, on a path where the service is already failing.
 * - Any other 4xx may be the fault of one domain of the body (a 400 for a name the service refuses,
 *   a 404 if it refuses unknown domains), so the batch is split in halves and each half sent again,
 *   down to single domains: one bad domain fails alone, its neighbours succeed, in about
 *   2·log2(n) extra requests. A 404 is never taken as "gone" for a whole batch, since it may name
 *   one domain only.
 */
import type { Clock } from "../clock";
import type { AnyEndpoint } from "../schemas/endpoint";
import { branchEndpoints as B } from "../schemas/endpointsBranch";
import { projectEndpoints as P } from "../schemas/endpointsProject";
import { NeonApiError } from "./errors";
import { isRetryableStatus } from "./retry";

/** The endpoints whose body `{auth_provider, domains: [{domain}]}` is a batch. */
export const BATCHED_ENDPOINTS: ReadonlySet<AnyEndpoint> = new Set<AnyEndpoint>([P.deleteDomains, B.deleteBranchDomains]);

export interface BatchOptions {
  /** A batch leaves once no delete has joined it for this long (plus the engine's pause). Default 100 ms. */
  quietMs: number;
  /** ... or this long after its first delete, whichever comes first. Default 3000 ms. */
  maxWaitMs: number;
  /** Most domains in one request; a full batch leaves at once. Default 50. */
  maxDomains: number;
}

/**
 * How the engine hands over a destroy's deletes (measured with Pulumi 3.259, modelled in
 * test/unit/client-batch.test.ts): it writes its state at each step's start and at its end, one
 * write at a time, first come first served, and runs at most `--parallel` steps. So deletes arrive
 * one write apart (10-50 ms, more on a busy machine), and after an answer to k of them the engine
 * first writes their k ends, then the starts of their successors: a pause of about k writes in
 * which nothing arrives. Hence the rules of a batch's departure:
 * - at once when full, or when every delete the engine lets run at once (the most seen in hand so
 *   far) is waiting or in flight: none can join before an answer;
 * - after a quiet spell long enough for the pause: `quietMs`, plus two writes (an end, a start) for
 *   each step the engine runs and we do not hold, a write being the gap seen between two deletes
 *   of one burst. With nothing more to come (the last batch of a destroy), that is the only cost;
 * - at the latest `maxWaitMs` after its first delete.
 * 50 domains: the service documents no bound, and 50 origins keep the body under 4 KB.
 */
export const DEFAULT_BATCH: BatchOptions = { quietMs: 100, maxWaitMs: 3000, maxDomains: 50 };

export interface DomainsBody {
  auth_provider: string;
  domains: { domain: string }[];
}

/** Sends one checked request (the client's path to the attempt loop). */
export type SendBatch = (endpoint: AnyEndpoint, params: Record<string, string>, body: DomainsBody) => Promise<unknown>;

interface Waiter {
  domain: string;
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface Open {
  endpoint: AnyEndpoint;
  params: Record<string, string>;
  provider: string;
  waiters: Waiter[];
  openedAt: number;
  sent: boolean;
  /** Cancels the pending wait (another delete joined, or the batch is full). */
  wait: AbortController;
}

export class DomainBatcher {
  readonly #open = new Map<string, Open>();
  readonly #clock: Clock;
  readonly #send: SendBatch;
  readonly #o: BatchOptions;
  /** Deletes given to us and not yet settled (each holds one of the engine's steps). */
  #inHand = 0;
  /** The most ever in hand at once. */
  #peak = 0;
  /** The engine's time per state write, as the mean gap between two deletes of one burst (ms). */
  #write = 0;
  #lastArrival = Number.NEGATIVE_INFINITY;

  constructor(clock: Clock, send: SendBatch, options: BatchOptions = DEFAULT_BATCH) {
    this.#clock = clock;
    this.#send = send;
    this.#o = options;
  }

  /** Deletes the body's domains; a single domain may share its request with others. */
  async delete(endpoint: AnyEndpoint, params: Record<string, string>, body: DomainsBody): Promise<void> {
    this.#inHand++;
    const newPeak = this.#inHand > this.#peak;
    if (newPeak) this.#peak = this.#inHand;
    const now = this.#clock.now();
    const gap = now - this.#lastArrival;
    this.#lastArrival = now;
    if (gap < this.#o.quietMs) this.#write = this.#write === 0 ? gap : 0.8 * this.#write + 0.2 * gap;
    try {
      // A caller that already names several domains made its own batch.
      if (body.domains.length !== 1 || this.#o.maxDomains <= 1) {
        await this.#send(endpoint, params, body);
        return;
      }
      await this.#join(endpoint, params, body, newPeak);
    } finally {
      this.#inHand--;
      // One step fewer held: the engine's pause before the next delete grows by its writes.
      for (const [k, o] of this.#open) this.#arm(k, o);
    }
  }

  #join(endpoint: AnyEndpoint, params: Record<string, string>, body: DomainsBody, newPeak: boolean): Promise<void> {
    const domain = body.domains[0]!.domain;
    const key = JSON.stringify([endpoint.name, params, body.auth_provider]);
    return new Promise<void>((resolve, reject) => {
      let open = this.#open.get(key);
      if (!open) {
        open = { endpoint, params, provider: body.auth_provider, waiters: [], openedAt: this.#clock.now(), sent: false, wait: new AbortController() };
        this.#open.set(key, open);
      }
      open.waiters.push({ domain, resolve, reject });
      open.wait.abort();
      if (open.waiters.length >= this.#o.maxDomains) {
        // Closed now, not when a timer gets to run: later arrivals start the next batch.
        this.#open.delete(key);
        this.#flush(key, open);
        return;
      }
      if (!newPeak && this.#inHand >= this.#peak) {
        // All the engine lets run at once is with us: nothing more can join before an answer.
        for (const [k, o] of [...this.#open]) {
          o.wait.abort();
          this.#flush(k, o);
        }
        return;
      }
      this.#arm(key, open);
    });
  }

  /** (Re)starts a batch's wait for its next delete, by the rules above DEFAULT_BATCH. */
  #arm(key: string, open: Open): void {
    open.wait.abort();
    const wait = new AbortController();
    open.wait = wait;
    const notHeld = Math.max(0, this.#peak - this.#inHand);
    const quiet = this.#o.quietMs + 2 * notHeld * this.#write;
    const left = open.openedAt + this.#o.maxWaitMs - this.#clock.now();
    this.#clock.sleep(Math.min(quiet, left), wait.signal).then(
      () => this.#flush(key, open),
      () => undefined,
    );
  }

  #flush(key: string, open: Open): void {
    // A timer that fired just before another delete joined may run after the batch left.
    if (open.sent) return;
    open.sent = true;
    if (this.#open.get(key) === open) this.#open.delete(key);
    void this.#sendPart(open, open.waiters);
  }

  async #sendPart(open: Open, waiters: Waiter[]): Promise<void> {
    try {
      await this.#send(open.endpoint, open.params, { auth_provider: open.provider, domains: waiters.map((w) => ({ domain: w.domain })) });
    } catch (err) {
      if (waiters.length > 1 && mayBeOneDomain(err)) {
        const half = Math.ceil(waiters.length / 2);
        await Promise.all([this.#sendPart(open, waiters.slice(0, half)), this.#sendPart(open, waiters.slice(half))]);
        return;
      }
      for (const w of waiters) w.reject(err);
      return;
    }
    for (const w of waiters) w.resolve();
  }
}

/** An answer about the body (some 4xx), which one domain of it may have caused. */
function mayBeOneDomain(err: unknown): boolean {
  return err instanceof NeonApiError && err.status >= 400 && err.status < 500 && !isRetryableStatus(err.status) && err.status !== 401 && err.status !== 403;
}
