/** Control routes: health, state dump (redacted, never a key), request log, stats, reset, users_sync. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyLabel } from "../../src/emulator";
import { BRANCH, enableAuth, KEY_A, KEY_B, PROJECT, startHarness, type Harness } from "./emulator-helpers";

let h: Harness;
let keys: Record<string, string>;

beforeAll(async () => {
  h = await startHarness({ rateLimit: "off" });
  keys = await enableAuth(h);
  await h.api("POST", "/projects/auth/user", { body: { project_id: PROJECT, auth_provider: "stack", email: "u@example.com", name: "U" } });
  await h.api("POST", `/projects/${PROJECT}/auth/oauth_providers`, { body: { id: "github", client_id: "cid", client_secret: "csecret-123" } });
  await h.api("PATCH", `/projects/${PROJECT}/auth/email_server`, {
    body: { type: "standard", host: "smtp.x", port: 465, username: "mailer", password: "smtp-pw-123", sender_email: "a@b.co", sender_name: "A" },
  });
  await h.api("POST", "/projects/auth/transfer_ownership", { body: { project_id: PROJECT, auth_provider: "stack" } });
});
afterAll(async () => {
  await h.close();
});

describe("control routes", () => {
  it("health", async () => {
    const r = await h.control("GET", "/health");
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ok: true });
  });

  it("state redacts secrets by default and never contains an API key", async () => {
    const r = await h.control("GET", "/state");
    expect(r.status).toBe(200);
    expect(r.text).not.toContain(KEY_A);
    expect(r.text).not.toContain(KEY_B);
    expect(r.text).not.toContain(keys.secret_server_key);
    expect(r.text).not.toContain("csecret-123");
    expect(r.text).not.toContain("smtp-pw-123");
    const p = r.json.projects.find((x: any) => x.id === PROJECT);
    expect(p.owner).toBe(keyLabel(KEY_A));
    const i = p.integrations[0];
    expect(i.keys).toEqual([{ pub_client_key: keys.pub_client_key, secret_server_key: "[redacted]", created_at: i.keys[0].created_at }]);
    expect(i.oauth_providers).toEqual([{ id: "github", type: "standard", client_id: "cid", client_secret: "[redacted]" }]);
    expect(i.email_server.password).toBe("[redacted]");
    expect(i.branch_id).toBe(BRANCH);
    expect(i.transfer_status).toBe("initiated");
    expect(r.json.transfers).toHaveLength(1);
    expect(r.json.transfers[0].code).toBe("[redacted]");
  });

  it("state?secrets=true shows the secrets of the emulated objects (still no API key)", async () => {
    const r = await h.control("GET", "/state?secrets=true");
    expect(r.text).toContain(keys.secret_server_key);
    expect(r.text).toContain("csecret-123");
    expect(r.text).toContain("smtp-pw-123");
    expect(r.text).not.toContain(KEY_A);
  });

  it("the request log holds method, path, status, time, request id and key label: never a key nor a body", async () => {
    await h.control("DELETE", "/requests");
    await h.api("POST", "/projects/auth/user", {
      body: { project_id: PROJECT, auth_provider: "stack", email: "secret-body@example.com" },
      headers: { "X-Request-ID": "log-1" },
    });
    await h.api("GET", `/projects/${PROJECT}`, { key: KEY_B, headers: { "X-Request-ID": "log-2" } });
    await h.api("GET", `/projects/${PROJECT}`, { key: "not-a-key", headers: { "X-Request-ID": "log-3" } });
    const r = await h.control("GET", "/requests");
    expect(r.text).not.toContain(KEY_A);
    expect(r.text).not.toContain(KEY_B);
    expect(r.text).not.toContain("not-a-key");
    expect(r.text).not.toContain("secret-body");
    const entries = r.json.requests;
    expect(entries.map((e: any) => ({ ...e, time: "T", duration_ms: 0 }))).toEqual([
      { method: "POST", path: "/api/v2/projects/auth/user", route: "/projects/auth/user", status: 201, time: "T", duration_ms: 0, request_id: "log-1", key: keyLabel(KEY_A) },
      { method: "GET", path: `/api/v2/projects/${PROJECT}`, route: "/projects/{project_id}", status: 404, time: "T", duration_ms: 0, request_id: "log-2", key: keyLabel(KEY_B) },
      { method: "GET", path: `/api/v2/projects/${PROJECT}`, route: "/projects/{project_id}", status: 401, time: "T", duration_ms: 0, request_id: "log-3", key: null },
    ]);
    expect(entries[0].time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(keyLabel(KEY_A)).toMatch(/^key_[0-9a-f]{12}$/);
  });

  it("stats count by status; DELETE /requests clears log and counters", async () => {
    const s = await h.control("GET", "/stats");
    expect(s.json.total).toBe(3);
    expect(s.json.byStatus).toEqual({ "201": 1, "404": 1, "401": 1 });
    expect(s.json.byRoute).toEqual({ "POST /projects/auth/user": 1, "GET /projects/{project_id}": 2 });
    const d = await h.control("DELETE", "/requests");
    expect(d.json).toEqual({ cleared: 3 });
    expect((await h.control("GET", "/requests")).json).toEqual({ requests: [] });
    expect((await h.control("GET", "/stats")).json).toMatchObject({ total: 0, byStatus: {}, byRoute: {} });
  });

  it("users_sync: rows, 404 without integration or project, 400 bad id", async () => {
    const r = await h.control("GET", `/projects/${PROJECT}/users_sync`);
    expect(r.json.rows.map((u: any) => [u.email, u.name])).toEqual([
      ["u@example.com", "U"],
      ["secret-body@example.com", null],
    ]);
    expect((await h.control("GET", "/projects/p-nope/users_sync")).status).toBe(404);
    expect((await h.control("GET", "/projects/BAD/users_sync")).status).toBe(400);
  });

  it("unknown control route 404, wrong method 405, all with the envelope", async () => {
    const r = await h.control("GET", "/nope");
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ code: "", message: "no control route GET /_emulator/nope", request_id: r.headers.get("x-neon-ret-request-id") });
    const m = await h.control("POST", "/health");
    expect(m.status).toBe(405);
    expect(m.headers.get("allow")).toBe("GET");
  });

  it("reset empties the state, then re-seeds the seeded projects", async () => {
    await h.api("POST", "/projects", { body: { project: { name: "temp" } } });
    h.emu.injectFaults({ kind: "error" });
    const r = await h.control("POST", "/reset");
    expect(r.json).toEqual({ ok: true });
    const st = await h.control("GET", "/state");
    expect(st.json.projects.map((p: any) => [p.id, p.integrations.length, p.branches[0].id])).toEqual([[PROJECT, 0, BRANCH]]);
    expect(st.json.transfers).toEqual([]);
    expect((await h.control("GET", "/faults")).json.next).toEqual([]);
    expect((await h.api("GET", `/projects/${PROJECT}/auth/integrations`)).json).toEqual({ data: [] });
  });
});
