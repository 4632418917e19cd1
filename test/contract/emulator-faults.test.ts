/** Fault injection: random (deterministic source) and one-shot queue; faults never touch control routes. */
import { beforeEach, describe, expect, it } from "vitest";
import { enableAuth, PROJECT, useHarness } from "./emulator-helpers";

const LOCKED = "project already has running conflicting operations, scheduling of new ones is prohibited";
let nextRandom: number[] = [];
const random = () => nextRandom.shift() ?? 0.999;
const h = useHarness({ rateLimit: "off", random }, enableAuth);
beforeEach(async () => {
  nextRandom = [];
  expect((await h.control("PUT", "/faults", {})).status).toBe(200);
  await h.control("DELETE", "/requests");
});

async function users(): Promise<string[]> {
  const r = await h.control("GET", `/projects/${PROJECT}/users_sync`);
  return r.json.rows.map((u: any) => u.email);
}

const createUser = (email: string) =>
  h.api("POST", "/projects/auth/user", { body: { project_id: PROJECT, auth_provider: "stack", email } });

describe("random faults with an injected random source", () => {
  it("error=0.5: a draw below 0.5 answers 503 with the envelope; above it acts normally", async () => {
    await h.control("PUT", "/faults", { error: 0.5 });
    nextRandom = [0.2];
    const r = await createUser("err@example.com");
    expect(r.status).toBe(503);
    expect(r.json).toEqual({
      code: "",
      message: "service temporarily unavailable (injected fault)",
      request_id: r.headers.get("x-neon-ret-request-id"),
    });
    expect(await users()).not.toContain("err@example.com");
    nextRandom = [0.7];
    expect((await createUser("err@example.com")).status).toBe(201);
    expect(await users()).toContain("err@example.com");
  });

  it("the draw is split error | reset | lost | lock in that order", async () => {
    const set = await h.control("PUT", "/faults", { spec: "error=0.1,reset=0.1,lost=0.1,lock=0.1" });
    expect(set.json).toEqual({ error: 0.1, reset: 0.1, lost: 0.1, lock: 0.1, latency: null, next: [] });
    nextRandom = [0.35];
    const r = await h.api("GET", `/projects/${PROJECT}/auth/domains`);
    expect(r.status).toBe(423);
    expect(r.json.message).toBe(LOCKED);
    nextRandom = [0.15];
    await expect(h.api("GET", `/projects/${PROJECT}/auth/domains`)).rejects.toThrow();
    const log = await h.control("GET", "/requests");
    expect(log.json.requests.map((e: any) => [e.status, e.fault])).toEqual([
      [423, "lock"],
      [0, "reset"],
    ]);
  });

  it("latency adds a delay drawn from the range", async () => {
    await h.control("PUT", "/faults", { latency: { min: 120, max: 120 } });
    const t0 = Date.now();
    expect((await h.api("GET", `/projects/${PROJECT}`)).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(115);
  });

  it("faults apply to /api/v2 only, never to control routes", async () => {
    await h.control("PUT", "/faults", { error: 1 });
    expect((await h.control("GET", "/health")).json).toEqual({ ok: true });
    expect((await h.api("GET", "/projects")).status).toBe(503);
  });

  it("rejects invalid fault settings with 400", async () => {
    const r = await h.control("PUT", "/faults", { error: 2 });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe("error: must be a probability between 0 and 1");
    const q = await h.control("PUT", "/faults", { next: [{ kind: "explode" }] });
    expect(q.status).toBe(400);
    expect(q.json.message).toBe("next.0.kind: must be one of error, reset, lost, lock, latency");
  });
});

describe("one-shot faults", () => {
  it("reset: the socket is destroyed before acting, so nothing is created", async () => {
    await h.control("PUT", "/faults", { next: [{ kind: "reset", method: "POST", path: "/projects/auth/user" }] });
    await expect(createUser("reset@example.com")).rejects.toThrow();
    expect(await users()).not.toContain("reset@example.com");
    // One-shot: the retry succeeds.
    expect((await createUser("reset@example.com")).status).toBe(201);
    expect(await users()).toContain("reset@example.com");
  });

  it("lost: the action happens, then the response is lost; a blind retry meets 409", async () => {
    await h.control("PUT", "/faults", { next: [{ kind: "lost", method: "POST", path: "/projects/auth/user" }] });
    await expect(createUser("lost@example.com")).rejects.toThrow();
    expect(await users()).toContain("lost@example.com");
    const retry = await createUser("lost@example.com");
    expect(retry.status).toBe(409);
    const log = await h.control("GET", "/requests");
    expect(log.json.requests.map((e: any) => [e.method, e.route, e.status, e.fault ?? null])).toEqual([
      ["POST", "/projects/auth/user", 201, "lost"],
      ["POST", "/projects/auth/user", 409, null],
    ]);
  });

  it("matches by method and by template or exact path, and waits for a match", async () => {
    await h.control("PUT", "/faults", {
      next: [
        { kind: "error", method: "DELETE", path: "/projects/{project_id}/auth/domains" },
        { kind: "lock", path: `/api/v2/projects/${PROJECT}/auth/oauth_providers` },
      ],
    });
    // Not matching: GET of the domains route passes and leaves the queue alone.
    expect((await h.api("GET", `/projects/${PROJECT}/auth/domains`)).status).toBe(200);
    const q = await h.control("GET", "/faults");
    expect(q.json.next).toEqual([
      { kind: "error", method: "DELETE", path: "/projects/{project_id}/auth/domains" },
      { kind: "lock", path: `/projects/${PROJECT}/auth/oauth_providers` },
    ]);
    const del = await h.api("DELETE", `/projects/${PROJECT}/auth/domains`, {
      body: { auth_provider: "stack", domains: [{ domain: "https://x.example.com" }] },
    });
    expect(del.status).toBe(503);
    const lock = await h.api("GET", `/projects/${PROJECT}/auth/oauth_providers`);
    expect(lock.status).toBe(423);
    expect(lock.json.message).toBe(LOCKED);
    expect((await h.control("GET", "/faults")).json.next).toEqual([]);
    expect((await h.api("GET", `/projects/${PROJECT}/auth/oauth_providers`)).status).toBe(200);
  });

  it("error with a chosen status, and latency of a chosen length", async () => {
    h.emu.injectFaults({ kind: "error", status: 500, path: "/projects" }, { kind: "latency", ms: 100, path: "/projects" });
    expect((await h.api("GET", "/projects")).status).toBe(500);
    const t0 = Date.now();
    expect((await h.api("GET", "/projects")).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(95);
  });

  it("stats count injected faults by kind", async () => {
    const before = (await h.control("GET", "/stats")).json.faults;
    h.emu.injectFaults({ kind: "lock" });
    await h.api("GET", "/projects");
    const after = (await h.control("GET", "/stats")).json.faults;
    expect(after.lock).toBe((before.lock ?? 0) + 1);
  });
});
