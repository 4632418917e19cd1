/**
 * The singleton settings of a branch's integration on the emulator: email provider and its tests,
 * email and password, allow-localhost, plugins, webhooks; the write lock and persistence. Every
 * answer is checked against Neon's OpenAPI document (branch-helpers.ts).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { BRANCH_SETTINGS } from "../../src/schemas/endpointsBranch";
import { hostingEndpoints as H } from "../../src/schemas/endpointsProject";
import { aggregated, B, caller, enable, IDS, switched, useBranchHarness } from "./branch-helpers";
import { BRANCH, manualClock, PROJECT, startHarness, type Harness } from "./emulator-helpers";

const clock = manualClock();
let h: Harness;
let call: ReturnType<typeof caller>;
const SMTP = { host: "smtp.example.com", port: 587, username: "mailer", password: "pw-1", sender_email: "auth@example.com", sender_name: "Acme" };
const CONTROL = `/projects/${PROJECT}/branches/${BRANCH}`;

useBranchHarness({ clock, rateLimit: "off" }, (t) => ({ h, call } = t));

describe("email provider", () => {
  it("starts shared; a standard update answers the password empty; Better Auth merges a partial update", async () => {
    await enable(h);
    expect((await call(B.getBranchEmailProvider, IDS)).json).toEqual({ type: "shared" });
    const r = await call(B.updateBranchEmailProvider, IDS, { body: { type: "standard", ...SMTP } });
    expect([r.status, r.json]).toEqual([200, { type: "standard", ...SMTP, password: "" }]);
    const partial = await call(B.updateBranchEmailProvider, IDS, { body: { type: "standard", port: 2525, password: "pw-2" } });
    expect(partial.json).toEqual({ type: "standard", ...SMTP, port: 2525, password: "" });
    const stored = await h.control("GET", `${CONTROL}/auth?secrets=true`);
    expect(stored.json.auth.email_provider.password).toBe("pw-2");
    expect((await h.control("GET", `${CONTROL}/auth`)).json.auth.email_provider.password).toBe("[redacted]");
    const shared = await call(B.updateBranchEmailProvider, IDS, { body: { type: "shared", sender_name: "Acme" } });
    expect(shared.json).toEqual({ type: "shared", sender_name: "Acme" });
  });

  it("needs all six fields to switch from shared, and always on a stack integration (400 naming them)", async () => {
    await enable(h);
    const r = await call(B.updateBranchEmailProvider, IDS, { body: { type: "standard", host: "smtp.example.com" } });
    expect([r.status, r.json.message]).toEqual([
      400,
      ["port", "username", "password", "sender_email", "sender_name"].map((f) => `${f}: is required (switching to standard SMTP needs all six fields)`).join("; "),
    ]);
    await call(B.disableBranchAuth, IDS);
    await enable(h, IDS, "stack");
    await call(B.updateBranchEmailProvider, IDS, { body: { type: "standard", ...SMTP } });
    const partial = await call(B.updateBranchEmailProvider, IDS, { body: { type: "standard", port: 2525 } });
    expect([partial.status, partial.json.message.split("; ")[0]]).toEqual([400, "host: is required (a stack integration needs all six SMTP fields)"]);
    expect((await call(B.updateBranchEmailProvider, IDS, { body: { type: "smtp" } })).json.message).toBe('type: must be "shared" or "standard"');
  });

  it("tests the saved SMTP settings: success, or the failure the control switch sets, inside a 200", async () => {
    await enable(h);
    const onShared = await call(B.testBranchEmailProvider, IDS, { body: { recipient_email: "ops@example.com" } });
    expect([onShared.status, onShared.json.message]).toEqual([400, "the email provider test needs a saved standard (SMTP) email provider"]);
    await call(B.updateBranchEmailProvider, IDS, { body: { type: "standard", ...SMTP } });
    const ok = await call(B.testBranchEmailProvider, IDS, { body: { recipient_email: "ops@example.com" } });
    expect([ok.status, ok.json]).toEqual([200, { success: true }]);
    const set = await h.control("PUT", `${CONTROL}/email_test`, { success: false, error_message: "535 authentication failed" });
    expect(set.json).toEqual({ email_test: { success: false, error_message: "535 authentication failed" } });
    const failed = await call(B.testBranchEmailProvider, IDS, { body: { recipient_email: "ops@example.com" } });
    expect([failed.status, failed.json]).toEqual([200, { success: false, error_message: "535 authentication failed" }]);
    const legacy = await call(B.sendBranchTestEmail, IDS, { body: { ...SMTP, recipient_email: "ops@example.com" } });
    expect(legacy.json).toEqual({ success: false, error_message: "535 authentication failed" });
    await h.control("DELETE", `${CONTROL}/email_test`);
    expect((await call(B.sendBranchTestEmail, IDS, { body: { ...SMTP, recipient_email: "ops@example.com" } })).json).toEqual({ success: true });
    expect((await call(B.sendBranchTestEmail, IDS, { body: { recipient_email: "ops@example.com" } })).status).toBe(400);
    expect((await h.control("PUT", `${CONTROL}/email_test`, { success: "no" })).status).toBe(400);
  });

  it("refuses the test on a stack integration", async () => {
    await enable(h, IDS, "stack");
    await call(B.updateBranchEmailProvider, IDS, { body: { type: "standard", ...SMTP } });
    const r = await call(B.testBranchEmailProvider, IDS, { body: { recipient_email: "ops@example.com" } });
    expect([r.status, r.json.message]).toEqual([400, "the email provider test needs a better_auth integration"]);
  });
});

describe("email and password, allow-localhost", () => {
  it("reads the defaults and merges a partial update", async () => {
    await enable(h);
    // Neon's values for a new integration, as the table of settings cites them.
    const defaults = BRANCH_SETTINGS.find((row) => row.name === "emailAndPassword")!.initial;
    expect(defaults).toMatchObject({ enabled: true, email_verification_method: "otp", disable_sign_up: false });
    expect((await call(B.getBranchEmailAndPassword, IDS)).json).toEqual(defaults);
    const r = await call(B.updateBranchEmailAndPassword, IDS, { body: { email_verification_method: "link", require_email_verification: true } });
    expect(r.json).toEqual({ ...defaults, email_verification_method: "link", require_email_verification: true });
    expect((await call(B.updateBranchEmailAndPassword, IDS, { body: { enabled: "yes" } })).status).toBe(400);
    expect((await call(B.getBranchAllowLocalhost, IDS)).json).toEqual({ allow_localhost: true });
    expect((await call(B.updateBranchAllowLocalhost, IDS, { body: { allow_localhost: false } })).json).toEqual({ allow_localhost: false });
    expect((await call(B.updateBranchAllowLocalhost, IDS, { body: {} })).json.message).toBe("allow_localhost: is required");
  });
});

describe("plugins", () => {
  it("merges partial updates; magic link is readable only through the aggregate read", async () => {
    await enable(h);
    const org = await call(B.updateBranchOrganizationPlugin, IDS, { body: { organization_limit: 3, creator_role: "admin" } });
    expect(org.json).toEqual({ enabled: true, organization_limit: 3, membership_limit: 100, creator_role: "admin", send_invitation_email: false });
    const ml = await call(B.updateBranchMagicLinkPlugin, IDS, { body: { enabled: true, expires_in: 15 } });
    expect(ml.json).toEqual({ enabled: true, expires_in: 15, disable_sign_up: false });
    expect((await call(B.updateBranchMagicLinkPlugin, IDS, { body: { expires_in: 2 } })).json.message).toBe("expires_in: must be between 5 and 1440");
    expect((await call(B.getBranchPhoneNumberPlugin, IDS)).json).toEqual({ enabled: false, otp_expires_in: 300 });
    expect((await call(B.updateBranchPhoneNumberPlugin, IDS, { body: { enabled: true } })).json).toEqual({ enabled: true, otp_expires_in: 300 });
    expect((await call(B.updateBranchPhoneNumberPlugin, IDS, { body: { otp_expires_in: 30 } })).status).toBe(400);
    await call(B.addBranchOAuthProvider, IDS, { body: { id: "github", client_id: "c", client_secret: "s" } });
    const all = await call(B.getBranchPlugins, IDS);
    expect(all.json).toEqual({
      ...aggregated((row) => row.initial),
      organization: org.json,
      magic_link: ml.json,
      phone_number: { enabled: true, otp_expires_in: 300 },
      email_provider: { type: "shared" },
      email_and_password: (await call(B.getBranchEmailAndPassword, IDS)).json,
      oauth_providers: [{ id: "google", type: "shared" }, { id: "github", type: "standard", client_id: "c" }],
      allow_localhost: true,
    });
  });
});

describe("every setting of the table", () => {
  it("reads Neon's values of a new integration; a PATCH turning its switches answers and reads back merged", async () => {
    await enable(h);
    for (const row of BRANCH_SETTINGS) {
      const read = async () => ("read" in row ? (await call(row.read, IDS)).json : (await call(B.getBranchPlugins, IDS)).json[row.key]);
      expect([row.name, await read()]).toEqual([row.name, row.initial]);
      // A PUT replaces the setting whole and has rules of its own (webhooks, below).
      if (row.write.method !== "PATCH") continue;
      const { body, after } = switched(row);
      expect([row.name, (await call(row.write, IDS, { body })).json]).toEqual([row.name, after]);
      expect([row.name, await read()]).toEqual([row.name, after]);
    }
  });
});

describe("webhooks", () => {
  it("PUT replaces the whole configuration: fields left out are reset", async () => {
    await enable(h);
    expect((await call(B.getBranchWebhooks, IDS)).json).toEqual({ enabled: false, enabled_events: [], timeout_seconds: 5 });
    const full = { enabled: true, webhook_url: "https://hooks.example.com/neon", enabled_events: ["user.created", "send.otp"], timeout_seconds: 8 };
    expect((await call(B.putBranchWebhooks, IDS, { body: full })).json).toEqual(full);
    const replaced = await call(B.putBranchWebhooks, IDS, { body: { enabled: false } });
    expect(replaced.json).toEqual({ enabled: false, enabled_events: [], timeout_seconds: 5 });
    expect((await call(B.getBranchWebhooks, IDS)).json).toEqual(replaced.json);
    expect((await call(B.putBranchWebhooks, IDS, { body: { enabled: true } })).json.message).toBe("webhook_url: is required when enabled is true");
    expect((await call(B.putBranchWebhooks, IDS, { body: { enabled: true, webhook_url: "https://h.example.com", enabled_events: ["user.deleted"] } })).status).toBe(400);
    expect((await call(B.putBranchWebhooks, IDS, { body: { ...full, timeout_seconds: 11 } })).json.message).toBe("timeout_seconds: must be between 1 and 10");
  });
});

describe("every settings endpoint answers 404 while auth is not enabled", () => {
  it("404 with the same message from each", async () => {
    const reads = [B.getBranchEmailProvider, B.getBranchEmailAndPassword, B.getBranchAllowLocalhost, B.getBranchPlugins, B.getBranchPhoneNumberPlugin, B.getBranchWebhooks, B.listBranchDomains, B.listBranchOAuthProviders];
    for (const e of reads) {
      const r = await call(e, IDS);
      expect([e.name, r.status, r.json.message]).toEqual([e.name, 404, `auth is not enabled on branch ${BRANCH} of project ${PROJECT}`]);
    }
  });
});

describe("persistence", () => {
  it("a new emulator on the same state file sees the branch's integration and settings", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "branch-state-"));
    const file = path.join(dir, "state.json");
    try {
      const first = await startHarness({ stateFile: file, rateLimit: "off" });
      await enable(first);
      await caller(first)(B.updateBranchAllowLocalhost, IDS, { body: { allow_localhost: false } });
      await first.close();
      const second = await startHarness({ stateFile: file, rateLimit: "off" });
      try {
        expect((await caller(second)(B.getBranchAllowLocalhost, IDS)).json).toEqual({ allow_localhost: false });
        expect((await caller(second)(B.getBranchAuth, IDS)).json.auth_provider).toBe("better_auth");
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the OAuth-server plugin (Neon's \"OAuth provider\" plugin)", () => {
  const PAGES = { login_page: "https://app.example.com/sign-in", consent_page: "https://app.example.com/consent" };

  it("starts disabled; a PATCH merges the fields given, and replaces mcp and resources whole", async () => {
    await enable(h);
    expect((await call(B.getBranchOAuthServerPlugin, IDS)).json).toEqual({ enabled: false });
    await call(B.addBranchDomain, IDS, { body: { domain: "https://app.example.com", auth_provider: "better_auth" } });
    const mcp = { resource: "https://mcp.example.com/mcp", dynamic_registration: true };
    const r = await call(B.updateBranchOAuthServerPlugin, IDS, { body: { enabled: true, ...PAGES, mcp, resources: ["https://api.example.com", "https://mcp.example.com/mcp"] } });
    expect([r.status, r.json]).toEqual([200, { enabled: true, ...PAGES, mcp, resources: ["https://api.example.com", "https://mcp.example.com/mcp"] }]);
    const next = await call(B.updateBranchOAuthServerPlugin, IDS, { body: { mcp: { resource: "https://mcp.example.com/v2" }, resources: ["https://mcp.example.com/v2"] } });
    expect(next.json).toEqual({ enabled: true, ...PAGES, mcp: { resource: "https://mcp.example.com/v2" }, resources: ["https://mcp.example.com/v2"] });
    expect((await call(B.getBranchOAuthServerPlugin, IDS)).json).toEqual(next.json);
    const noResource = await call(B.updateBranchOAuthServerPlugin, IDS, { body: { mcp: { dynamic_registration: false } } });
    expect([noResource.status, noResource.json.message]).toEqual([400, "mcp.resource: is required"]);
  });

  it("is enabled on the project's root branch only; pages off the trusted domains are not refused", async () => {
    await enable(h);
    expect((await call(B.updateBranchOAuthServerPlugin, IDS, { body: { enabled: true, ...PAGES } })).status).toBe(200);
    const child = (await call(H.createBranch, { project_id: PROJECT }, { body: { branch: { name: "preview" } } })).json.branch.id as string;
    await clock.advance(1_000);
    const childIds = { project_id: PROJECT, branch_id: child };
    // The child inherits the plugin as it was (auth branches with the database), and cannot enable it anew.
    expect((await call(B.getBranchOAuthServerPlugin, childIds)).json).toMatchObject({ enabled: true });
    await call(B.updateBranchOAuthServerPlugin, childIds, { body: { enabled: false } });
    const again = await call(B.updateBranchOAuthServerPlugin, childIds, { body: { enabled: true } });
    expect([again.status, again.json.message]).toEqual([400, "enabled: the OAuth provider plugin can only be enabled on the project's root branch"]);
  });
});
