/**
 * The branch-scoped generation on the emulator: branches, the integration, users, trusted domains
 * and OAuth providers; success and error statuses, exact bodies, every answer checked against
 * Neon's OpenAPI document (branch-helpers.ts).
 */
import { describe, expect, it } from "vitest";
import { hostingEndpoints as H } from "../../src/schemas/endpointsProject";
import { B, caller, enable, IDS, useBranchHarness } from "./branch-helpers";
import { betterAuthEnabled, betterAuthRecord, BRANCH, ISO_UTC, KEY_B, manualClock, PROJECT, UUID, type Harness } from "./emulator-helpers";

const clock = manualClock();
let h: Harness;
let call: ReturnType<typeof caller>;

useBranchHarness({ clock, operationDelayMs: 500, rateLimit: "off" }, (t) => ({ h, call } = t));

async function newBranch(name?: string): Promise<string> {
  const r = await call(H.createBranch, { project_id: PROJECT }, { body: name === undefined ? {} : { branch: { name } } });
  await clock.advance(500);
  return r.json.branch.id as string;
}

describe("branches", () => {
  it("creates a branch with a create_branch operation that locks the project until it finishes", async () => {
    const r = await call(H.createBranch, { project_id: PROJECT }, { body: { branch: { name: "preview-1" } } });
    expect(r.status).toBe(201);
    const b = r.json.branch;
    expect(b).toMatchObject({ project_id: PROJECT, name: "preview-1", default: false, parent_id: BRANCH, current_state: "init" });
    expect(b.id).toMatch(/^br-[a-z]+-[a-z]+-[0-9a-f]{8}$/);
    expect(r.json.operations.map((o: { action: string; status: string; branch_id: string }) => [o.action, o.status, o.branch_id])).toEqual([
      ["create_branch", "running", b.id],
    ]);
    const locked = await call(B.enableBranchAuth, { project_id: PROJECT, branch_id: b.id }, { body: { auth_provider: "better_auth" } });
    expect(locked.status).toBe(423);
    await clock.advance(500);
    const got = await call(H.getBranch, { project_id: PROJECT, branch_id: b.id });
    expect(got.status).toBe(200);
    expect(got.json.branch).toEqual({ ...b, current_state: "ready" });
    expect((await call(B.enableBranchAuth, { project_id: PROJECT, branch_id: b.id }, { body: { auth_provider: "better_auth" } })).status).toBe(201);
  });

  it("answers 404 for an unknown branch or parent, and for another key's project", async () => {
    expect((await call(H.getBranch, { project_id: PROJECT, branch_id: "br-nope" })).status).toBe(404);
    const r = await call(H.createBranch, { project_id: PROJECT }, { body: { branch: { parent_id: "br-nope" } } });
    expect([r.status, r.json.message]).toEqual([404, `parent branch br-nope not found in project ${PROJECT}`]);
    expect((await call(H.getBranch, IDS, { key: KEY_B })).status).toBe(404);
  });
});

