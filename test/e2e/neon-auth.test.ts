/**
 * NeonAuth, the branch-scoped integration, through the engine: every singleton setting area up,
 * unchanged on a second preview and refresh, changed in place one field per area, drift at the
 * emulator shown by refresh and restored by up; a second stack on another branch untouched;
 * destroy disables auth and keeps the branch's users (no `delete_data`).
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, stackFor, useEmulatorStack } from "./harness";
import { API_KEY, NEON_EMAIL_AND_PASSWORD, branchSnapshot, branchUserRows, clearRequestLog, neonConfig, newBranch, outOfBand, requestLog } from "./neon";

const PROGRAM = path.join(__dirname, "programs", "branch-auth");
const P = "p-neon-auth";
const B1 = `br-main-${P}`;
const auth = (b: string) => `/projects/${P}/branches/${b}/auth`;

const SETTINGS = {
  appName: "Acme",
  allowLocalhost: false,
  emailAndPassword: {
    enabled: true,
    emailVerificationMethod: "link",
    requireEmailVerification: true,
    autoSignInAfterVerification: false,
    sendVerificationEmailOnSignUp: true,
    sendVerificationEmailOnSignIn: false,
    disableSignUp: false,
  },
  organization: { enabled: true, organizationLimit: 3, creatorRole: "admin" },
  magicLink: { enabled: true, expiresIn: 15 },
  phoneNumber: { enabled: true, otpExpiresIn: 120 },
  webhooks: { enabled: true, webhookUrl: "https://hooks.example.com/neon-auth-4c1f", enabledEvents: ["user.created", "send.otp"] },
  // The root branch: the only one the OAuth-server plugin may be enabled on.
  oauthServer: {
    enabled: true,
    loginPage: "https://app.example.com/sign-in",
    consentPage: "https://app.example.com/consent",
    mcp: { resource: "https://mcp.example.com/mcp", dynamicRegistration: false },
    resources: ["https://mcp.example.com/mcp"],
  },
};

async function get(em: EmulatorHandle, p: string): Promise<any> {
  const res = await fetch(`${em.url}${p}`, { headers: { authorization: `Bearer ${API_KEY}` } });
  expect(res.status, `GET ${p}`).toBe(200);
  return res.json();
}

/** What the branch's settings are at the emulator, in the program's terms. */
async function live(em: EmulatorHandle, b: string) {
  const [integration, plugins, webhooks, oauthServer] = await Promise.all([
    get(em, auth(b)),
    get(em, `${auth(b)}/plugins`),
    get(em, `${auth(b)}/webhooks`),
    get(em, `${auth(b)}/plugins/oauth-provider`),
  ]);
  return {
    name: integration.name,
    allow_localhost: plugins.allow_localhost,
    email_and_password: plugins.email_and_password,
    organization: plugins.organization,
    magic_link: plugins.magic_link,
    phone_number: plugins.phone_number,
    webhooks,
    oauth_server: oauthServer,
  };
}

