import { MockAgent, type Dispatcher } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock";
import { createClient, NeonApiError, NeonConfigError, type ClientOptions } from "../../src/client";

const ORIGIN = "https://api.test";
const KEY = "napi_batch_key_0123456789";

let agent: MockAgent | undefined;

interface Sent {
  method: string;
  path: string;
  domains: string[];
  provider: string;
  at: number;
}

/** A mock service: `reply` decides each request's status from its body; every request is recorded. */
function setup(reply: (domains: string[], n: number) => number = () => 200, opts: Partial<ClientOptions> = {}) {
  const mock = new MockAgent();
  agent = mock;
  mock.disableNetConnect();
  const clock = new ManualClock();
  const sent: Sent[] = [];
  mock
    .get(ORIGIN)
    .intercept({ path: () => true, method: () => true })
    .reply((o: { path: string; method: string; body?: unknown }) => {
      const body = JSON.parse(String(o.body)) as { auth_provider: string; domains: { domain: string }[] };
      const domains = body.domains.map((d) => d.domain);
      sent.push({ method: o.method, path: o.path, domains, provider: body.auth_provider, at: clock.now() });
      const status = reply(domains, sent.length);
      return { statusCode: status, data: status >= 400 ? JSON.stringify({ code: "", message: `refused ${status}` }) : "" };
    })
    .persist();
  const client = createClient({
    apiKey: KEY,
    baseUrl: `${ORIGIN}/api/v2`,
    clock,
    dispatcher: mock as Dispatcher,
    random: () => 0.5,
    pacing: false,
    ...opts,
  });
  return { clock, sent, client };
}

const origin = (i: number) => `https://app-${i}.example.com`;

/** Settles every promise, keeping what each one gave: "ok" or the error. */
async function outcomes(clock: ManualClock, ps: Promise<void>[]): Promise<(string | unknown)[]> {
  return clock.run(Promise.all(ps.map((p) => p.then(() => "ok", (e: unknown) => e))));
}

afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

