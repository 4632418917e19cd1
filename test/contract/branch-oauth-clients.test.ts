/**
 * The OAuth server's clients on the emulator (`…/auth/oauth-provider/clients`): create with the
 * secret shown once, list without it, partial updates that replace lists, rotation that
 * invalidates the old secret, delete, the service's rules, and branching. Sources: Neon's API
 * reference pages of the five operations (the emulator's fidelity ledger).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { hostingEndpoints as H } from "../../src/schemas/endpointsProject";
import { B, caller, enable, IDS, useBranchHarness } from "./branch-helpers";
import { BRANCH, manualClock, PROJECT, type Harness } from "./emulator-helpers";

const clock = manualClock();
let h: Harness;
let call: ReturnType<typeof caller>;
const CONTROL = `/projects/${PROJECT}/branches/${BRANCH}`;
const MCP = "https://mcp.example.com/mcp";
const API = "https://api.example.com";
const APP = { name: "Dashboard", redirect_uris: ["https://app.example.com/callback"], resources: [API] };

useBranchHarness({ clock, rateLimit: "off" }, (t) => ({ h, call } = t));
beforeEach(async () => {
  await enable(h);
  await call(B.updateBranchOAuthServerPlugin, IDS, { body: { enabled: true, mcp: { resource: MCP }, resources: [API] } });
});

const clientIds = (id: string) => ({ ...IDS, client_id: id });
const secretValid = async (client_id: string, client_secret: string) =>
  (await h.control("POST", `${CONTROL}/oauth_client_secret_check`, { client_id, client_secret })).json.valid as boolean;

describe("OAuth clients of the OAuth server", () => {
  it("creates a confidential client with its secret once; the list never answers a secret; a public client has none", async () => {
    const r = await call(B.createBranchOAuthClient, IDS, { body: { ...APP, type: "confidential" } });
    expect(r.status).toBe(201);
    const { client_id, client_secret, created_at, ...rest } = r.json;
    expect(rest).toEqual({ ...APP, type: "confidential", skip_consent: false, disabled: false });
    expect([typeof client_id, typeof client_secret, created_at]).toEqual(["string", "string", new Date(clock.now()).toISOString().replace(".000Z", "Z")]);
    expect(await secretValid(client_id, client_secret)).toBe(true);

    const pub = await call(B.createBranchOAuthClient, IDS, { body: { name: "CLI", type: "public", redirect_uris: ["https://cli.example.com/done"], resources: [MCP], skip_consent: true } });
    expect(pub.status).toBe(201);
    expect("client_secret" in pub.json).toBe(false);
    expect(pub.json).toMatchObject({ type: "public", skip_consent: true, resources: [MCP] });

    const list = await call(B.listBranchOAuthClients, IDS);
    expect(list.json.clients.map((c: Record<string, unknown>) => [c.client_id, "client_secret" in c])).toEqual([
      [client_id, false],
      [pub.json.client_id, false],
    ]);
    expect(JSON.stringify((await h.control("GET", `${CONTROL}/auth`)).json)).not.toContain(client_secret);
  });

  it("refuses resources not on the plugin, http redirects off loopback, and loopback ones unless localhost is allowed", async () => {
    const off = await call(B.createBranchOAuthClient, IDS, { body: { ...APP, type: "public", resources: [API, "https://other.example.com"] } });
    expect([off.status, off.json.message]).toEqual([400, "resources: https://other.example.com is not configured on the OAuth provider plugin (its resources or mcp.resource)"]);
    const http = await call(B.createBranchOAuthClient, IDS, { body: { ...APP, type: "public", redirect_uris: ["http://app.example.com/cb"] } });
    expect([http.status, http.json.message]).toEqual([400, "redirect_uris.0: must use https (http is accepted for loopback hosts only)"]);
    await call(B.updateBranchAllowLocalhost, IDS, { body: { allow_localhost: false } });
    const loop = await call(B.createBranchOAuthClient, IDS, { body: { ...APP, type: "public", redirect_uris: ["http://127.0.0.1:8976/cb"] } });
    expect([loop.status, loop.json.message]).toEqual([400, "redirect_uris: http on a loopback host (http://127.0.0.1:8976/cb) needs localhost allowed on the branch (allow_localhost)"]);
    await call(B.updateBranchAllowLocalhost, IDS, { body: { allow_localhost: true } });
    expect((await call(B.createBranchOAuthClient, IDS, { body: { ...APP, type: "public", redirect_uris: ["http://127.0.0.1:8976/cb"] } })).status).toBe(201);
    expect((await call(B.listBranchOAuthClients, IDS)).json.clients).toHaveLength(1);
  });

  it("updates only the fields given, replaces lists whole, keeps type fixed; 404 for an unknown client", async () => {
    const { client_id } = (await call(B.createBranchOAuthClient, IDS, { body: { ...APP, type: "confidential" } })).json;
    const r = await call(B.updateBranchOAuthClient, clientIds(client_id), { body: { redirect_uris: ["https://app.example.com/v2/cb"], resources: [MCP], disabled: true } });
    expect(r.json).toMatchObject({ client_id, name: "Dashboard", type: "confidential", redirect_uris: ["https://app.example.com/v2/cb"], resources: [MCP], skip_consent: false, disabled: true });
    expect("client_secret" in r.json).toBe(false);
    const typed = await call(B.updateBranchOAuthClient, clientIds(client_id), { body: { type: "public" } });
    expect(typed.status).toBe(400);
    expect(typed.json.message).toContain("type");
    const off = await call(B.updateBranchOAuthClient, clientIds(client_id), { body: { resources: ["https://nope.example.com"] } });
    expect(off.status).toBe(400);
    const missing = await call(B.updateBranchOAuthClient, clientIds("nope"), { body: { name: "x" } });
    expect([missing.status, missing.json.message]).toEqual([404, "OAuth client nope not found"]);
  });

  it("rotates a confidential client's secret and invalidates the old one; a public client has none to rotate", async () => {
    const created = (await call(B.createBranchOAuthClient, IDS, { body: { ...APP, type: "confidential" } })).json;
    const r = await call(B.rotateBranchOAuthClientSecret, clientIds(created.client_id));
    expect([r.status, Object.keys(r.json).sort(), r.json.client_id]).toEqual([200, ["client_id", "client_secret"], created.client_id]);
    expect(r.json.client_secret).not.toBe(created.client_secret);
    expect([await secretValid(created.client_id, created.client_secret), await secretValid(created.client_id, r.json.client_secret)]).toEqual([false, true]);
    const pub = (await call(B.createBranchOAuthClient, IDS, { body: { ...APP, type: "public" } })).json;
    const refused = await call(B.rotateBranchOAuthClientSecret, clientIds(pub.client_id));
    expect([refused.status, refused.json.message]).toEqual([400, `OAuth client ${pub.client_id} is public and has no secret to rotate`]);
  });

  it("deletes a client (404 after); a branch made from this one gets a copy of its clients", async () => {
    const a = (await call(B.createBranchOAuthClient, IDS, { body: { ...APP, type: "confidential" } })).json;
    const b = (await call(B.createBranchOAuthClient, IDS, { body: { ...APP, name: "Other", type: "public" } })).json;
    const child = (await call(H.createBranch, { project_id: PROJECT }, { body: { branch: { name: "preview" } } })).json.branch.id as string;
    await clock.advance(1_000);
    const childIds = { project_id: PROJECT, branch_id: child };
    expect((await call(B.deleteBranchOAuthClient, clientIds(a.client_id))).status).toBe(200);
    expect((await call(B.deleteBranchOAuthClient, clientIds(a.client_id))).status).toBe(404);
    expect((await call(B.listBranchOAuthClients, IDS)).json.clients.map((c: { client_id: string }) => c.client_id)).toEqual([b.client_id]);
    // The copy was taken before the delete, and has a life of its own.
    expect((await call(B.listBranchOAuthClients, childIds)).json.clients.map((c: { client_id: string }) => c.client_id)).toEqual([a.client_id, b.client_id]);
  });
});
