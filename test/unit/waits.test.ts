import { describe, expect, it } from "vitest";
import type { WaitEvent } from "../../src/client";
import { forResource, onWait, waitLine } from "../../src/provider/waits";
import { useLog } from "../../src/provider/log";

const base: WaitEvent = { kind: "pacing", method: "POST", path: "/projects/p-1/auth/domains", requestId: "r-1", waitMs: 0, waitedMs: 0, leftMs: 0 };

describe("wait lines", () => {
  it("say who waits, for what, about how long, and the most it may still wait, per kind", () => {
    const who = "RedirectDomain https://a.example.com";
    expect(waitLine({ ...base, kind: "pacing", waitMs: 4_200, leftMs: 895_800 }, who)).toBe(
      "neon-auth: RedirectDomain https://a.example.com waits its turn under Neon's rate limit (pacing), about 4.2 s; it may wait 14 min 56 s more (neon-auth:rateLimitTimeoutSeconds)",
    );
    expect(waitLine({ ...base, kind: "rate-limit", waitMs: 1_000, leftMs: 60_000, attempt: { next: 2, of: 11 } }, who)).toBe(
      "neon-auth: RedirectDomain https://a.example.com waits after a 429 from Neon (rate limit: the account's budget is spent, other stacks or tools use it too), retrying in 1.0 s (attempt 2 of 11); it may wait 1 min more (neon-auth:rateLimitTimeoutSeconds)",
    );
    expect(waitLine({ ...base, kind: "lock", waitMs: 500, leftMs: 118_000, attempt: { next: 3, of: 12 } }, who)).toBe(
      "neon-auth: RedirectDomain https://a.example.com waits: the project is locked by another operation (423), retrying in 0.5 s (attempt 3 of 12); it may wait 1 min 58 s more (neon-auth:lockTimeoutSeconds)",
    );
    // Rounded as a whole: 119.9 s is 2 min, never "1 min 60 s".
    expect(waitLine({ ...base, kind: "lock", waitMs: 100, leftMs: 119_900 }, who)).toMatch(/it may wait 2 min more/);
    expect(waitLine({ ...base, kind: "operation", requestId: "op-1", waitMs: 2_000, leftMs: 290_000 }, undefined)).toBe(
      "neon-auth: POST /projects/p-1/auth/domains waits for Neon operation op-1 to finish, next look in 2.0 s; it may wait 4 min 50 s more",
    );
  });

  it("a line for pacing only once the request has waited about 2 s, for 429 and 423 at once; at most one per kind every 2 s, naming the resource", async () => {
    const lines: string[] = [];
    useLog({ info: (l) => lines.push(l), warn: (l) => lines.push(l) });
    const t = 1_000_000;
    await forResource("RedirectDomain https://b.example.com", async () => {
      onWait({ ...base, kind: "pacing", waitMs: 300, waitedMs: 1_000, leftMs: 100_000 }, t);
      onWait({ ...base, kind: "pacing", waitMs: 300, waitedMs: 1_800, leftMs: 100_000 }, t);
      onWait({ ...base, kind: "pacing", waitMs: 300, waitedMs: 2_500, leftMs: 100_000 }, t + 1_000);
      onWait({ ...base, kind: "lock", waitMs: 125, waitedMs: 0, leftMs: 120_000 }, t + 1_000);
      onWait({ ...base, kind: "rate-limit", waitMs: 100, waitedMs: 0, leftMs: 100_000 }, t + 1_000);
      onWait({ ...base, kind: "rate-limit", waitMs: 100, waitedMs: 0, leftMs: 100_000 }, t + 2_000);
      onWait({ ...base, kind: "pacing", waitMs: 300, waitedMs: 4_000, leftMs: 100_000 }, t + 2_900);
    });
    expect(lines.map((l) => l.split(" waits")[0] + (l.includes("(423)") ? " lock" : l.includes("429") ? " 429" : " pacing"))).toEqual([
      "neon-auth: RedirectDomain https://b.example.com pacing",
      "neon-auth: RedirectDomain https://b.example.com lock",
      "neon-auth: RedirectDomain https://b.example.com 429",
      "neon-auth: RedirectDomain https://b.example.com pacing",
    ]);
  });
});
