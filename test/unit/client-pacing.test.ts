import { MockAgent, type Dispatcher } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock";
import { createClient, RateLimiter, TokenBucket, type ClientOptions, type NeonClient } from "../../src/client";
import { DEFAULT_PACING } from "../../src/client/pacing";

const ORIGIN = "https://api.test";
const KEY = "napi_pacing_key";
const PER_TOKEN_MS = 60_000 / (700 * 0.995); // ≈ 86.145 ms: the account refill actually used

let agent: MockAgent | undefined;

function setup(reply: (path: string, at: number) => number, opts: Partial<ClientOptions> = {}) {
  const mock = new MockAgent();
  agent = mock;
  mock.disableNetConnect();
  const clock = new ManualClock();
  const arrivals: { path: string; at: number }[] = [];
  mock
    .get(ORIGIN)
    .intercept({ path: () => true, method: () => true })
    .reply((o: { path: string }) => {
      arrivals.push({ path: o.path, at: clock.now() });
      const status = reply(o.path, clock.now());
      return { statusCode: status, data: status === 200 ? JSON.stringify({ domains: [] }) : "" };
    })
    .persist();
  const make = (): NeonClient =>
    createClient({ apiKey: KEY, baseUrl: `${ORIGIN}/api/v2`, clock, dispatcher: mock as Dispatcher, random: () => 0.5, ...opts });
  return { clock, arrivals, make };
}

/** The service's side: buckets of capacity 40 at exactly 700/min (account) and 40/s (route). */
function serverRefusals(times: number[]): number {
  let tokens = 40;
  let last = times[0] ?? 0;
  let refused = 0;
  for (const t of times) {
    tokens = Math.min(40, tokens + ((t - last) * 700) / 60_000);
    last = t;
    if (tokens >= 1) tokens -= 1;
    else refused++;
  }
  return refused;
}

afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

describe("pacing", () => {
  it("100 requests at once: 39 at once, then one per 60/700 s (at 99.5%), never refused by the service's buckets", async () => {
    const { clock, arrivals, make } = setup(() => 200);
    const client = make();
    const t0 = clock.now();
    await clock.run(Promise.all(Array.from({ length: 100 }, () => client.listDomains("p-1"))));
    const at = arrivals.map((a) => a.at - t0);
    expect(at).toHaveLength(100);
    expect(at.slice(0, 39)).toEqual(new Array(39).fill(0));
    for (let i = 39; i < 100; i++) {
      const expected = (i - 38) * PER_TOKEN_MS;
      expect(Math.abs(at[i]! - expected)).toBeLessThanOrEqual(1);
    }
    // Floor of the service for 100 requests: (100 - 40) * 60/700 s = 5142.9 ms; we take 61 tokens at 99.5%.
    expect(at[99]).toBeGreaterThanOrEqual(5142);
    expect(at[99]! / (((100 - 40) * 60_000) / 700)).toBeLessThan(1.03);
    expect(serverRefusals(arrivals.map((a) => a.at))).toBe(0);
  });

  it("serves waiters first come, first served", async () => {
    const { clock, arrivals, make } = setup(() => 204);
    const client = make();
    await clock.run(Promise.all(Array.from({ length: 60 }, (_, i) => client.deleteUser("p-1", `u-${i}`))));
    expect(arrivals.map((a) => a.path)).toEqual(Array.from({ length: 60 }, (_, i) => `/api/v2/projects/p-1/auth/users/u-${i}`));
  });

  it("one limiter per (base URL, key): two clients share the budget", async () => {
    const { clock, arrivals, make } = setup(() => 200);
    const a = make();
    const b = make();
    await clock.run(Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).listDomains("p-1"))));
    const t0 = arrivals[0]!.at;
    expect(arrivals.filter((x) => x.at === t0)).toHaveLength(39);
    expect(arrivals[59]!.at - t0).toBeGreaterThanOrEqual(Math.floor(21 * PER_TOKEN_MS));
    expect(serverRefusals(arrivals.map((x) => x.at))).toBe(0);
  });

  it("a 429 drains the bucket and slows the rate, so that every request backs off; the retry goes first", async () => {
    let first = true;
    const { clock, arrivals, make } = setup(() => {
      if (first) {
        first = false;
        return 429;
      }
      return 200;
    });
    const client = make();
    const t0 = clock.now();
    // The first request meets a 429 (console traffic used the budget, say); 4 more follow it.
    const p1 = client.listDomains("p-retry");
    await clock.settle();
    const rest = Array.from({ length: 4 }, () => client.listDomains("p-1"));
    await clock.run(Promise.all([p1, ...rest]));
    const at = arrivals.map((a) => a.at - t0);
    expect(at[0]).toBe(0);
    // After the drain each request needs a fresh token, at 0.6 of the rate: one per ~144 ms. The
    // retry is already under way: it goes before the four new requests.
    expect(arrivals.map((a) => a.path.split("/")[4])).toEqual(["p-retry", "p-retry", "p-1", "p-1", "p-1", "p-1"]);
    expect(at.slice(1).map((x) => Math.round(x / (PER_TOKEN_MS / 0.6)))).toEqual([1, 2, 3, 4, 5]);
  });

  it("the per-route bucket limits one route", async () => {
    const { clock, arrivals, make } = setup(() => 200, {
      pacing: { perMinute: 1_000_000, burst: 1000, routeBurst: 5, routePerSecond: 10, reserve: 0, rateFactor: 1 },
    });
    const client = make();
    const t0 = clock.now();
    await clock.run(Promise.all(Array.from({ length: 15 }, () => client.listDomains("p-1"))));
    expect(arrivals.map((a) => a.at - t0)).toEqual([0, 0, 0, 0, 0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
  });

  it("pacing: false sends everything at once", async () => {
    const { clock, arrivals, make } = setup(() => 200, { pacing: false });
    const client = make();
    await clock.run(Promise.all(Array.from({ length: 100 }, () => client.listDomains("p-1"))));
    expect(new Set(arrivals.map((a) => a.at)).size).toBe(1);
  });

  it("token bucket and limiter math", async () => {
    const clock = new ManualClock(0);
    const b = new TokenBucket(2, 0.001, 0);
    expect(b.waitMs(0)).toBe(0);
    b.take(0);
    b.take(0);
    expect(b.waitMs(0)).toBe(1000);
    expect(b.waitMs(400)).toBe(600);
    b.drain(400);
    expect(b.waitMs(400)).toBe(1000);
    expect(b.available(5000)).toBe(2);

    const l = new RateLimiter({ ...DEFAULT_PACING, burst: 2, reserve: 0, rateFactor: 1 }, clock);
    const order: number[] = [];
    // Each request is answered at once (succeeded): the slow start of a new limiter lets the second go after the first answer.
    const ps = [0, 1, 2, 3].map(() =>
      l.acquire("GET /x").then(() => {
        order.push(clock.now());
        l.succeeded();
      }),
    );
    await clock.run(Promise.all(ps));
    expect(order).toEqual([0, 0, Math.ceil(60_000 / 700), Math.ceil(60_000 / 700) * 2]);
    // A waiter whose signal aborts leaves the queue.
    const ac = new AbortController();
    const p = l.acquire("GET /x", ac.signal);
    ac.abort(new Error("deadline"));
    await expect(p).rejects.toThrow("deadline");
  });
});
