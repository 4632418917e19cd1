/** Every endpoint's success path, with exact status codes and bodies. */
import { beforeAll, describe, expect, it } from "vitest";
import { BRANCH, enableAuth, ISO_UTC, manualClock, PROJECT, UUID, useHarness } from "./emulator-helpers";

const clock = manualClock();
const h = useHarness({ clock, operationDelayMs: 500, rateLimit: "off" });

describe("projects", () => {
  it("creates a project with its default branch and running operations that finish after the delay", async () => {
    const r = await h.api("POST", "/projects", { body: { project: { name: "demo" } } });
    expect(r.status).toBe(201);
    const { project, branch, operations } = r.json;
    expect(project.name).toBe("demo");
    expect(project.id).toMatch(/^[a-z]+-[a-z]+-\d{8}$/);
    expect(branch).toMatchObject({ project_id: project.id, name: "main", default: true, current_state: "init" });
    expect(branch.id).toMatch(/^br-[a-z]+-[a-z]+-[0-9a-f]{8}$/);
    expect(operations.map((o: any) => [o.action, o.status])).toEqual([
      ["create_timeline", "running"],
      ["start_compute", "running"],
    ]);
    const op = operations[0];
    expect(op.id).toMatch(UUID);
    expect(op).toEqual({
      id: op.id,
      project_id: project.id,
      branch_id: branch.id,
      action: "create_timeline",
      status: "running",
      failures_count: 0,
      created_at: "2025-01-01T12:00:00Z",
      updated_at: "2025-01-01T12:00:00Z",
      total_duration_ms: 0,
    });

    const running = await h.api("GET", `/projects/${project.id}/operations/${op.id}`);
    expect(running.status).toBe(200);
    expect(running.json.operation.status).toBe("running");

    await clock.advance(500);
    const done = await h.api("GET", `/projects/${project.id}/operations/${op.id}`);
    expect(done.json).toEqual({
      operation: { ...op, status: "finished", updated_at: "2025-01-01T12:00:00Z", total_duration_ms: 500 },
    });

    const got = await h.api("GET", `/projects/${project.id}`);
    expect(got.status).toBe(200);
    expect(got.json).toEqual({ project });

    const branches = await h.api("GET", `/projects/${project.id}/branches`);
    expect(branches.status).toBe(200);
    expect(branches.json).toEqual({ branches: [{ ...branch, current_state: "ready" }], annotations: {} });
  });

  it("creates a project from an empty body, named after its id", async () => {
    const r = await h.api("POST", "/projects", { body: {} });
    expect(r.status).toBe(201);
    expect(r.json.project.name).toBe(r.json.project.id);
  });

  it("serves the seeded project with the br-main-<id> branch", async () => {
    const r = await h.api("GET", `/projects/${PROJECT}/branches`);
    expect(r.status).toBe(200);
    expect(r.json.branches).toHaveLength(1);
    expect(r.json.branches[0]).toMatchObject({ id: BRANCH, project_id: PROJECT, name: "main", default: true, current_state: "ready" });
  });
});

