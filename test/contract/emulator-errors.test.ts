/** Error paths: envelope, request ids, 400 naming the field, 401, 404 isolation, 409, 423. */
import { describe, expect, it } from "vitest";
import { BRANCH, enableAuth, KEY_B, manualClock, PROJECT, startHarness, UUID, useHarness } from "./emulator-helpers";

const LOCKED = "project already has running conflicting operations, scheduling of new ones is prohibited";
const clock = manualClock();
const h = useHarness({ clock, rateLimit: "off", seedProjects: [PROJECT, "p-bare"] }, enableAuth);

const ORIGIN_FORM = "must be an origin of the form https://host[:port], with no path, query, fragment or credentials";

function expectError(r: { status: number; json: any; headers: Headers }, status: number, message: string) {
  expect(r.status).toBe(status);
  expect(r.json).toEqual({ code: "", message, request_id: r.headers.get("x-neon-ret-request-id") });
}

describe("envelope and request ids", () => {
  it("echoes a client's X-Request-ID on success and error", async () => {
    const ok = await h.api("GET", `/projects/${PROJECT}`, { headers: { "X-Request-ID": "req-123" } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-neon-ret-request-id")).toBe("req-123");
    const bad = await h.api("GET", "/projects/NOPE!", { headers: { "X-Request-ID": "req-456" } });
    expect(bad.headers.get("x-neon-ret-request-id")).toBe("req-456");
    expect(bad.json.request_id).toBe("req-456");
  });

  it("generates a uuid request id when none is sent, also on control routes", async () => {
    const r = await h.api("GET", `/projects/${PROJECT}`);
    expect(r.headers.get("x-neon-ret-request-id")).toMatch(UUID);
    const c = await h.control("GET", "/health");
    expect(c.headers.get("x-neon-ret-request-id")).toMatch(UUID);
  });

  it("answers 404 with the envelope for unknown routes, inside and outside /api/v2", async () => {
    expectError(await h.api("GET", "/nothing/here"), 404, "no route for GET /api/v2/nothing/here");
    const outside = await fetch(h.emu.url.replace("/api/v2", "/elsewhere"));
    const body = await outside.json();
    expect(outside.status).toBe(404);
    expect(body).toEqual({ code: "", message: "no route for GET /elsewhere", request_id: outside.headers.get("x-neon-ret-request-id") });
  });

  it("answers 405 with the envelope and Allow for a known path with another method", async () => {
    const r = await h.api("PUT", `/projects/${PROJECT}/auth/domains`, { body: {} });
    expectError(r, 405, `method PUT is not allowed on /api/v2/projects/${PROJECT}/auth/domains`);
    expect(r.headers.get("allow")).toBe("DELETE, GET, POST");
  });

  it("answers 400 for invalid JSON and 415 for form-encoded bodies", async () => {
    const r = await h.api("POST", "/projects/auth/user", { rawBody: "{not json" });
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/^body: invalid JSON \(/);
    const form = await h.api("POST", "/projects/auth/user", {
      rawBody: "project_id=p&auth_provider=stack&email=a%40b.co",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expectError(form, 415, "content-type: application/x-www-form-urlencoded is not supported; send application/json");
    const arr = await h.api("POST", "/projects/auth/user", { body: [1] });
    expectError(arr, 400, "body: must be a JSON object");
  });
});

describe("400 validation names the field", () => {
  const user = { project_id: PROJECT, auth_provider: "stack", email: "ok@example.com" };
  it.each([
    ["bad email", "/projects/auth/user", { ...user, email: "not-an-email" }, "email: must be a valid email address"],
    ["missing email", "/projects/auth/user", { project_id: PROJECT, auth_provider: "stack" }, "email: is required"],
    ["empty name", "/projects/auth/user", { ...user, name: "" }, "name: must not be empty or only whitespace"],
    ["long name", "/projects/auth/user", { ...user, name: "x".repeat(256) }, "name: must be at most 255 characters"],
    [
      "auth_provider other than stack",
      "/projects/auth/user",
      { ...user, auth_provider: "better_auth" },
      'auth_provider: must be "stack", the only auth provider of this API generation',
    ],
    [
      "project id pattern",
      "/projects/auth/user",
      { ...user, project_id: "Bad_Project" },
      "project_id: must match ^[a-z0-9-]{1,60}$ (lowercase letters, digits and '-', 1 to 60 characters)",
    ],
    [
      "branch id pattern",
      "/projects/auth/create",
      { auth_provider: "stack", project_id: PROJECT, branch_id: "x".repeat(61) },
      "branch_id: must match ^[a-z0-9-]{1,60}$ (lowercase letters, digits and '-', 1 to 60 characters)",
    ],
    ["unknown field", "/projects/auth/user", { ...user, nickname: "n" }, "nickname: is not a known field"],
    [
      "several fields at once",
      "/projects/auth/user",
      { project_id: PROJECT, auth_provider: "stack", email: "x", name: "" },
      "email: must be a valid email address; name: must not be empty or only whitespace",
    ],
  ])("%s", async (_label, path, body, message) => {
    expectError(await h.api("POST", path, { body }), 400, message);
  });

  it("unknown OAuth provider id (body and path)", async () => {
    expectError(
      await h.api("POST", `/projects/${PROJECT}/auth/oauth_providers`, { body: { id: "facebook" } }),
      400,
      'id: must be one of "google", "github", "microsoft"',
    );
    expectError(
      await h.api("PATCH", `/projects/${PROJECT}/auth/oauth_providers/facebook`, { body: {} }),
      400,
      'oauth_provider_id: must be one of "google", "github", "microsoft"',
    );
  });

  it("OAuth credentials must come together", async () => {
    expectError(
      await h.api("POST", `/projects/${PROJECT}/auth/oauth_providers`, { body: { id: "google", client_id: "only-id" } }),
      400,
      "client_secret: client_id and client_secret must be given together (both for standard, neither for shared)",
    );
  });

  it.each([
    ["https://app.example.com/", "trailing slash", "must have no path, not even a trailing slash"],
    ["https://app.example.com/callback", "path", ORIGIN_FORM],
    // The emulator checks with the package's own rule (wording: assumption), which answers a bare host with the origin meant.
    ["app.example.com", "no scheme", `${ORIGIN_FORM}: did you mean https://app.example.com?`],
    ["ftp://app.example.com", "other scheme", "must use https (or http for a loopback host)"],
    ["https://app.example.com:70000", "port out of range", "port must be a number between 1 and 65535 without leading zeros"],
    ["http://app.example.com", "http off loopback", "must use https (http is accepted for loopback hosts only)"],
  ])("domain %s (%s)", async (domain, _what, rule) => {
    expectError(
      await h.api("POST", `/projects/${PROJECT}/auth/domains`, { body: { domain, auth_provider: "stack" } }),
      400,
      `domain: ${rule}`,
    );
  });

  it("email server: standard missing fields, bad port, unknown type", async () => {
    const path = `/projects/${PROJECT}/auth/email_server`;
    expectError(
      await h.api("PATCH", path, { body: { type: "standard", host: "smtp.example.com", port: 587 } }),
      400,
      "username: is required; password: is required; sender_email: is required; sender_name: is required",
    );
    const full = { type: "standard", host: "h", username: "u", password: "p", sender_email: "a@b.co", sender_name: "n" };
    expectError(await h.api("PATCH", path, { body: { ...full, port: 0 } }), 400, "port: must be between 1 and 65535");
    expectError(await h.api("PATCH", path, { body: { ...full, port: 65536 } }), 400, "port: must be between 1 and 65535");
    expectError(await h.api("PATCH", path, { body: { ...full, port: "587" } }), 400, "port: must be a number");
    expectError(await h.api("PATCH", path, { body: { type: "custom" } }), 400, 'type: must be "shared" or "standard"');
  });

  it("project id in the path", async () => {
    expectError(
      await h.api("GET", "/projects/Not_Valid/auth/domains"),
      400,
      "project_id: must match ^[a-z0-9-]{1,60}$ (lowercase letters, digits and '-', 1 to 60 characters)",
    );
  });

  it("auth provider in the path", async () => {
    expectError(
      await h.api("DELETE", `/projects/${PROJECT}/auth/integration/mock`),
      400,
      'auth_provider: must be "stack", the only auth provider of this API generation',
    );
  });

  it("a body nested deeper than 32 levels is a 400, never a 500", async () => {
    for (const depth of [33, 100_000]) {
      const r = await h.api("PATCH", `/projects/${PROJECT}/auth/email_server`, { rawBody: `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}` });
      expectError(r, 400, "body: nested deeper than 32 levels");
    }
    const r = await h.api("PATCH", `/projects/${PROJECT}/auth/email_server`, { rawBody: `${'{"a":'.repeat(32)}1${"}".repeat(32)}` });
    expect([r.status, r.json.message]).toEqual([400, expect.not.stringContaining("nested")]);
  });

  it("domains delete needs at least one domain", async () => {
    expectError(
      await h.api("DELETE", `/projects/${PROJECT}/auth/domains`, { body: { auth_provider: "stack", domains: [] } }),
      400,
      "domains: must name at least one domain",
    );
  });
});

describe("401 and isolation between keys", () => {
  it("401 without a key and with an unknown key", async () => {
    expectError(
      await h.api("GET", `/projects/${PROJECT}`, { key: null }),
      401,
      "authentication required: send Authorization: Bearer <API key>",
    );
    expectError(await h.api("GET", `/projects/${PROJECT}`, { key: "wrong" }), 401, "authentication failed: unknown API key");
  });

  it("another key sees 404 for every route of a project it did not create", async () => {
    expectError(await h.api("GET", `/projects/${PROJECT}`, { key: KEY_B }), 404, `project ${PROJECT} not found`);
    expectError(await h.api("GET", `/projects/${PROJECT}/auth/integrations`, { key: KEY_B }), 404, `project ${PROJECT} not found`);
    expectError(
      await h.api("POST", "/projects/auth/user", { key: KEY_B, body: { project_id: PROJECT, auth_provider: "stack", email: "x@y.co" } }),
      404,
      `project ${PROJECT} not found`,
    );
    expectError(await h.api("DELETE", `/projects/${PROJECT}/auth/integration/stack`, { key: KEY_B }), 404, `project ${PROJECT} not found`);
    // Still there for its owner.
    expect((await h.api("GET", `/projects/${PROJECT}/auth/integrations`)).json.data).toHaveLength(1);
  });

  it("projects created by key B are invisible to key A", async () => {
    const p = await h.api("POST", "/projects", { key: KEY_B, body: {} });
    expect(p.status).toBe(201);
    const id = p.json.project.id;
    expect((await h.api("GET", `/projects/${id}`, { key: KEY_B })).status).toBe(200);
    expectError(await h.api("GET", `/projects/${id}`), 404, `project ${id} not found`);
    const listA = await h.api("GET", "/projects");
    expect(listA.json.projects.map((x: any) => x.id)).not.toContain(id);
  });
});

describe("404 for missing objects", () => {
  it("unknown project", async () => {
    expectError(await h.api("GET", "/projects/p-missing"), 404, "project p-missing not found");
    expectError(
      await h.api("POST", "/projects/auth/create", { body: { auth_provider: "stack", project_id: "p-missing", branch_id: BRANCH } }),
      404,
      "project p-missing not found",
    );
  });

  it("branch that is not a branch of the project", async () => {
    expectError(
      await h.api("POST", "/projects/auth/create", { body: { auth_provider: "stack", project_id: "p-bare", branch_id: BRANCH } }),
      404,
      `branch ${BRANCH} not found in project p-bare`,
    );
  });

  it("auth endpoints of a project without integration", async () => {
    const msg = "auth is not enabled for project p-bare: no stack integration";
    expectError(await h.api("GET", "/projects/p-bare/auth/oauth_providers"), 404, msg);
    expectError(await h.api("GET", "/projects/p-bare/auth/domains"), 404, msg);
    expectError(await h.api("GET", "/projects/p-bare/auth/email_server"), 404, msg);
    expectError(await h.api("POST", "/projects/auth/keys", { body: { project_id: "p-bare", auth_provider: "stack" } }), 404, msg);
    expectError(
      await h.api("POST", "/projects/auth/transfer_ownership", { body: { project_id: "p-bare", auth_provider: "stack" } }),
      404,
      msg,
    );
    expectError(
      await h.api("POST", "/projects/auth/user", { body: { project_id: "p-bare", auth_provider: "stack", email: "a@b.co" } }),
      404,
      msg,
    );
    expectError(await h.api("DELETE", "/projects/p-bare/auth/integration/stack"), 404, msg);
    // The list of integrations is the exception: it is empty.
    expect((await h.api("GET", "/projects/p-bare/auth/integrations")).json).toEqual({ data: [] });
  });

  it("unknown user, OAuth provider, operation", async () => {
    expectError(await h.api("DELETE", `/projects/${PROJECT}/auth/users/u-404`), 404, "user u-404 not found");
    expectError(await h.api("DELETE", `/projects/${PROJECT}/auth/oauth_providers/microsoft`), 404, "OAuth provider microsoft not found");
    expectError(
      await h.api("PATCH", `/projects/${PROJECT}/auth/oauth_providers/microsoft`, { body: { client_id: "a", client_secret: "b" } }),
      404,
      "OAuth provider microsoft not found",
    );
    expectError(await h.api("GET", `/projects/${PROJECT}/operations/op-404`), 404, "operation op-404 not found");
  });
});

describe("409 conflicts", () => {
  it("second integration of the same provider", async () => {
    expectError(
      await h.api("POST", "/projects/auth/create", { body: { auth_provider: "stack", project_id: PROJECT, branch_id: BRANCH } }),
      409,
      `project ${PROJECT} already has an integration with auth provider stack`,
    );
  });

  it("duplicate user email (case-insensitive)", async () => {
    const body = { project_id: PROJECT, auth_provider: "stack", email: "dup@example.com" };
    expect((await h.api("POST", "/projects/auth/user", { body })).status).toBe(201);
    expectError(
      await h.api("POST", "/projects/auth/user", { body: { ...body, email: "DUP@example.com" } }),
      409,
      "email: a user with email DUP@example.com already exists",
    );
  });

  it("adding an OAuth provider twice", async () => {
    expect((await h.api("POST", `/projects/${PROJECT}/auth/oauth_providers`, { body: { id: "google" } })).status).toBe(200);
    expectError(
      await h.api("POST", `/projects/${PROJECT}/auth/oauth_providers`, { body: { id: "google" } }),
      409,
      "id: OAuth provider google is already configured",
    );
  });
});

describe("423 while a project operation runs", () => {
  it("locks writes to the project's auth endpoints until the operation finishes", async () => {
    const slow = await startHarness({ clock, rateLimit: "off", operationDelayMs: 1_000, seedProjects: [] });
    try {
      const p = await slow.api("POST", "/projects", { body: { project: { name: "locked" } } });
      const id = p.json.project.id;
      const branch = p.json.branch.id;
      const create = { auth_provider: "stack", project_id: id, branch_id: branch };
      expectError(await slow.api("POST", "/projects/auth/create", { body: create }), 423, LOCKED);
      // Reads still work while locked.
      expect((await slow.api("GET", `/projects/${id}/auth/integrations`)).status).toBe(200);
      const op = await slow.api("GET", `/projects/${id}/operations/${p.json.operations[0].id}`);
      expect(op.json.operation.status).toBe("running");

      await clock.advance(1_000);
      expect((await slow.api("GET", `/projects/${id}/operations/${p.json.operations[0].id}`)).json.operation.status).toBe("finished");
      expect((await slow.api("POST", "/projects/auth/create", { body: create })).status).toBe(201);
      expect((await slow.api("POST", `/projects/${id}/auth/domains`, { body: { domain: "https://a.example.com", auth_provider: "stack" } })).status).toBe(201);

      // A second project's operations lock only that project.
      const q = await slow.api("POST", "/projects", { body: {} });
      expectError(
        await slow.api("POST", "/projects/auth/create", { body: { auth_provider: "stack", project_id: q.json.project.id, branch_id: q.json.branch.id } }),
        423,
        LOCKED,
      );
      expectError(await slow.api("DELETE", `/projects/${q.json.project.id}/auth/integration/stack`), 423, LOCKED);
      expect((await slow.api("POST", `/projects/${id}/auth/oauth_providers`, { body: { id: "github" } })).status).toBe(200);
    } finally {
      await slow.close();
    }
  });
});
