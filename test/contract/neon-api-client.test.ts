/**
 * Neon's own client, @neondatabase/api-client 2.7.3 (axios, generated from the OpenAPI document),
 * drives every branch-scoped endpoint of the emulator successfully, with request bodies valid
 * against its OpenAPI document: an independent client agreeing with the emulator is evidence that
 * the emulator speaks Neon's contract, not just ours. The emulator runs tolerant (not strict), as
 * Neon does: the document allows fields it does not define (no `additionalProperties: false`),
 * and Neon's client sends some (the `type` of a StandardEmailServer in a test email).
 */
import {
  ContentType,
  createApiClient,
  NeonAuthEmailVerificationMethod,
  NeonAuthOauthProviderId as Id,
  NeonAuthSupportedAuthProvider,
  type Api,
} from "@neondatabase/api-client";
import type { AxiosResponse } from "axios";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fillPath, type AnyEndpoint } from "../../src/schemas/endpoint";
import { BRANCH_SETTINGS, branchEndpoints as B } from "../../src/schemas/endpointsBranch";
import { hostingEndpoints as H } from "../../src/schemas/endpointsProject";
import { checkAnswer, switched } from "./branch-helpers";
import { operation, validate } from "./openapi";
import { BRANCH, KEY_A, PROJECT, startHarness, type Harness } from "./emulator-helpers";

let h: Harness;
let neon: Api<unknown>;
const P = PROJECT;
const Br = BRANCH;
const SMTP = { host: "smtp.example.com", port: 587, username: "u", password: "smtp-pw-branch-client-3c", sender_email: "a@example.com", sender_name: "A" };
const driven = new Set<string>();
const BA = NeonAuthSupportedAuthProvider.BetterAuth;

/** The body of the client's last request. */
let sent: unknown;

beforeAll(async () => {
  h = await startHarness({ rateLimit: "off", strict: false });
  neon = createApiClient({ apiKey: KEY_A, baseURL: h.emu.url, timeout: 10_000 });
  neon.instance.interceptors.request.use((config) => {
    sent = typeof config.data === "string" && config.data !== "" ? JSON.parse(config.data) : config.data;
    return config;
  });
});
afterAll(async () => {
  await h.close();
});

/** Runs one call of Neon's client, checks it against the entry and the document, returns the data. */
async function drive<T>(e: AnyEndpoint, run: Promise<AxiosResponse<T>>): Promise<T> {
  const res = await run;
  // What Neon's client sent is what its document describes (endpoints newer than 2.7.3 have no entry).
  const request = operation(e.method, e.path)?.request;
  if (request !== undefined) expect(validate(request, sent), `${e.name} request ${JSON.stringify(sent)}`).toEqual([]);
  const text = typeof res.data === "string" ? res.data : JSON.stringify(res.data);
  checkAnswer(e, { status: res.status, headers: new Headers(), text, json: text === "" ? undefined : JSON.parse(text) });
  driven.add(e.name);
  return res.data;
}

