/** Rate limits: the account bucket (700/min, burst 40) and the per-route bucket, with Retry-After. */
import { describe, expect, it } from "vitest";
import { KEY_B, manualClock, PROJECT, startHarness } from "./emulator-helpers";

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
});