describe("NeonAuth: a branch-scoped integration with every singleton setting", () => {
  let em: EmulatorHandle;
  useEmulatorStack({ emulator: { seedProjects: [`${P}:${B1}`], rateLimit: "off" }, ready: (s) => ({ em } = s) });

  it("up, no changes, in-place updates, drift restored, another branch untouched, destroy keeps data", { timeout: 600_000 }, async () => {
    // A second branch, made as Neon's API makes branches.
    const b2 = await newBranch(em, P, "second");

    const one = await stackFor({ program: PROGRAM, stackName: "one", config: { ...neonConfig(em), args: { value: JSON.stringify({ projectId: P, branchId: B1, ...SETTINGS }), secret: true } } });
    const two = await stackFor({ program: PROGRAM, stackName: "two", config: { ...neonConfig(em), args: { value: JSON.stringify({ projectId: P, branchId: b2, appName: "Other" }) } } });
    try {
      const [up1, up2] = await Promise.all([one.stack.up({ color: "never" }), two.stack.up({ color: "never" })]);
      expect(changesOf(up1.summary.resourceChanges)).toEqual({ create: 2 });
      expect(changesOf(up2.summary.resourceChanges)).toEqual({ create: 2 });
      expect(up1.outputs.id!.value).toBe(`${P}/${B1}`);

      const expected = {
        name: "Acme",
        allow_localhost: false,
        // What the program sets differently from Neon's defaults.
        email_and_password: { ...NEON_EMAIL_AND_PASSWORD, email_verification_method: "link", require_email_verification: true, auto_sign_in_after_verification: false, send_verification_email_on_sign_up: true },
        organization: { enabled: true, organization_limit: 3, membership_limit: 100, creator_role: "admin", send_invitation_email: false },
        magic_link: { enabled: true, expires_in: 15, disable_sign_up: false },
        phone_number: { enabled: true, otp_expires_in: 120 },
        webhooks: { enabled: true, webhook_url: "https://hooks.example.com/neon-auth-4c1f", enabled_events: ["user.created", "send.otp"], timeout_seconds: 5 },
        oauth_server: {
          enabled: true,
          login_page: "https://app.example.com/sign-in",
          consent_page: "https://app.example.com/consent",
          mcp: { resource: "https://mcp.example.com/mcp", dynamic_registration: false },
          resources: ["https://mcp.example.com/mcp"],
        },
      };
      expect(await live(em, B1)).toEqual(expected);
      const other = await live(em, b2);
      expect(other.name).toBe("Other");
      expect(other.allow_localhost).toBe(true);
      expect(other.oauth_server).toEqual({ enabled: false });
      await expectNoChanges(one.stack);

      // The webhook URL is a secret in state.
      expect(one.cli("stack", "export")).not.toContain("neon-auth-4c1f");

      // One in-place change per area: the input changed, the one request it sends, what Neon then holds.
      const areas: [string, Record<string, unknown>, Record<string, unknown>][] = [
        ["PATCH /config", { appName: "Acme 2" }, { name: "Acme 2" }],
        ["PATCH /allow_localhost", { allowLocalhost: true }, { allow_localhost: true }],
        ["PATCH /email_and_password", { emailAndPassword: { ...SETTINGS.emailAndPassword, disableSignUp: true } }, { email_and_password: { ...expected.email_and_password, disable_sign_up: true } }],
        ["PATCH /plugins/organization", { organization: { ...SETTINGS.organization, organizationLimit: 5 } }, { organization: { ...expected.organization, organization_limit: 5 } }],
        ["PATCH /plugins/magic-link", { magicLink: { ...SETTINGS.magicLink, expiresIn: 30 } }, { magic_link: { ...expected.magic_link, expires_in: 30 } }],
        ["PATCH /plugins/phone-number", { phoneNumber: { ...SETTINGS.phoneNumber, otpExpiresIn: 300 } }, { phone_number: { ...expected.phone_number, otp_expires_in: 300 } }],
        ["PUT /webhooks", { webhooks: { ...SETTINGS.webhooks, enabledEvents: ["user.created"] } }, { webhooks: { ...expected.webhooks, enabled_events: ["user.created"] } }],
        // Neon replaces `mcp` whole; the dynamic-registration flag the program no longer names is
        // written back as Neon had it, never switched off by omission.
        [
          "PATCH /plugins/oauth-provider",
          { oauthServer: { ...SETTINGS.oauthServer, mcp: { resource: "https://mcp.example.com/v2" }, resources: ["https://mcp.example.com/v2", "https://api.example.com"] } },
          { oauth_server: { ...expected.oauth_server, mcp: { resource: "https://mcp.example.com/v2", dynamic_registration: false }, resources: ["https://mcp.example.com/v2", "https://api.example.com"] } },
        ],
      ];
      const changed = Object.assign({ ...SETTINGS }, ...areas.map(([, input]) => input));
      await one.stack.setConfig("args", { value: JSON.stringify({ projectId: P, branchId: B1, ...changed }), secret: true });
      await clearRequestLog(em);
      const up3 = await one.stack.up({ color: "never" });
      expect(changesOf(up3.summary.resourceChanges)).toEqual({ update: 1 });
      const writes = (await requestLog(em)).filter((r) => r.method !== "GET" && r.path.includes("/branches/")).map((r) => `${r.method} ${r.path.split("/auth")[1]}`);
      expect(writes.sort()).toEqual(areas.map(([request]) => request).sort());
      const after = Object.assign({ ...expected }, ...areas.map(([, , state]) => state));
      expect(await live(em, B1)).toEqual(after);
      await expectNoChanges(one.stack);

      // Drift in every area, made outside the stack; fields the program does not set (the
      // membership limit) are not ours and stay drifted.
      const drift: [string, string, unknown][] = [
        ["PATCH", "/config", { name: "Drifted" }],
        ["PATCH", "/allow_localhost", { allow_localhost: false }],
        ["PATCH", "/email_and_password", { require_email_verification: false }],
        ["PATCH", "/plugins/organization", { organization_limit: 9, membership_limit: 7 }],
        ["PATCH", "/plugins/magic-link", { enabled: false }],
        ["PATCH", "/plugins/phone-number", { otp_expires_in: 600 }],
        ["PUT", "/webhooks", { enabled: false }],
        ["PATCH", "/plugins/oauth-provider", { consent_page: "https://evil.example.com/consent" }],
      ];
      for (const [method, p, body] of drift) expect(await outOfBand(em, method, `${auth(B1)}${p}`, body)).toBe(200);
      const refresh = await one.stack.refresh({ color: "never" });
      expect(changesOf(refresh.summary.resourceChanges)).toEqual({ update: 1 });
      const preview = await one.stack.preview({ color: "never", diff: true });
      expect(changesOf(preview.changeSummary)).toEqual({ update: 1 });
      for (const area of ["appName", "allowLocalhost", "emailAndPassword", "organization", "magicLink", "phoneNumber", "webhooks", "oauthServer"]) {
        expect(preview.stdout).toContain(area);
      }
      const up4 = await one.stack.up({ color: "never" });
      expect(changesOf(up4.summary.resourceChanges)).toEqual({ update: 1 });
      expect(await live(em, B1)).toEqual({ ...after, organization: { ...after.organization, membership_limit: 7 } });
      await expectNoChanges(one.stack);

      // The other branch's stack saw none of this.
      expect(await live(em, b2)).toEqual(other);
      await expectNoChanges(two.stack);

      // A user made on the branch outside the stack survives destroy: no delete_data was sent.
      expect(await outOfBand(em, "POST", `${auth(B1)}/users`, { email: "kept@example.com" })).toBe(201);
      await clearRequestLog(em);
      await one.stack.destroy({ color: "never" });
      const deletes = (await requestLog(em)).filter((r) => r.method === "DELETE");
      expect(deletes.map((r) => r.path)).toEqual([`/api/v2${auth(B1)}`]);
      expect((await branchSnapshot(em, P, B1)).auth).toBeUndefined();
      expect((await branchUserRows(em, P, B1)).map((u) => u.email)).toEqual(["kept@example.com"]);
      expect((await live(em, b2)).name).toBe("Other");
    } finally {
      await Promise.all([one.cleanup(), two.cleanup()]);
    }
  });
});
