/**
 * The package's client drives every branch-scoped endpoint of the emulator through its one-line
 * methods over the generic `request`: typed results, errors mapped, bad input refused before sending.
 */
import { MockAgent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, NeonApiError, NeonConfigError, NeonResponseError, type NeonClient } from "../../src/client";
import { BRANCH_SETTINGS, branchEndpoints as B } from "../../src/schemas/endpointsBranch";
import { hostingEndpoints as H } from "../../src/schemas/endpointsProject";
import { switched } from "./branch-helpers";
import { BRANCH, KEY_A, PROJECT, startHarness, type Harness } from "./emulator-helpers";

let h: Harness;
let client: NeonClient;
const ids = { project_id: PROJECT, branch_id: BRANCH };
const SMTP = { host: "smtp.example.com", port: 587, username: "u", password: "smtp-pw-branch-client-3c", sender_email: "a@example.com", sender_name: "A" };

beforeAll(async () => {
  h = await startHarness({ rateLimit: "off" });
  client = createClient({ apiKey: KEY_A, baseUrl: h.emu.url, pacing: false });
});
afterAll(async () => {
  await client.close();
  await h.close();
});

describe("client.branchAuth against the emulator", () => {
  it("calls every branch-scoped endpoint of the table with typed results", async () => {
    const a = client.branchAuth;
    const keys = await a.enableBranchAuth(ids, { auth_provider: "better_auth" });
    expect([keys.auth_provider, keys.pub_client_key, keys.schema_name]).toEqual(["better_auth", "", "neon_auth"]);
    expect(await a.updateBranchAppName(ids, { name: "Acme" })).toEqual({ name: "Acme" });
    expect((await a.getBranchAuth(ids)).name).toBe("Acme");

    await a.addBranchDomain(ids, { domain: "https://app.example.com", auth_provider: "better_auth" });
    expect(await a.listBranchDomains(ids)).toEqual({ domains: [{ domain: "https://app.example.com", auth_provider: "better_auth" }] });
    await a.deleteBranchDomains(ids, { auth_provider: "better_auth", domains: [{ domain: "https://app.example.com" }] });

    const { id } = await a.createBranchUser(ids, { email: "u@example.com" });
    expect(await a.setBranchUserRoles({ ...ids, auth_user_id: id }, { roles: ["admin"] })).toEqual({ id });
    expect(await a.deleteBranchUser({ ...ids, auth_user_id: id })).toBeUndefined();

    // A new integration has Google with Neon's shared credentials: take it away and add it back.
    expect(await a.listBranchOAuthProviders(ids)).toEqual({ providers: [{ id: "google", type: "shared" }] });
    await a.deleteBranchOAuthProvider({ ...ids, oauth_provider_id: "google" });
    expect(await a.addBranchOAuthProvider(ids, { id: "google" })).toEqual({ id: "google", type: "shared" });
    const ms = { ...ids, oauth_provider_id: "microsoft" };
    await a.addBranchOAuthProvider(ids, { id: "microsoft", client_id: "c", client_secret: "s", microsoft_tenant_id: "t" });
    expect(await a.updateBranchOAuthProvider(ms, { client_secret: "s2" })).toEqual({ id: "microsoft", type: "standard", client_id: "c", client_secret: "s2" });
    expect((await a.listBranchOAuthProviders(ids)).providers.map((p) => p.id)).toEqual(["google", "microsoft"]);
    await a.deleteBranchOAuthProvider(ms);

    expect(await a.updateBranchEmailProvider(ids, { type: "standard", ...SMTP })).toEqual({ type: "standard", ...SMTP, password: "" });
    expect(await a.getBranchEmailProvider(ids)).toEqual({ type: "standard", ...SMTP, password: "" });
    expect(await a.testBranchEmailProvider(ids, { recipient_email: "ops@example.com" })).toEqual({ success: true });
    expect(await a.sendBranchTestEmail(ids, { ...SMTP, recipient_email: "ops@example.com" })).toEqual({ success: true });

    expect((await a.updateBranchEmailAndPassword(ids, { disable_sign_up: true })).disable_sign_up).toBe(true);
    expect((await a.getBranchEmailAndPassword(ids)).disable_sign_up).toBe(true);
    expect(await a.updateBranchAllowLocalhost(ids, { allow_localhost: false })).toEqual({ allow_localhost: false });
    expect(await a.getBranchAllowLocalhost(ids)).toEqual({ allow_localhost: false });
    expect((await a.updateBranchOrganizationPlugin(ids, { membership_limit: 5 })).membership_limit).toBe(5);
    expect((await a.updateBranchMagicLinkPlugin(ids, { enabled: true })).enabled).toBe(true);
    expect(await a.updateBranchPhoneNumberPlugin(ids, { otp_expires_in: 120 })).toEqual({ enabled: false, otp_expires_in: 120 });
    expect(await a.getBranchPhoneNumberPlugin(ids)).toEqual({ enabled: false, otp_expires_in: 120 });
    const plugins = await a.getBranchPlugins(ids);
    expect([plugins.magic_link?.enabled, plugins.organization?.membership_limit, plugins.allow_localhost]).toEqual([true, 5, false]);
    expect(await a.putBranchWebhooks(ids, { enabled: true, webhook_url: "https://h.example.com/x" })).toEqual({
      enabled: true,
      webhook_url: "https://h.example.com/x",
      enabled_events: [],
      timeout_seconds: 5,
    });
    expect((await a.getBranchWebhooks(ids)).enabled).toBe(true);
    expect(await a.getBranchOAuthServerPlugin(ids)).toEqual({ enabled: false });
    expect(await a.updateBranchOAuthServerPlugin(ids, { enabled: true, mcp: { resource: "https://mcp.example.com/mcp" } })).toEqual({
      enabled: true,
      mcp: { resource: "https://mcp.example.com/mcp" },
    });
    const made = await a.createBranchOAuthClient(ids, { name: "MCP", type: "confidential", redirect_uris: ["https://app.example.com/cb"], resources: ["https://mcp.example.com/mcp"] });
    const client_id = made.client_id;
    expect([made.type, typeof made.client_secret, made.skip_consent]).toEqual(["confidential", "string", false]);
    expect((await a.updateBranchOAuthClient({ ...ids, client_id }, { skip_consent: true })).skip_consent).toBe(true);
    expect((await a.rotateBranchOAuthClientSecret({ ...ids, client_id })).client_id).toBe(client_id);
    expect((await a.listBranchOAuthClients(ids)).clients.map((c) => c.client_id)).toEqual([client_id]);
    expect(await a.deleteBranchOAuthClient({ ...ids, client_id })).toBeUndefined();

    const db = { ...ids, database_name: "neondb" };
    expect(typeof (await a.createProjectBranchDataAPI(db, { auth_provider: "neon_auth" })).url).toBe("string");
    await a.updateProjectBranchDataAPI(db, { settings: { db_max_rows: 50 } });
    expect((await a.getProjectBranchDataAPI(db)).settings?.db_max_rows).toBe(50);
    await a.deleteProjectBranchDataAPI(db);

    // Each setting of the table through its methods, as the row names them.
    const method = (name: string) => (a as unknown as Record<string, (p: typeof ids, body?: object) => Promise<Record<string, unknown>>>)[name]!;
    for (const row of BRANCH_SETTINGS.filter((r) => r.write.method === "PATCH")) {
      const { body } = switched(row);
      const written = await method(row.write.name)(ids, body);
      expect([row.name, written]).toEqual([row.name, expect.objectContaining(body)]);
      if ("read" in row) expect([row.name, await method(row.read.name)(ids)]).toEqual([row.name, written]);
    }

    expect(await a.disableBranchAuth(ids, {})).toBeUndefined();
    const paths = h.emu.requestLog.list().map((r) => r.route);
    for (const e of Object.values(B)) expect(paths, e.name).toContain(e.path);
  });

  it("maps service errors to NeonApiError with status and message", async () => {
    await client.branchAuth.enableBranchAuth(ids, { auth_provider: "better_auth" });
    const e = await client.branchAuth.enableBranchAuth(ids, { auth_provider: "better_auth" }).catch((x) => x);
    expect(e).toBeInstanceOf(NeonApiError);
    expect([e.status, e.neonMessage]).toEqual([409, `auth is already enabled on branch ${BRANCH}`]);
    const shared = await client.branchAuth.addBranchOAuthProvider(ids, { id: "vercel" }).catch((x) => x);
    expect([shared.status, shared.code]).toEqual([400, "INVALID_SHARED_OAUTH_PROVIDER"]);
    // Path parameters are percent-encoded as one segment each: the emulator sees the id as given.
    const odd = await client.branchAuth.deleteBranchUser({ ...ids, auth_user_id: "x/y z?" }).catch((x) => x);
    expect([odd.status, odd.neonMessage, odd.path]).toEqual([404, "user x/y z? not found", `/projects/${PROJECT}/branches/${BRANCH}/auth/users/x%2Fy%20z%3F`]);
    await client.branchAuth.disableBranchAuth(ids, { delete_data: true });
  });

  it("refuses a bad path parameter or body before sending anything", async () => {
    const before = h.emu.requestLog.list().length;
    const badId = await client.branchAuth.getBranchAuth({ project_id: PROJECT, branch_id: "Main/../x" }).catch((x) => x);
    expect(badId).toBeInstanceOf(NeonConfigError);
    expect(badId.message).toBe(
      "invalid path parameter branch_id for GET /projects/{project_id}/branches/{branch_id}/auth: must match ^[a-z0-9-]{1,60}$ (lowercase letters, digits and '-', 1 to 60 characters)",
    );
    const badBody = await client.branchAuth.putBranchWebhooks(ids, { enabled: true, timeout_seconds: 30 }).catch((x) => x);
    expect(badBody.message).toBe("invalid request for PUT /projects/{project_id}/branches/{branch_id}/auth/webhooks: timeout_seconds: must be between 1 and 10");
    expect(h.emu.requestLog.list().length).toBe(before);
  });

  it("creates (waiting for its operation) and reads branches", async () => {
    const created = await client.createBranch(PROJECT, { name: "dev" });
    expect(created.operations.map((o) => o.action)).toEqual(["create_branch"]);
    const got = await client.getBranch(PROJECT, created.branch.id);
    expect([got.name, got.default]).toEqual(["dev", false]);
    const same = await client.request(H.getBranch, { project_id: PROJECT, branch_id: created.branch.id });
    expect(same.branch.id).toBe(created.branch.id);
  });
});

describe("success statuses come from the table", () => {
  it("a 2xx the entry does not list is a NeonResponseError; a listed one passes", async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get("http://127.0.0.1:9");
    const authPath = `/api/v2/projects/${PROJECT}/branches/${BRANCH}/auth`;
    pool.intercept({ path: authPath, method: "POST" }).reply(202, {});
    pool.intercept({ path: `${authPath}/oauth_providers/google`, method: "DELETE" }).reply(204, "");
    const c = createClient({ apiKey: "k", baseUrl: "http://127.0.0.1:9/api/v2", dispatcher: agent, pacing: false, maxAttempts: 1 });
    const e = await c.branchAuth.enableBranchAuth(ids, { auth_provider: "better_auth" }).catch((x) => x);
    expect(e).toBeInstanceOf(NeonResponseError);
    expect(e.issues).toEqual([`(status): 202 is not a success status of POST ${B.enableBranchAuth.path} (expected 201)`]);
    expect(await c.branchAuth.deleteBranchOAuthProvider({ ...ids, oauth_provider_id: "google" })).toBeUndefined();
    await agent.close();
  });
});
