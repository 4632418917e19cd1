/** Rate limits: the account bucket (700/min, burst 40) and the per-route bucket, with Retry-After. */
import * as http from "node:http";
import { describe, expect, it } from "vitest";
import { KEY_A, KEY_B, manualClock, PROJECT, startHarness } from "./emulator-helpers";

describe("rate limits (spec model)", () => {
  it("a fresh key gets 40 requests at once, then 429 with Retry-After, then 700/60 per second", async () => {
    const clock = manualClock();
    const h = await startHarness({ clock, rateLimit: "spec" });
    try {
      // Spread over several routes: the account bucket is what refuses.
      const paths = [`/projects/${PROJECT}`, `/projects/${PROJECT}/branches`, `/projects/${PROJECT}/auth/integrations`, "/projects"];
      for (let i = 0; i < 40; i++) {
        const r = await h.api("GET", paths[i % paths.length] as string);
        expect(r.status).toBe(200);
      }
      const refused = await h.api("GET", `/projects/${PROJECT}`);
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual({
        code: "",
        message: "rate limit exceeded: at most 700 requests per minute per account",
        request_id: refused.headers.get("x-neon-ret-request-id"),
      });
      expect(refused.headers.get("retry-after")).toBe("1");

      // Another key has its own bucket.
      expect((await h.api("GET", "/projects", { key: KEY_B })).status).toBe(200);

      // One token comes back after 60/700 s (about 85.7 ms).
      await clock.advance(80);
      expect((await h.api("GET", "/projects")).status).toBe(429);
      await clock.advance(6);
      expect((await h.api("GET", "/projects")).status).toBe(200);
      expect((await h.api("GET", "/projects")).status).toBe(429);

      // Sustained: 10 seconds give 116 more (floor(10 * 700 / 60) + the 0.0... left over).
      await clock.advance(10_000);
      let ok = 0;
      for (let i = 0; i < 130; i++) if ((await h.api("GET", paths[i % paths.length] as string)).status === 200) ok++;
      // Capacity caps the refill at 40.
      expect(ok).toBe(40);

      const stats = await h.control("GET", "/stats");
      expect(stats.json.byStatus["429"]).toBe(1 + 2 + 90);
    } finally {
      await h.close();
    }
  });

  it("Retry-After grows with the deficit of the account bucket (custom settings)", async () => {
    const clock = manualClock();
    const h = await startHarness({ clock, rateLimit: { perMinute: 6, burst: 2 } });
    try {
      expect((await h.api("GET", "/projects")).status).toBe(200);
      expect((await h.api("GET", `/projects/${PROJECT}`)).status).toBe(200);
      const r = await h.api("GET", "/projects");
      expect(r.status).toBe(429);
      // 6 per minute = one token every 10 s.
      expect(r.headers.get("retry-after")).toBe("10");
      await clock.advance(9_000);
      expect((await h.api("GET", "/projects")).headers.get("retry-after")).toBe("1");
      await clock.advance(1_000);
      expect((await h.api("GET", "/projects")).status).toBe(200);
    } finally {
      await h.close();
    }
  });

  it("the route bucket refuses bursts on one route while other routes pass", async () => {
    const clock = manualClock();
    // A generous account bucket so that only the per-route burst of 3/s binds.
    const h = await startHarness({ clock, rateLimit: { perMinute: 60_000, burst: 3, accountBurst: 100 } });
    try {
      for (let i = 0; i < 3; i++) expect((await h.api("GET", `/projects/${PROJECT}`)).status).toBe(200);
      const refused = await h.api("GET", `/projects/${PROJECT}`);
      expect(refused.status).toBe(429);
      expect(refused.json.message).toBe("rate limit exceeded: at most 3 requests per second per route");
      expect(refused.headers.get("retry-after")).toBe("1");
      // Same template, other path values: same route.
      expect((await h.api("GET", "/projects/p-other")).status).toBe(429);
      // Another route of the same key passes.
      expect((await h.api("GET", `/projects/${PROJECT}/branches`)).status).toBe(200);
      await clock.advance(334);
      expect((await h.api("GET", `/projects/${PROJECT}`)).status).toBe(200);
    } finally {
      await h.close();
    }
  });

  it("control routes are never limited and 'off' disables limits", async () => {
    const clock = manualClock();
    const h = await startHarness({ clock, rateLimit: "off" });
    try {
      for (let i = 0; i < 60; i++) expect((await h.api("GET", "/projects")).status).toBe(200);
    } finally {
      await h.close();
    }
    const l = await startHarness({ clock, rateLimit: { perMinute: 1, burst: 1 } });
    try {
      expect((await l.api("GET", "/projects")).status).toBe(200);
      expect((await l.api("GET", "/projects")).status).toBe(429);
      for (let i = 0; i < 5; i++) expect((await l.control("GET", "/health")).status).toBe(200);
    } finally {
      await l.close();
    }
  });

  // Neon's limit is per account, whatever the connection (API-FACTS.md, "Rate limits"): a fleet of
  // provider processes, each with its own connections, draws from one bucket. The emulator holds
  // one account per key (assumption: it does not model several keys of one account), so the
  // bucket is the key's, and the fleet bench (npm run bench) is only as honest as this.
  it("one bucket per account, shared by every connection: two processes' sockets on one key", async () => {
    const clock = manualClock();
    const h = await startHarness({ clock, rateLimit: "spec" });
    // Two keep-alive agents stand for two provider processes, each with its own sockets.
    const agents = [new http.Agent({ keepAlive: true, maxSockets: 4 }), new http.Agent({ keepAlive: true, maxSockets: 4 })];
    const get = (agent: http.Agent, path: string, key = KEY_A) =>
      new Promise<{ status: number; socket: string }>((resolve, reject) => {
        const req = http.request(`${h.emu.url}${path}`, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode ?? 0, socket: `${req.socket?.localPort}` }));
        });
        req.on("error", reject);
        req.end();
      });
    try {
      const paths = [`/projects/${PROJECT}`, `/projects/${PROJECT}/branches`, `/projects/${PROJECT}/auth/integrations`, "/projects"];
      const sockets = [new Set<string>(), new Set<string>()];
      // 20 requests from each, interleaved over four routes: all pass (40 is the account's burst).
      for (let i = 0; i < 40; i++) {
        const r = await get(agents[i % 2]!, paths[(i >> 1) % paths.length]!);
        expect(r.status).toBe(200);
        sockets[i % 2]!.add(r.socket);
      }
      // The two never shared a socket.
      expect([...sockets[0]!].filter((p) => sockets[1]!.has(p))).toEqual([]);
      // The 41st is refused to either, on any route: one bucket, not one per connection or route.
      for (const agent of agents) for (const p of paths) expect((await get(agent, p)).status).toBe(429);
      // Another account (key) has a bucket of its own.
      expect((await get(agents[0]!, "/projects", KEY_B)).status).toBe(200);
      // And the one token that comes back after 60/700 s goes to whichever asks first.
      await clock.advance(86);
      expect((await get(agents[1]!, "/projects")).status).toBe(200);
      expect((await get(agents[0]!, "/projects")).status).toBe(429);
    } finally {
      for (const a of agents) a.destroy();
      await h.close();
    }
  });
});