describe("batched domain deletes", () => {
  it("120 deletes at once: bodies of 50, 50 and 20; full batches leave at once, the rest after 100 ms without a new one", async () => {
    const { clock, sent, client } = setup();
    const t0 = clock.now();
    const ps = Array.from({ length: 120 }, (_, i) => client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: origin(i) }] }));
    expect(await outcomes(clock, ps)).toEqual(new Array(120).fill("ok"));
    expect(sent.map((r) => [r.method, r.path, r.provider, r.domains.length, r.at - t0])).toEqual([
      ["DELETE", "/api/v2/projects/p-1/auth/domains", "stack", 50, 0],
      ["DELETE", "/api/v2/projects/p-1/auth/domains", "stack", 50, 0],
      ["DELETE", "/api/v2/projects/p-1/auth/domains", "stack", 20, 100],
    ]);
    expect(sent.flatMap((r) => r.domains)).toEqual(Array.from({ length: 120 }, (_, i) => origin(i)));
  });

  it("a delete arriving after the batch left goes in the next one", async () => {
    const { clock, sent, client } = setup();
    const t0 = clock.now();
    const first = [0, 1, 2].map((i) => client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: origin(i) }] }));
    await clock.advance(100);
    const late = client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: origin(3) }] });
    expect(await outcomes(clock, [...first, late])).toEqual(["ok", "ok", "ok", "ok"]);
    expect(sent.map((r) => [r.domains, r.at - t0])).toEqual([
      [[origin(0), origin(1), origin(2)], 100],
      [[origin(3)], 200],
    ]);
  });

  it("projects and branches each get their own request; a caller's own list is sent as given", async () => {
    const { clock, sent, client } = setup();
    const ps = [
      client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: origin(1) }] }),
      client.deleteDomains("p-2", { auth_provider: "stack", domains: [{ domain: origin(2) }] }),
      client.branchAuth.deleteBranchDomains({ project_id: "p-2", branch_id: "br-a" }, { auth_provider: "better_auth", domains: [{ domain: origin(3) }] }),
      client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: origin(4) }] }),
      client.branchAuth.deleteBranchDomains({ project_id: "p-1", branch_id: "br-a" }, { auth_provider: "better_auth", domains: [{ domain: origin(5) }] }),
      client.branchAuth.deleteBranchDomains({ project_id: "p-1", branch_id: "br-b" }, { auth_provider: "better_auth", domains: [{ domain: origin(6) }] }),
      client.branchAuth.deleteBranchDomains({ project_id: "p-1", branch_id: "br-a" }, { auth_provider: "better_auth", domains: [{ domain: origin(7) }] }),
      client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: origin(8) }, { domain: origin(9) }] }),
    ];
    expect(await outcomes(clock, ps)).toEqual(new Array(8).fill("ok"));
    expect(sent.map((r) => [r.path, r.provider, r.domains]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([
      ["/api/v2/projects/p-1/auth/domains", "stack", [origin(1), origin(4)]],
      ["/api/v2/projects/p-1/auth/domains", "stack", [origin(8), origin(9)]],
      ["/api/v2/projects/p-1/branches/br-a/auth/domains", "better_auth", [origin(5), origin(7)]],
      ["/api/v2/projects/p-1/branches/br-b/auth/domains", "better_auth", [origin(6)]],
      ["/api/v2/projects/p-2/auth/domains", "stack", [origin(2)]],
      ["/api/v2/projects/p-2/branches/br-a/auth/domains", "better_auth", [origin(3)]],
    ]);
  });

  it("a delete whose own arguments break a rule fails alone, before anything is sent", async () => {
    const { clock, sent, client } = setup();
    const bad = client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: "" }] });
    const good = [1, 2].map((i) => client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: origin(i) }] }));
    const [b, ...g] = await outcomes(clock, [bad, ...good]);
    expect(b).toBeInstanceOf(NeonConfigError);
    expect(g).toEqual(["ok", "ok"]);
    expect(sent.map((r) => r.domains)).toEqual([[origin(1), origin(2)]]);
  });

  it("a 400 caused by one domain: the batch is halved down to that domain, which alone fails", async () => {
    const BAD = origin(5);
    const { clock, sent, client } = setup((domains) => (domains.includes(BAD) ? 400 : 200));
    const ps = Array.from({ length: 8 }, (_, i) => client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: origin(i) }] }));
    const got = await outcomes(clock, ps);
    expect(got.map((g) => (g === "ok" ? "ok" : (g as NeonApiError).status))).toEqual(["ok", "ok", "ok", "ok", "ok", 400, "ok", "ok"]);
    expect(sent.map((r) => r.domains.map((d) => Number(/app-(\d+)/.exec(d)![1])))).toEqual([
      [0, 1, 2, 3, 4, 5, 6, 7],
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [4, 5],
      [6, 7],
      [4],
      [5],
    ]);
  });

  it("a 404 of the batch is not taken as gone for all: the halves are asked until each domain has its own answer", async () => {
    // A service that refuses a batch naming a domain it does not list (the emulator is lenient).
    const GONE = origin(2);
    const { clock, sent, client } = setup((domains) => (domains.includes(GONE) ? 404 : 200));
    const ps = [0, 1, 2, 3].map((i) => client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: origin(i) }] }));
    const got = await outcomes(clock, ps);
    expect(got.map((g) => (g === "ok" ? "ok" : (g as NeonApiError).status))).toEqual(["ok", "ok", 404, "ok"]);
    expect(sent.map((r) => r.domains.length)).toEqual([4, 2, 2, 1, 1]);
  });

  it("a 5xx is retried with the same body: every caller succeeds once an attempt does, in two requests", async () => {
    const { clock, sent, client } = setup((_d, n) => (n === 1 ? 500 : 200));
    const ps = [0, 1, 2].map((i) => client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: origin(i) }] }));
    expect(await outcomes(clock, ps)).toEqual(["ok", "ok", "ok"]);
    expect(sent.map((r) => r.domains)).toEqual([
      [origin(0), origin(1), origin(2)],
      [origin(0), origin(1), origin(2)],
    ]);
  });

  it("when the retries run out, every caller of the batch fails with the error (no success without an answer saying so), without halving", async () => {
    const { clock, sent, client } = setup(() => 500, { maxAttempts: 3 });
    const ps = [0, 1, 2].map((i) => client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: origin(i) }] }));
    const got = await outcomes(clock, ps);
    for (const g of got) {
      expect(g).toBeInstanceOf(NeonApiError);
      expect((g as NeonApiError).status).toBe(500);
      expect((g as NeonApiError).mayHaveActed).toBe(true);
    }
    expect(sent.map((r) => r.domains.length)).toEqual([3, 3, 3]);
  });

  it("deletes arriving every 90 ms keep a batch open until 3000 ms after its first; the next one waits for the steps just answered", async () => {
    const { clock, sent, client } = setup();
    const t0 = clock.now();
    const ps: Promise<void>[] = [];
    for (let i = 0; i < 40; i++) {
      if (i > 0) await clock.advance(90);
      ps.push(client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: origin(i) }] }));
    }
    expect(await outcomes(clock, ps)).toEqual(new Array(40).fill("ok"));
    // Writes take 90 ms here, so the 34 steps answered at 3000 ms could each come back after two
    // writes: the second batch waits for them, until its own 3000 ms are over.
    expect(sent.map((r) => [r.domains.length, r.at - t0])).toEqual([
      [34, 3000],
      [6, 34 * 90 + 3000],
    ]);
  });

  it("an engine running 8 steps at once: once 8 were seen together, a batch leaves as soon as all 8 are waiting", async () => {
    const { clock, sent, client } = setup();
    const t0 = clock.now();
    let next = 0;
    // Each of the engine's 8 slots starts its next delete 10 ms after the last one's answer (its state write).
    const slot = async () => {
      while (next < 24) {
        const i = next++;
        await client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: origin(i) }] });
        await clock.sleep(10);
      }
    };
    await clock.run(Promise.all(Array.from({ length: 8 }, slot)));
    expect(sent.map((r) => [r.domains.length, r.at - t0])).toEqual([
      [8, 100], // the first batch waits for a pause: how many steps the engine runs is not known yet
      [8, 110],
      [8, 120],
    ]);
  });

  it("an engine whose state writes take turns: answered deletes are followed by a pause, then their successors; batches stay full", async () => {
    const { clock, sent, client } = setup();
    // Pulumi's step workers (64 here) share one state file: each step's start and end is a write
    // of 15 ms, one after another, first come first served. So after a batch's answer, the 50
    // end-writes go first and the next starts wait behind them (measured: 700-800 ms at N = 300).
    let writes = Promise.resolve();
    const write = () => (writes = writes.then(() => clock.sleep(15)));
    let next = 0;
    const worker = async () => {
      while (next < 300) {
        const i = next++;
        await write();
        await client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: origin(i) }] });
        await write();
      }
    };
    await clock.run(Promise.all(Array.from({ length: 64 }, worker)));
    expect(sent.map((r) => r.domains.length)).toEqual([50, 50, 50, 50, 50, 50]);
  });

  it("batch: false sends each delete alone, at once", async () => {
    const { clock, sent, client } = setup(() => 200, { batch: false });
    const t0 = clock.now();
    const ps = [0, 1, 2].map((i) => client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: origin(i) }] }));
    expect(await outcomes(clock, ps)).toEqual(["ok", "ok", "ok"]);
    expect(sent.map((r) => [r.domains, r.at - t0])).toEqual([
      [[origin(0)], 0],
      [[origin(1)], 0],
      [[origin(2)], 0],
    ]);
  });

  it("window and bound are options", async () => {
    const { clock, sent, client } = setup(() => 200, { batch: { quietMs: 100, maxWaitMs: 1000, maxDomains: 4 } });
    const t0 = clock.now();
    const ps = Array.from({ length: 6 }, (_, i) => client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: origin(i) }] }));
    expect(await outcomes(clock, ps)).toEqual(new Array(6).fill("ok"));
    expect(sent.map((r) => [r.domains.length, r.at - t0])).toEqual([
      [4, 0],
      [2, 100],
    ]);
  });

  it("refuses batch options that are not positive numbers, naming the option", () => {
    expect(() => createClient({ apiKey: KEY, batch: { quietMs: 0 } })).toThrow(new NeonConfigError("batch.quietMs must be a positive number"));
    expect(() => createClient({ apiKey: KEY, batch: { maxDomains: -1 } })).toThrow(/batch\.maxDomains must be a positive number/);
  });
});
