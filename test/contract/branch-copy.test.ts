/**
 * Auth branches with the database (https://neon.com/docs/auth/branching-authentication): a branch
 * made from a parent with a branch-scoped integration has an independent copy of everything
 * (settings, OAuth providers with their credentials, trusted domains, email provider, webhooks,
 * plugins, app name, users with roles, rows in its own `neon_auth."user"`) under its own auth
 * endpoint; later changes on either side never reach the other. A project-level integration does
 * not branch.
 */
import { Client } from "pg";
import { describe, expect, it } from "vitest";
import { fillPath } from "../../src/schemas/endpoint";
import { B, caller, enable, IDS } from "./branch-helpers";
import { BRANCH, enableAuth, PROJECT, startHarness, type Harness } from "./emulator-helpers";

async function sql(h: Harness, branch: string, text: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  const r = await h.api("GET", `/projects/${PROJECT}/connection_uri?database_name=neondb&role_name=neondb_owner&branch_id=${branch}`);
  expect(r.status).toBe(200);
  const c = new Client({ connectionString: r.json.uri, connectionTimeoutMillis: 20_000 });
  await c.connect();
  try {
    return (await c.query(text, params)).rows;
  } finally {
    await c.end();
  }
}

const USERS = `SELECT id::text, name, email, role FROM neon_auth."user" ORDER BY email`;

async function newBranch(h: Harness, parent?: string): Promise<string> {
  const r = await h.api("POST", `/projects/${PROJECT}/branches`, { body: { branch: { name: "preview", ...(parent === undefined ? {} : { parent_id: parent }) } } });
  expect(r.status).toBe(201);
  return r.json.branch.id as string;
}

/** What a branch's integration holds, secrets included, without what is the endpoint's own. */
async function settingsOf(h: Harness, branch: string) {
  const dump = (await h.control("GET", `/projects/${PROJECT}/branches/${branch}/auth?secrets=true`)).json;
  const { auth_provider_project_id: _id, created_at: _at, created_ms: _ms, ...settings } = dump.auth;
  return { settings, users: dump.neon_auth.users.map((u: any) => ({ id: u.id, email: u.email, name: u.name, roles: u.roles })) };
}

