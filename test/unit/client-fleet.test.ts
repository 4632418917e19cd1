/**
 * Many processes on one key (issue 27): each client below stands for one provider process (its own
 * limiter, as a separate key gives it here), all spending one account's budget at the service.
 * On the fake clock: the rate budget's edge, Retry-After, and the rate adaptation (AIMD).
 */
import { MockAgent, type Dispatcher } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock";
import { createClient, NeonTimeoutError, RateLimiter, type ClientOptions, type NeonClient, type WaitEvent } from "../../src/client";
import { DEFAULT_PACING } from "../../src/client/pacing";

const ORIGIN = "https://api.test";
const PER_MINUTE = 700;
const BURST = 40;

let agent: MockAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

/** The service's account bucket (40, 700/min), shared by every key of the test. */
function account(clock: ManualClock) {
  let tokens = BURST;
  let last = clock.now();
  return {
    take(): boolean {
      const now = clock.now();
      tokens = Math.min(BURST, tokens + ((now - last) * PER_MINUTE) / 60_000);
      last = now;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}

function fleet(reply: (key: string, at: number) => { status: number; headers?: Record<string, string> }) {
  const mock = new MockAgent();
  agent = mock;
  mock.disableNetConnect();
  const clock = new ManualClock();
  const answers: { key: string; status: number; at: number }[] = [];
  mock
    .get(ORIGIN)
    .intercept({ path: () => true, method: () => true })
    .reply((o: { headers?: unknown }) => {
      const h = o.headers as Record<string, string>;
      const key = String(h.authorization ?? h.Authorization).slice("Bearer ".length);
      const r = reply(key, clock.now());
      answers.push({ key, status: r.status, at: clock.now() });
      return { statusCode: r.status, data: r.status === 200 ? JSON.stringify({ domains: [] }) : "", responseOptions: { headers: r.headers ?? {} } };
    })
    .persist();
  let seed = 1;
  // A fixed sequence, so that the jitter differs between processes but every run is the same.
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  const make = (key: string, opts: Partial<ClientOptions> = {}): NeonClient =>
    createClient({ apiKey: key, baseUrl: `${ORIGIN}/api/v2`, clock, dispatcher: mock as Dispatcher, random, ...opts });
  return { clock, answers, make };
}

describe("a 429 is waited out against the rate-limit budget", () => {
  it("does not spend the attempts: 429s for 200 s, then an answer, with a 10-attempt limit and a 120 s deadline", async () => {
    const { clock, answers, make } = fleet((_k, at) => ({ status: at - t0 < 200_000 ? 429 : 200 }));
    const t0 = clock.now();
    const client = make("k-1", { pacing: false });
    expect(await clock.run(client.listDomains("p-1"))).toEqual([]);
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThan(20);
    expect(answers.at(-1)!.at - t0).toBeGreaterThanOrEqual(200_000);
    // Backoff grows to its cap (10 s, half of it with random() = 0.5 on average): no attempt sooner than needed.
    expect(answers.at(-1)!.at - t0).toBeLessThan(212_000);
  });

  it("gives up exactly at the budget, naming the setting; the deadline of other failures does not cut it short", async () => {
    const { clock, answers, make } = fleet(() => ({ status: 429 }));
    const t0 = clock.now();
    const client = make("k-1", { pacing: false, rateLimitTimeoutMs: 300_000 });
    let e: unknown;
    await clock.run(client.listDomains("p-1")).catch((x: unknown) => (e = x));
    expect(e).toBeInstanceOf(NeonTimeoutError);
    const err = e as NeonTimeoutError;
    expect(clock.now() - t0).toBe(300_000);
    expect(err.rateLimitedForMs).toBe(300_000);
    expect(err.lockedForMs).toBeUndefined();
    expect(err.message).toMatch(
      new RegExp(
        "^rate limited: waited 300 s for Neon's rate limit \\(the account's 700 requests a minute, shared by every process and the " +
          `console on its keys\\), up to the budget of 300 s \\(neon-auth:rateLimitTimeoutSeconds\\), for GET /projects/p-1/auth/domains; ` +
          `gave up after ${answers.length} attempts \\(request id [0-9a-f-]{36}\\); last error: 429 from GET /projects/p-1/auth/domains`,
      ),
    );
  });

  it("the budget's edge: with pacing, the last attempt goes out as the budget ends; 429s that stop 1 ms before get their answer", async () => {
    const budget = 60_000;
    const { clock, answers, make } = fleet((_k, at) => ({ status: at - t0 < budget - 1 ? 429 : 200 }));
    const t0 = clock.now();
    const client = make("k-1", { rateLimitTimeoutMs: budget });
    expect(await clock.run(client.listDomains("p-1"))).toEqual([]);
    // The last wait was cut to what was left of the budget, and the attempt at its end got through.
    expect(answers.at(-1)).toMatchObject({ status: 200 });
    expect(answers.at(-1)!.at - t0).toBeLessThanOrEqual(budget);
  });

  it("time waited for the rate limit moves the deadline back: 503s after 200 s of 429s still get their attempts", async () => {
    const { clock, answers, make } = fleet((_k, at) => ({ status: at - t0 < 200_000 ? 429 : answers.filter((a) => a.status === 503).length < 3 ? 503 : 200 }));
    const t0 = clock.now();
    const client = make("k-1", { pacing: false, maxAttempts: 4 });
    expect(await clock.run(client.listDomains("p-1"))).toEqual([]);
    expect(answers.filter((a) => a.status === 503)).toHaveLength(3);
  });

  it.each([false, undefined] as const)("honours Retry-After when present (pacing %s: exactly without it, at least with it)", async (pacing) => {
    let n = 0;
    const { clock, answers, make } = fleet(() => (n++ === 0 ? { status: 429, headers: { "retry-after": "7" } } : { status: 200 }));
    const client = make("k-1", pacing === false ? { pacing } : {});
    await clock.run(client.listDomains("p-1"));
    expect(answers.map((a) => a.status)).toEqual([429, 200]);
    const gap = answers[1]!.at - answers[0]!.at;
    if (pacing === false) expect(gap).toBe(7_000);
    else expect(gap).toBeGreaterThanOrEqual(7_000);
  });

  it("tells the observer of each wait: its kind, how long, and how much budget is left", async () => {
    let n = 0;
    const waits: WaitEvent[] = [];
    const { clock, make } = fleet(() => (n++ === 0 ? { status: 429, headers: { "retry-after": "3" } } : { status: 200 }));
    const client = make("k-1", { pacing: false, rateLimitTimeoutMs: 100_000, onWait: (w) => waits.push(w) });
    await clock.run(client.listDomains("p-1"));
    expect(waits).toEqual([
      { kind: "rate-limit", method: "GET", path: "/projects/p-1/auth/domains", requestId: expect.stringMatching(/^[0-9a-f-]{36}$/), waitMs: 3_000, waitedMs: 0, leftMs: 100_000, attempt: { next: 2, of: 11 } },
    ]);
  });
});

/**
 * K processes start 60 requests each, 250 ms apart, as K stacks started together do; the service
 * refuses what is over its account bucket. Returns the wall time against the shared floor, the
 * share of 429s among the answers, and each process's rate at the end.
 */
async function run(k: number, n = 60, pacing: ClientOptions["pacing"] = {}) {
  const { clock, answers, make } = fleet(() => ({ status: server.take() ? 200 : 429 }));
  const server = account(clock);
  const t0 = clock.now();
  const clients = Array.from({ length: k }, (_, i) => make(`k-${i}`, { pacing }));
  const all = clients.map(async (c, i) => {
    await clock.sleep(250 * i);
    await Promise.all(Array.from({ length: n }, () => c.listDomains("p-1")));
  });
  await clock.run(Promise.all(all));
  const ok = answers.filter((a) => a.status === 200).length;
  const floorMs = (Math.max(0, k * n - BURST) * 60_000) / PER_MINUTE;
  return { ok, wallRatio: (clock.now() - t0) / floorMs, share429: 1 - ok / answers.length, answers };
}

describe("K processes on one key share its rate (AIMD)", () => {
  it("one process alone never meets a 429 and keeps the full rate", async () => {
    const r = await run(1, 200);
    expect(r.ok).toBe(200);
    expect(r.share429).toBe(0);
    expect(r.wallRatio).toBeLessThan(1.03);
  });

  // K = 8 is issue 27's acceptance (1.3 x, 15 %); 429s grow with K (each process meets its own),
  // so at K = 16 only the time and the failures are held to it.
  it.each([
    [4, 0.15],
    [8, 0.15],
    [16, 0.25],
  ])("%i processes: all succeed, within 1.3 x the shared floor, 429s at most %d of the answers", async (k, most429) => {
    const r = await run(k);
    expect(r.ok).toBe(k * 60);
    expect(r.wallRatio).toBeLessThanOrEqual(1.3);
    expect(r.share429).toBeLessThanOrEqual(most429);
  });

  it("without adaptation (pacing as if alone) 8 processes fight: far more 429s", async () => {
    const r = await run(8, 60, { decrease: 0.999999, increase: 0 });
    expect(r.share429).toBeGreaterThan(0.3);
  });

  it("a process that meets 429s slows down, once per episode, and recovers when they stop", async () => {
    const clock = new ManualClock(0);
    const l = new RateLimiter(DEFAULT_PACING, clock, () => 0.5);
    const full = l.ratePerSecond();
    expect(full).toBeCloseTo((700 / 60) * 0.995, 6);
    l.drain("GET /x", 0);
    expect(l.ratePerSecond()).toBeCloseTo(full * 0.6, 6);
    // A 429 for a request sent before that decrease is the same episode.
    l.drain("GET /x", -1);
    expect(l.decreases).toBe(1);
    await clock.advance(1);
    l.drain("GET /x", 1);
    expect(l.ratePerSecond()).toBeCloseTo(full * 0.36, 6);
    // Then each answer adds increase/rate: 0.1 req/s per second of sending, faster after 4 quiet seconds.
    const low = l.ratePerSecond();
    l.succeeded();
    expect(l.ratePerSecond()).toBeCloseTo(low + 0.1 / low, 6);
    await clock.advance(20_000);
    let answers = 0;
    while (l.ratePerSecond() < full) {
      l.succeeded();
      answers++;
    }
    // 37 answers: about 4 s of sending.
    expect(answers).toBe(37);
  });

});