describe("integration", () => {
  it("404 before enabling, 201 with empty keys for Better Auth, 409 on enabling twice, then the record", async () => {
    const before = await call(B.getBranchAuth, IDS);
    expect([before.status, before.json.message]).toEqual([404, `auth is not enabled on branch ${BRANCH} of project ${PROJECT}`]);
    const r = await enable(h);
    const id = r.json.auth_provider_project_id;
    expect(id).toMatch(UUID);
    expect(r.json).toEqual(betterAuthEnabled(id));
    const again = await call(B.enableBranchAuth, IDS, { body: { auth_provider: "better_auth" } });
    expect([again.status, again.json.message]).toEqual([409, `auth is already enabled on branch ${BRANCH}`]);
    const got = await call(B.getBranchAuth, IDS);
    expect(got.json.created_at).toMatch(ISO_UTC);
    expect(got.json).toEqual(betterAuthRecord(id, PROJECT, BRANCH, got.json.created_at));
  });

  it("gives stack its keys, takes database_name, and refuses unknown providers and branches", async () => {
    const other = await newBranch();
    const r = await call(B.enableBranchAuth, { project_id: PROJECT, branch_id: other }, { body: { auth_provider: "stack", database_name: "app" } });
    expect(r.status).toBe(201);
    expect(r.json.pub_client_key).toMatch(/^pck_[0-9a-f]{48}$/);
    expect(r.json.secret_server_key).toMatch(/^ssk_[0-9a-f]{48}$/);
    expect(r.json.base_url).toBeUndefined();
    expect((await call(B.getBranchAuth, { project_id: PROJECT, branch_id: other })).json.db_name).toBe("app");
    const bad = await call(B.enableBranchAuth, IDS, { body: { auth_provider: "auth0" } });
    expect([bad.status, bad.json.message]).toEqual([400, 'auth_provider: must be one of "better_auth", "stack", "mock"']);
    expect((await call(B.enableBranchAuth, { project_id: PROJECT, branch_id: "br-nope" }, { body: { auth_provider: "better_auth" } })).status).toBe(404);
    const badId = await call(B.getBranchAuth, { project_id: PROJECT, branch_id: "BR_UPPER" });
    expect([badId.status, badId.json.message]).toEqual([400, "branch_id: must match ^[a-z0-9-]{1,60}$ (lowercase letters, digits and '-', 1 to 60 characters)"]);
  });

  it("sets the app name, read back through GET …/auth", async () => {
    await enable(h);
    const r = await call(B.updateBranchAppName, IDS, { body: { name: "Acme" } });
    expect([r.status, r.json]).toEqual([200, { name: "Acme" }]);
    expect((await call(B.getBranchAuth, IDS)).json.name).toBe("Acme");
    expect((await call(B.updateBranchAppName, IDS, { body: { name: "" } })).json.message).toBe("name: must not be empty or only whitespace");
  });

  it("disable without delete_data keeps the users for a re-enable; with it, drops them", async () => {
    await enable(h);
    const u = await call(B.createBranchUser, IDS, { body: { email: "a@example.com" } });
    await call(B.addBranchDomain, IDS, { body: { domain: "https://app.example.com", auth_provider: "better_auth" } });
    const off = await call(B.disableBranchAuth, IDS);
    expect([off.status, off.text]).toEqual([200, ""]);
    expect((await call(B.getBranchAuth, IDS)).status).toBe(404);
    expect((await call(B.disableBranchAuth, IDS)).status).toBe(404);
    const kept = await h.control("GET", `/projects/${PROJECT}/branches/${BRANCH}/auth`);
    expect(kept.json.auth).toBeNull();
    expect(kept.json.neon_auth.users.map((x: { id: string; email: string }) => [x.id, x.email])).toEqual([[u.json.id, "a@example.com"]]);

    await enable(h);
    expect((await call(B.listBranchDomains, IDS)).json).toEqual({ domains: [] });
    const dup = await call(B.createBranchUser, IDS, { body: { email: "A@example.com" } });
    expect([dup.status, dup.json.message]).toEqual([409, "email: a user with email A@example.com already exists"]);

    expect((await call(B.disableBranchAuth, IDS, { body: { delete_data: true } })).status).toBe(200);
    expect((await h.control("GET", `/projects/${PROJECT}/branches/${BRANCH}/auth`)).json.neon_auth).toBeNull();
    expect((await call(B.disableBranchAuth, IDS, { body: { delete_data: "yes" } })).status).toBe(400);
  });

  it("keeps each branch's integration to itself", async () => {
    const other = await newBranch();
    const two = { project_id: PROJECT, branch_id: other };
    await enable(h);
    await enable(h, two);
    await call(B.updateBranchAllowLocalhost, IDS, { body: { allow_localhost: false } });
    await call(B.addBranchOAuthProvider, two, { body: { id: "github", client_id: "cid", client_secret: "s1" } });
    expect((await call(B.getBranchAllowLocalhost, two)).json).toEqual({ allow_localhost: true });
    expect((await call(B.listBranchOAuthProviders, IDS)).json).toEqual({ providers: [{ id: "google", type: "shared" }] });
    await call(B.disableBranchAuth, two);
    expect((await call(B.getBranchAuth, IDS)).status).toBe(200);
  });

  it("answers 401 without a key and 404 to a key that cannot see the project", async () => {
    await enable(h);
    expect((await call(B.getBranchAuth, IDS, { key: null })).status).toBe(401);
    expect((await call(B.getBranchAuth, IDS, { key: KEY_B })).json.message).toBe(`project ${PROJECT} not found`);
  });
});

describe("users", () => {
  it("creates (201), sets roles (200), deletes (204); 404 for unknown users, 400 for no roles", async () => {
    await enable(h);
    const r = await call(B.createBranchUser, IDS, { body: { email: "ann@example.com", name: "Ann" } });
    expect(r.status).toBe(201);
    expect(Object.keys(r.json)).toEqual(["id"]);
    const user = { ...IDS, auth_user_id: r.json.id as string };
    const roles = await call(B.setBranchUserRoles, user, { body: { roles: ["admin", "billing"] } });
    expect([roles.status, roles.json]).toEqual([200, { id: user.auth_user_id }]);
    const seen = await h.control("GET", `/projects/${PROJECT}/branches/${BRANCH}/auth`);
    expect(seen.json.neon_auth.users.map((u: { roles: string[]; name: string }) => [u.name, u.roles])).toEqual([["Ann", ["admin", "billing"]]]);
    expect((await call(B.setBranchUserRoles, user, { body: { roles: [] } })).json.message).toBe("roles: must name at least one role");
    expect((await call(B.setBranchUserRoles, { ...IDS, auth_user_id: "nobody" }, { body: { roles: ["user"] } })).status).toBe(404);
    const del = await call(B.deleteBranchUser, user);
    expect([del.status, del.text]).toEqual([204, ""]);
    expect((await call(B.deleteBranchUser, user)).status).toBe(404);
    expect((await call(B.createBranchUser, IDS, { body: { email: "not-an-email" } })).json.message).toBe("email: must be a valid email address");
  });
});