describe("branching copies auth", () => {
  it("a child of a Better Auth branch has an independent copy under its own endpoint", { timeout: 240_000 }, async () => {
    const h = await startHarness({ rateLimit: "off" });
    const call = caller(h);
    try {
      await enable(h);
      const setUp: [Parameters<typeof call>[0], unknown][] = [
        [B.addBranchDomain, { domain: "https://app.example.com", auth_provider: "better_auth" }],
        [B.addBranchOAuthProvider, { id: "github", client_id: "gh-id", client_secret: "gh-secret-1" }],
        [B.updateBranchEmailProvider, { type: "standard", host: "smtp.example.com", port: 587, username: "u", password: "smtp-pw-1", sender_email: "a@example.com", sender_name: "A" }],
        [B.putBranchWebhooks, { enabled: true, webhook_url: "https://hooks.example.com/x", enabled_events: ["user.created"], timeout_seconds: 3 }],
        [B.updateBranchOrganizationPlugin, { organization_limit: 3 }],
        [B.updateBranchMagicLinkPlugin, { enabled: true }],
        [B.updateBranchAllowLocalhost, { allow_localhost: false }],
        [B.updateBranchAppName, { name: "Prod app" }],
      ];
      for (const [e, body] of setUp) expect((await call(e, IDS, { body })).status).toBeLessThan(300);
      const ann = (await call(B.createBranchUser, IDS, { body: { email: "ann@example.com", name: "Ann" } })).json.id;
      await call(B.setBranchUserRoles, { ...IDS, auth_user_id: ann }, { body: { roles: ["admin", "billing"] } });
      // A change made by SQL in the parent's table before branching is part of the copy.
      await sql(h, BRANCH, `INSERT INTO neon_auth."user" (name, email, "emailVerified", role) VALUES ('Bo', 'bo@example.com', true, 'user')`);
      const parentRows = await sql(h, BRANCH, USERS);
      const parentBefore = await settingsOf(h, BRANCH);

      const child = await newBranch(h);
      const CHILD = { project_id: PROJECT, branch_id: child };
      expect(await settingsOf(h, child)).toEqual(parentBefore);
      expect(await sql(h, child, USERS)).toEqual(parentRows);
      expect((await sql(h, child, `SELECT name, trusted_origins FROM neon_auth.project_config`))).toEqual([{ name: "Prod app", trusted_origins: ["https://app.example.com"] }]);

      // The API on the child: auth is there (200), so enabling it again is a conflict (409).
      const [p, c] = [(await call(B.getBranchAuth, IDS)).json, (await call(B.getBranchAuth, CHILD)).json];
      expect(c.branch_id).toBe(child);
      expect([c.name, c.auth_provider, c.db_name]).toEqual([p.name, p.auth_provider, p.db_name]);
      expect(c.auth_provider_project_id).not.toBe(p.auth_provider_project_id);
      expect(c.base_url).not.toBe(p.base_url);
      expect(c.jwks_url).not.toBe(p.jwks_url);
      expect((await call(B.enableBranchAuth, CHILD, { body: { auth_provider: "better_auth" } })).status).toBe(409);
      expect((await call(B.listBranchOAuthProviders, CHILD)).json.providers).toEqual([
        { id: "google", type: "shared" },
        { id: "github", type: "standard", client_id: "gh-id" },
      ]);
      expect((await call(B.getBranchWebhooks, CHILD)).json).toMatchObject({ enabled: true, enabled_events: ["user.created"], timeout_seconds: 3 });

      // Later changes on either side never reach the other: at the API and in the tables.
      await call(B.addBranchDomain, CHILD, { body: { domain: "https://preview.example.com", auth_provider: "better_auth" } });
      await call(B.updateBranchOAuthProvider, { ...CHILD, oauth_provider_id: "github" }, { body: { client_secret: "gh-secret-2" } });
      await call(B.setBranchUserRoles, { ...CHILD, auth_user_id: ann }, { body: { roles: ["user"] } });
      await sql(h, child, `DELETE FROM neon_auth."user" WHERE email = 'bo@example.com'`);
      await call(B.createBranchUser, IDS, { body: { email: "cy@example.com" } });
      await sql(h, BRANCH, `UPDATE neon_auth."user" SET name = 'Ann P.' WHERE email = 'ann@example.com'`);

      const parentAfter = await settingsOf(h, BRANCH);
      expect(parentAfter.settings).toEqual(parentBefore.settings);
      expect(parentAfter.users.map((u: any) => [u.email, u.name, u.roles])).toEqual([
        ["ann@example.com", "Ann P.", ["admin", "billing"]],
        ["bo@example.com", "Bo", ["user"]],
        ["cy@example.com", "", ["user"]],
      ]);
      const childAfter = await settingsOf(h, child);
      expect(childAfter.settings.domains).toEqual(["https://app.example.com", "https://preview.example.com"]);
      expect(childAfter.settings.oauth_providers[1]).toEqual({ id: "github", type: "standard", client_id: "gh-id", client_secret: "gh-secret-2" });
      expect((await sql(h, child, USERS)).map((u) => [u.email, u.name, u.role])).toEqual([["ann@example.com", "Ann", "user"]]);

      // A child of the child copies the child, not the original parent.
      const grandchild = await newBranch(h, child);
      expect((await sql(h, grandchild, USERS)).map((u) => u.email)).toEqual(["ann@example.com"]);
    } finally {
      await h.close();
    }
  });

  it("a project-level integration does not branch", { timeout: 120_000 }, async () => {
    const h = await startHarness({ rateLimit: "off" });
    try {
      await enableAuth(h);
      expect((await h.api("POST", "/projects/auth/user", { body: { project_id: PROJECT, auth_provider: "stack", email: "ada@example.com" } })).status).toBe(201);
      const child = await newBranch(h);
      const r = await h.api("GET", fillPath(B.getBranchAuth.path, { project_id: PROJECT, branch_id: child }));
      expect(r.status).toBe(404);
      expect((await h.control("GET", `/projects/${PROJECT}/branches/${child}/auth`)).json).toMatchObject({ auth: null, neon_auth: null });
      expect(await sql(h, child, `SELECT table_name FROM information_schema.tables WHERE table_schema = 'neon_auth'`)).toEqual([]);
    } finally {
      await h.close();
    }
  });
});