describe("@neondatabase/api-client 2.7.3 against the emulator", () => {
  it("drives every branch-scoped endpoint of the table (and branch create/get/restore) successfully", async () => {
    const created = await drive(H.createBranch, neon.createProjectBranch(P, { branch: { name: "from-neon-client" } }));
    expect(created.branch.name).toBe("from-neon-client");
    expect((await drive(H.getBranch, neon.getProjectBranch(P, created.branch.id))).branch.id).toBe(created.branch.id);

    const keys = await drive(B.enableBranchAuth, neon.createNeonAuth(P, Br, { auth_provider: BA }));
    expect(keys.auth_provider).toBe("better_auth");
    expect((await drive(B.getBranchAuth, neon.getNeonAuth(P, Br))).branch_id).toBe(Br);
    expect(await drive(B.updateBranchAppName, neon.updateNeonAuthConfig(P, Br, { name: "Acme" }))).toEqual({ name: "Acme" });

    await drive(B.addBranchDomain, neon.addBranchNeonAuthTrustedDomain(P, Br, { domain: "https://app.example.com", auth_provider: BA }));
    expect((await drive(B.listBranchDomains, neon.listBranchNeonAuthTrustedDomains(P, Br))).domains).toEqual([
      { domain: "https://app.example.com", auth_provider: BA },
    ]);
    await drive(B.deleteBranchDomains, neon.deleteBranchNeonAuthTrustedDomain(P, Br, { auth_provider: BA, domains: [{ domain: "https://app.example.com" }] }));

    const user = await drive(B.createBranchUser, neon.createBranchNeonAuthNewUser(P, Br, { email: "u@example.com", name: "U" }));
    expect(await drive(B.setBranchUserRoles, neon.updateNeonAuthUserRole(P, Br, user.id, { roles: ["admin"] }))).toEqual({ id: user.id });
    await drive(B.deleteBranchUser, neon.deleteBranchNeonAuthUser(P, Br, user.id));

    // Shared credentials exist for Google only, and a new integration has it: take it away and add it back.
    await drive(B.deleteBranchOAuthProvider, neon.deleteBranchNeonAuthOauthProvider(P, Br, Id.Google));
    expect(await drive(B.addBranchOAuthProvider, neon.addBranchNeonAuthOauthProvider(P, Br, { id: Id.Google }))).toEqual({ id: "google", type: "shared" });
    const ms = await drive(
      B.addBranchOAuthProvider,
      neon.addBranchNeonAuthOauthProvider(P, Br, { id: Id.Microsoft, client_id: "c", client_secret: "s", microsoft_tenant_id: "t" }),
    );
    expect(ms).toEqual({ id: "microsoft", type: "standard", client_id: "c", client_secret: "s" });
    await drive(B.updateBranchOAuthProvider, neon.updateBranchNeonAuthOauthProvider(P, Br, Id.Microsoft, { client_secret: "s2" }));
    expect((await drive(B.listBranchOAuthProviders, neon.listBranchNeonAuthOauthProviders(P, Br))).providers.map((p) => p.id)).toEqual(["google", "microsoft"]);
    await drive(B.deleteBranchOAuthProvider, neon.deleteBranchNeonAuthOauthProvider(P, Br, Id.Google));

    // The 2.7.3 types leave out the union's `type` tag, which the service needs: the cast adds it.
    const standard = { type: "standard", ...SMTP } as Parameters<Api<unknown>["updateNeonAuthEmailProvider"]>[2];
    expect(await drive(B.updateBranchEmailProvider, neon.updateNeonAuthEmailProvider(P, Br, standard))).toEqual({ type: "standard", ...SMTP, password: "" });
    expect((await drive(B.getBranchEmailProvider, neon.getNeonAuthEmailProvider(P, Br))) as unknown).toEqual({ type: "standard", ...SMTP, password: "" });
    // Newer than 2.7.3, so the generic request of the same client carries it.
    const test = neon.request<{ success?: boolean }>({
      path: `/projects/${P}/branches/${Br}/auth/email_provider/test`,
      method: "POST",
      body: { recipient_email: "ops@example.com" },
      secure: true,
      type: ContentType.Json,
      format: "json",
    });
    expect(await drive(B.testBranchEmailProvider, test)).toEqual({ success: true });
    expect(await drive(B.sendBranchTestEmail, neon.sendNeonAuthTestEmail(P, Br, { ...SMTP, recipient_email: "ops@example.com" }))).toEqual({ success: true });
    // The same with the StandardEmailServer object a caller already holds, `type` and all: a field
    // the request does not define, which a tolerant server ignores.
    const withType = { ...standard, recipient_email: "ops@example.com" } as Parameters<Api<unknown>["sendNeonAuthTestEmail"]>[2];
    expect(await drive(B.sendBranchTestEmail, neon.sendNeonAuthTestEmail(P, Br, withType))).toEqual({ success: true });

    expect((await drive(B.updateBranchEmailAndPassword, neon.updateNeonAuthEmailAndPasswordConfig(P, Br, { email_verification_method: NeonAuthEmailVerificationMethod.Link }))).email_verification_method).toBe("link");
    expect((await drive(B.getBranchEmailAndPassword, neon.getNeonAuthEmailAndPasswordConfig(P, Br))).email_verification_method).toBe("link");
    expect(await drive(B.updateBranchAllowLocalhost, neon.updateNeonAuthAllowLocalhost(P, Br, { allow_localhost: false }))).toEqual({ allow_localhost: false });
    expect(await drive(B.getBranchAllowLocalhost, neon.getNeonAuthAllowLocalhost(P, Br))).toEqual({ allow_localhost: false });
    expect((await drive(B.updateBranchOrganizationPlugin, neon.updateNeonAuthOrganizationPlugin(P, Br, { enabled: false }))).enabled).toBe(false);
    expect((await drive(B.updateBranchMagicLinkPlugin, neon.updateNeonAuthMagicLinkPlugin(P, Br, { enabled: true, expires_in: 10 }))).expires_in).toBe(10);
    expect(await drive(B.updateBranchPhoneNumberPlugin, neon.updateNeonAuthPhoneNumberPlugin(P, Br, { enabled: true }))).toEqual({ enabled: true, otp_expires_in: 300 });
    expect(await drive(B.getBranchPhoneNumberPlugin, neon.getNeonAuthPhoneNumberPlugin(P, Br))).toEqual({ enabled: true, otp_expires_in: 300 });
    const plugins = await drive(B.getBranchPlugins, neon.getNeonAuthPluginConfigs(P, Br));
    expect([plugins.organization?.enabled, plugins.magic_link?.expires_in, plugins.oauth_providers?.length]).toEqual([false, 10, 1]);
    const hooks = { enabled: true, webhook_url: "https://h.example.com/x", enabled_events: ["user.created" as const], timeout_seconds: 3 };
    expect(await drive(B.putBranchWebhooks, neon.updateNeonAuthWebhookConfig(P, Br, hooks))).toEqual(hooks);
    expect(await drive(B.getBranchWebhooks, neon.getNeonAuthWebhookConfig(P, Br))).toEqual(hooks);
    // The OAuth-server plugin is newer than the client too: its generic request, as for the SMTP test.
    const oauthServer = (method: "GET" | "PATCH", body?: object) =>
      neon.request({ path: `/projects/${P}/branches/${Br}/auth/plugins/oauth-provider`, method, ...(body ? { body, type: ContentType.Json } : {}), secure: true, format: "json" });
    expect(await drive(B.getBranchOAuthServerPlugin, oauthServer("GET"))).toEqual({ enabled: false });
    expect(await drive(B.updateBranchOAuthServerPlugin, oauthServer("PATCH", { enabled: true, resources: ["https://api.example.com"] }))).toEqual({ enabled: true, resources: ["https://api.example.com"] });
    // And its clients, under a third spelling (`oauth-provider/clients`).
    const clients = (method: "GET" | "POST" | "PATCH" | "DELETE", tail = "", body?: object) =>
      neon.request({ path: `/projects/${P}/branches/${Br}/auth/oauth-provider/clients${tail}`, method, ...(body ? { body, type: ContentType.Json } : {}), secure: true, format: "json" });
    const { client_secret, ...made } = await drive(B.createBranchOAuthClient, clients("POST", "", { name: "App", type: "confidential", redirect_uris: ["https://app.example.com/cb"], resources: ["https://api.example.com"] }));
    expect([made.type, typeof client_secret]).toEqual(["confidential", "string"]);
    expect((await drive(B.updateBranchOAuthClient, clients("PATCH", `/${made.client_id}`, { disabled: true }))).disabled).toBe(true);
    expect(await drive(B.listBranchOAuthClients, clients("GET"))).toEqual({ clients: [{ ...made, disabled: true }] });
    const rotate = neon.request({ path: `/projects/${P}/branches/${Br}/auth/oauth-provider/clients/${made.client_id}/rotate_secret`, method: "POST", secure: true, format: "json" });
    expect((await drive(B.rotateBranchOAuthClientSecret, rotate)).client_secret).not.toBe(client_secret);
    await drive(B.deleteBranchOAuthClient, clients("DELETE", `/${made.client_id}`));

    // The Data API of the branch's database, bound to its Neon Auth.
    expect((await drive(B.createProjectBranchDataAPI, neon.createProjectBranchDataApi(P, Br, "neondb", { auth_provider: "neon_auth", settings: { db_max_rows: 10 } }))).url).toMatch(/^https:/);
    await drive(B.updateProjectBranchDataAPI, neon.updateProjectBranchDataApi(P, Br, "neondb", { settings: { openapi_mode: "ignore-privileges" } }));
    expect((await drive(B.getProjectBranchDataAPI, neon.getProjectBranchDataApi(P, Br, "neondb"))).settings).toMatchObject({ db_max_rows: 10, openapi_mode: "ignore-privileges" });
    await drive(B.deleteProjectBranchDataAPI, neon.deleteProjectBranchDataApi(P, Br, "neondb"));
    // A setting of the table that Neon's client has no method for (newer than 2.7.3), through its generic request.
    const ids = { project_id: P, branch_id: Br };
    for (const row of BRANCH_SETTINGS.filter((r) => r.write.method === "PATCH" && !driven.has(r.write.name))) {
      const { body, after } = switched(row);
      const sent = neon.request({ path: fillPath(row.write.path, ids), method: "PATCH", body, type: ContentType.Json, secure: true, format: "json" });
      expect([row.name, await drive(row.write, sent)]).toEqual([row.name, after]);
    }
    await drive(B.disableBranchAuth, neon.disableNeonAuth(P, Br, { delete_data: false }));
    // A reset of the branch made above from its parent, as Neon's docs send it.
    const reset = await drive(H.restoreBranch, neon.restoreProjectBranch(P, created.branch.id, { source_branch_id: Br }));
    expect([reset.branch.id, reset.branch.parent_id, reset.operations.length]).toEqual([created.branch.id, Br, 1]);

    expect([...Object.values(B)].filter((e) => !driven.has(e.name)).map((e) => e.name)).toEqual([]);
    // And branch create, get and restore of the project API.
    expect(driven.size).toBe(Object.keys(B).length + 3);
  });
});

describe("strict and tolerant emulators", () => {
  it("ignore a field Neon's API does not define, unless strict (then 400 naming it)", async () => {
    const body = { type: "standard", ...SMTP, recipient_email: "ops@example.com", extra: { nested: 1 } };
    const path = `/projects/${P}/branches/${Br}/auth/send_test_email`;
    const [strict, tolerant] = [await startHarness({ rateLimit: "off" }), await startHarness({ rateLimit: "off", strict: false })];
    try {
      for (const emu of [strict, tolerant]) await emu.api("POST", `/projects/${P}/branches/${Br}/auth`, { body: { auth_provider: "better_auth" } });
      const refused = await strict.api("POST", path, { body });
      expect([refused.status, refused.json.message]).toEqual([400, "type: is not a known field; extra: is not a known field"]);
      const ok = await tolerant.api("POST", path, { body });
      expect([ok.status, ok.json]).toEqual([200, { success: true }]);
      // Tolerance never loosens a rule on a known field.
      const bad = await tolerant.api("POST", path, { body: { ...body, port: "587" } });
      expect([bad.status, bad.json.message]).toEqual([400, "port: must be a number"]);
    } finally {
      await strict.close();
      await tolerant.close();
    }
  });
});