describe("trusted domains", () => {
  it("adds (201, no body), lists, deletes a batch (200); the provider must be the integration's", async () => {
    await enable(h);
    for (const domain of ["https://a.example.com", "https://b.example.com", "https://c.example.com"]) {
      const r = await call(B.addBranchDomain, IDS, { body: { domain, auth_provider: "better_auth" } });
      expect([r.status, r.text]).toEqual([201, ""]);
    }
    const wrong = await call(B.addBranchDomain, IDS, { body: { domain: "https://d.example.com", auth_provider: "stack" } });
    expect([wrong.status, wrong.json.message]).toEqual([400, 'auth_provider: must be "better_auth", the provider of this branch\'s integration']);
    expect((await call(B.addBranchDomain, IDS, { body: { domain: "https://x.example.com/path", auth_provider: "better_auth" } })).status).toBe(400);
    const del = await call(B.deleteBranchDomains, IDS, { body: { auth_provider: "better_auth", domains: [{ domain: "https://a.example.com" }, { domain: "https://C.example.com" }] } });
    expect([del.status, del.text]).toEqual([200, ""]);
    expect((await call(B.listBranchDomains, IDS)).json).toEqual({ domains: [{ domain: "https://b.example.com", auth_provider: "better_auth" }] });
  });
});

describe("OAuth providers", () => {
  it("a new integration has Google with Neon's shared credentials, and nothing else", async () => {
    await enable(h);
    expect((await call(B.listBranchOAuthProviders, IDS)).json).toEqual({ providers: [{ id: "google", type: "shared" }] });
    const again = await call(B.addBranchOAuthProvider, IDS, { body: { id: "google" } });
    expect(again.status).toBe(409);
  });

  it("shared and standard providers; secrets echoed only by add and update; the tenant id never", async () => {
    await enable(h);
    expect((await call(B.deleteBranchOAuthProvider, { ...IDS, oauth_provider_id: "google" })).status).toBe(200);
    const g = await call(B.addBranchOAuthProvider, IDS, { body: { id: "google" } });
    expect([g.status, g.json]).toEqual([200, { id: "google", type: "shared" }]);
    const m = await call(B.addBranchOAuthProvider, IDS, { body: { id: "microsoft", client_id: "cid", client_secret: "s1", microsoft_tenant_id: "t-1" } });
    expect(m.json).toEqual({ id: "microsoft", type: "standard", client_id: "cid", client_secret: "s1" });
    expect((await call(B.listBranchOAuthProviders, IDS)).json).toEqual({
      providers: [{ id: "google", type: "shared" }, { id: "microsoft", type: "standard", client_id: "cid" }],
    });
    const rotated = await call(B.updateBranchOAuthProvider, { ...IDS, oauth_provider_id: "microsoft" }, { body: { client_secret: "s2" } });
    expect(rotated.json).toEqual({ id: "microsoft", type: "standard", client_id: "cid", client_secret: "s2" });
    const state = await h.control("GET", `/projects/${PROJECT}/branches/${BRANCH}/auth?secrets=true`);
    expect(state.json.auth.oauth_providers[1]).toEqual({ id: "microsoft", type: "standard", client_id: "cid", client_secret: "s2", microsoft_tenant_id: "t-1" });
    const redacted = await h.control("GET", `/projects/${PROJECT}/branches/${BRANCH}/auth`);
    expect(redacted.json.auth.oauth_providers[1].client_secret).toBe("[redacted]");
  });

  it("INVALID_SHARED_OAUTH_PROVIDER for github, microsoft and vercel without credentials (Google only is shared); 409, 404 and 400 cases", async () => {
    await enable(h);
    for (const id of ["github", "vercel", "microsoft"]) {
      const r = await call(B.addBranchOAuthProvider, IDS, { body: { id } });
      expect([r.status, r.json.code]).toEqual([400, "INVALID_SHARED_OAUTH_PROVIDER"]);
    }
    await call(B.addBranchOAuthProvider, IDS, { body: { id: "google" } });
    expect((await call(B.addBranchOAuthProvider, IDS, { body: { id: "google" } })).status).toBe(409);
    const google = { ...IDS, oauth_provider_id: "google" };
    expect((await call(B.updateBranchOAuthProvider, google, { body: { client_id: "only-id" } })).json.message).toBe(
      "client_secret: is required to use own credentials (standard)",
    );
    expect((await call(B.updateBranchOAuthProvider, google, { body: { microsoft_tenant_id: "t" } })).json.message).toBe(
      'microsoft_tenant_id: is only accepted for the "microsoft" provider',
    );
    expect((await call(B.addBranchOAuthProvider, IDS, { body: { id: "google", microsoft_tenant_id: "t" } })).status).toBe(400);
    expect((await call(B.updateBranchOAuthProvider, { ...IDS, oauth_provider_id: "github" }, { body: {} })).status).toBe(404);
    expect((await call(B.deleteBranchOAuthProvider, { ...IDS, oauth_provider_id: "apple" })).status).toBe(400);
    const del = await call(B.deleteBranchOAuthProvider, google);
    expect([del.status, del.text]).toEqual([200, ""]);
    expect((await call(B.deleteBranchOAuthProvider, google)).status).toBe(404);
  });
});