describe("auth endpoints", () => {
  let keys: Record<string, string>;

  beforeAll(async () => {
    keys = await enableAuth(h);
  });

  it("create integration returns the key set", () => {
    const apid = keys.auth_provider_project_id as string;
    expect(apid).toMatch(UUID);
    expect(keys.pub_client_key).toMatch(/^pck_[0-9a-f]{48}$/);
    expect(keys.secret_server_key).toMatch(/^ssk_[0-9a-f]{48}$/);
    expect(keys).toEqual({
      auth_provider: "stack",
      auth_provider_project_id: apid,
      pub_client_key: keys.pub_client_key,
      secret_server_key: keys.secret_server_key,
      jwks_url: `https://api.stack-auth.com/api/v1/projects/${apid}/.well-known/jwks.json`,
      schema_name: "neon_auth",
      table_name: "users_sync",
    });
  });

  it("lists the integration record", async () => {
    const r = await h.api("GET", `/projects/${PROJECT}/auth/integrations`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      data: [
        {
          auth_provider: "stack",
          auth_provider_project_id: keys.auth_provider_project_id,
          branch_id: BRANCH,
          db_name: "neondb",
          created_at: "2025-01-01T12:00:00Z",
          owned_by: "neon",
          jwks_url: keys.jwks_url,
        },
      ],
    });
  });

  it("generate SDK keys returns a new key set for the same auth project", async () => {
    const r = await h.api("POST", "/projects/auth/keys", { body: { project_id: PROJECT, auth_provider: "stack" } });
    expect(r.status).toBe(201);
    expect(r.json.auth_provider_project_id).toBe(keys.auth_provider_project_id);
    expect(r.json.jwks_url).toBe(keys.jwks_url);
    expect(r.json.pub_client_key).toMatch(/^pck_/);
    expect(r.json.pub_client_key).not.toBe(keys.pub_client_key);
    expect(r.json.secret_server_key).not.toBe(keys.secret_server_key);
    expect(Object.keys(r.json).sort()).toEqual(Object.keys(keys).sort());
  });

  it("creates and deletes users, mirrored into neon_auth.users_sync", async () => {
    const a = await h.api("POST", "/projects/auth/user", {
      body: { project_id: PROJECT, auth_provider: "stack", email: "ada@example.com", name: "Ada" },
    });
    expect(a.status).toBe(201);
    expect(Object.keys(a.json)).toEqual(["id"]);
    expect(a.json.id).toMatch(UUID);
    const b = await h.api("POST", "/projects/auth/user", {
      body: { project_id: PROJECT, auth_provider: "stack", email: "bob@example.com" },
    });
    expect(b.status).toBe(201);

    const rows = await h.control("GET", `/projects/${PROJECT}/users_sync`);
    expect(rows.status).toBe(200);
    expect(rows.json).toEqual({
      schema: "neon_auth",
      table: "users_sync",
      rows: [
        { id: a.json.id, email: "ada@example.com", name: "Ada", created_at: "2025-01-01T12:00:00Z" },
        { id: b.json.id, email: "bob@example.com", name: null, created_at: "2025-01-01T12:00:00Z" },
      ],
    });

    const del = await h.api("DELETE", `/projects/${PROJECT}/auth/users/${a.json.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    const after = await h.control("GET", `/projects/${PROJECT}/users_sync`);
    expect(after.json.rows.map((r: any) => r.email)).toEqual(["bob@example.com"]);
  });

  it("manages OAuth providers: shared, standard, update, delete", async () => {
    const empty = await h.api("GET", `/projects/${PROJECT}/auth/oauth_providers`);
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({ providers: [] });

    const shared = await h.api("POST", `/projects/${PROJECT}/auth/oauth_providers`, { body: { id: "google" } });
    expect(shared.status).toBe(200);
    expect(shared.json).toEqual({ id: "google", type: "shared" });

    const std = await h.api("POST", `/projects/${PROJECT}/auth/oauth_providers`, {
      body: { id: "github", client_id: "gh-id", client_secret: "gh-secret" },
    });
    expect(std.status).toBe(200);
    expect(std.json).toEqual({ id: "github", type: "standard", client_id: "gh-id", client_secret: "gh-secret" });

    const list = await h.api("GET", `/projects/${PROJECT}/auth/oauth_providers`);
    expect(list.json).toEqual({
      providers: [
        { id: "google", type: "shared" },
        { id: "github", type: "standard" },
      ],
    });

    const upd = await h.api("PATCH", `/projects/${PROJECT}/auth/oauth_providers/google`, {
      body: { client_id: "g-id", client_secret: "g-secret" },
    });
    expect(upd.status).toBe(200);
    expect(upd.json).toEqual({ id: "google", type: "standard", client_id: "g-id", client_secret: "g-secret" });

    const rotate = await h.api("PATCH", `/projects/${PROJECT}/auth/oauth_providers/github`, { body: { client_secret: "gh-2" } });
    expect(rotate.json).toEqual({ id: "github", type: "standard", client_id: "gh-id", client_secret: "gh-2" });

    const del = await h.api("DELETE", `/projects/${PROJECT}/auth/oauth_providers/google`);
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    const after = await h.api("GET", `/projects/${PROJECT}/auth/oauth_providers`);
    expect(after.json).toEqual({ providers: [{ id: "github", type: "standard" }] });
  });

  it("manages the redirect whitelist: add 201 empty, list, batch delete 200 empty", async () => {
    for (const domain of ["https://app.example.com", "http://localhost:3000", "https://admin.example.com"]) {
      const r = await h.api("POST", `/projects/${PROJECT}/auth/domains`, { body: { domain, auth_provider: "stack" } });
      expect(r.status).toBe(201);
      expect(r.text).toBe("");
    }
    const again = await h.api("POST", `/projects/${PROJECT}/auth/domains`, {
      body: { domain: "https://app.example.com", auth_provider: "stack" },
    });
    expect(again.status).toBe(201);

    const list = await h.api("GET", `/projects/${PROJECT}/auth/domains`);
    expect(list.status).toBe(200);
    expect(list.json).toEqual({
      domains: [
        { domain: "https://app.example.com", auth_provider: "stack" },
        { domain: "http://localhost:3000", auth_provider: "stack" },
        { domain: "https://admin.example.com", auth_provider: "stack" },
      ],
    });

    const del = await h.api("DELETE", `/projects/${PROJECT}/auth/domains`, {
      body: { auth_provider: "stack", domains: [{ domain: "https://app.example.com" }, { domain: "https://not-there.example.com" }] },
    });
    expect(del.status).toBe(200);
    expect(del.text).toBe("");
    const after = await h.api("GET", `/projects/${PROJECT}/auth/domains`);
    expect(after.json.domains.map((d: any) => d.domain)).toEqual(["http://localhost:3000", "https://admin.example.com"]);
  });

  it("manages the email server: shared by default, PATCH returns the password, GET omits it", async () => {
    const initial = await h.api("GET", `/projects/${PROJECT}/auth/email_server`);
    expect(initial.status).toBe(200);
    expect(initial.json).toEqual({ type: "shared" });

    const smtp = {
      type: "standard",
      host: "smtp.example.com",
      port: 587,
      username: "mailer",
      password: "smtp-pass",
      sender_email: "noreply@example.com",
      sender_name: "Example",
    };
    const patched = await h.api("PATCH", `/projects/${PROJECT}/auth/email_server`, { body: smtp });
    expect(patched.status).toBe(200);
    expect(patched.json).toEqual(smtp);

    const got = await h.api("GET", `/projects/${PROJECT}/auth/email_server`);
    const { password: _p, ...withoutPassword } = smtp;
    expect(got.json).toEqual(withoutPassword);

    const back = await h.api("PATCH", `/projects/${PROJECT}/auth/email_server`, { body: { type: "shared" } });
    expect(back.status).toBe(200);
    expect(back.json).toEqual({ type: "shared" });
    expect((await h.api("GET", `/projects/${PROJECT}/auth/email_server`)).json).toEqual({ type: "shared" });
  });

  it("transfers ownership in two steps: URL with a one-time code, then confirmation", async () => {
    const t = await h.api("POST", "/projects/auth/transfer_ownership", { body: { project_id: PROJECT, auth_provider: "stack" } });
    expect(t.status).toBe(200);
    expect(Object.keys(t.json)).toEqual(["url"]);
    const url = new URL(t.json.url);
    expect(`${url.origin}${url.pathname}`).toBe("https://app.stack-auth.com/integrations/neon/projects/transfer/confirm");
    const code = url.searchParams.get("code") as string;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const initiated = await h.api("GET", `/projects/${PROJECT}/auth/integrations`);
    expect(initiated.json.data[0]).toMatchObject({ owned_by: "neon", transfer_status: "initiated" });

    const ok = await h.control("POST", "/transfers/confirm", { code });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ project_id: PROJECT, auth_provider: "stack", owned_by: "user", transfer_status: "finished" });

    const finished = await h.api("GET", `/projects/${PROJECT}/auth/integrations`);
    expect(finished.json.data[0]).toMatchObject({ owned_by: "user", transfer_status: "finished" });

    const reuse = await h.control("POST", "/transfers/confirm", { code });
    expect(reuse.status).toBe(409);
    expect(reuse.json.message).toBe("code: transfer code was already used");

    const unknown = await h.control("POST", "/transfers/confirm", { code: "nope" });
    expect(unknown.status).toBe(404);
    expect(unknown.json.message).toBe("code: transfer code not found");

    const again = await h.api("POST", "/projects/auth/transfer_ownership", { body: { project_id: PROJECT, auth_provider: "stack" } });
    expect(again.status).toBe(409);
  });

  it("delete integration answers 200 empty and removes everything under it", async () => {
    await h.api("POST", `/projects/${PROJECT}/auth/oauth_providers`, { body: { id: "microsoft" } });
    await h.api("PATCH", `/projects/${PROJECT}/auth/email_server`, {
      body: { type: "standard", host: "h", port: 25, username: "u", password: "p", sender_email: "a@b.co", sender_name: "n" },
    });
    const del = await h.api("DELETE", `/projects/${PROJECT}/auth/integration/stack`);
    expect(del.status).toBe(200);
    expect(del.text).toBe("");

    expect((await h.api("GET", `/projects/${PROJECT}/auth/integrations`)).json).toEqual({ data: [] });
    const providers = await h.api("GET", `/projects/${PROJECT}/auth/oauth_providers`);
    expect(providers.status).toBe(404);
    expect((await h.control("GET", `/projects/${PROJECT}/users_sync`)).status).toBe(404);

    // A new integration starts from scratch.
    const fresh = await enableAuth(h);
    expect(fresh.auth_provider_project_id).not.toBe(keys.auth_provider_project_id);
    expect((await h.api("GET", `/projects/${PROJECT}/auth/oauth_providers`)).json).toEqual({ providers: [] });
    expect((await h.api("GET", `/projects/${PROJECT}/auth/domains`)).json).toEqual({ domains: [] });
    expect((await h.api("GET", `/projects/${PROJECT}/auth/email_server`)).json).toEqual({ type: "shared" });
    expect((await h.control("GET", `/projects/${PROJECT}/users_sync`)).json.rows).toEqual([]);
    const list = await h.api("GET", `/projects/${PROJECT}/auth/integrations`);
    expect(list.json.data[0].owned_by).toBe("neon");
    expect(list.json.data[0].created_at).toMatch(ISO_UTC);
    expect("transfer_status" in list.json.data[0]).toBe(false);
  });

  it("accepts database_name and role_name and reports db_name", async () => {
    const p = await h.api("POST", "/projects", { body: { project: { name: "custom-db" } } });
    await clock.advance(500);
    const r = await h.api("POST", "/projects/auth/create", {
      body: { auth_provider: "stack", project_id: p.json.project.id, branch_id: p.json.branch.id, database_name: "app", role_name: "app_owner" },
    });
    expect(r.status).toBe(201);
    const list = await h.api("GET", `/projects/${p.json.project.id}/auth/integrations`);
    expect(list.json.data[0]).toMatchObject({ branch_id: p.json.branch.id, db_name: "app" });
  });
});
