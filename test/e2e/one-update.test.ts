/**
 * A setting change is one update: a NeonAuth with every singleton setting area (and children) is
 * made as declared; an in-place change of each setting previews in `pulumi preview --json` as
 * exactly one `update` of the integration, no child replaced, and `up` does exactly that (the
 * request log shows each setting's one write, Neon then holds the new values); `deleteDataOnDestroy`
 * is recorded only (and the AuthIntegration's `adopt`, a create-time switch, previews no change:
 * users-sync.test.ts). Drift in every area made at the emulator is shown by refresh and restored
 * by up; another branch's Neon Auth is untouched. Replacing the integration previews one replace
 * per child, and `up` replaces exactly those. `--diff` names the fields of each update, secrets
 * too, and shows none of their values.
 */
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, useEmulatorStack, type E2eStack } from "./harness";
import { API_KEY, clearRequestLog, NEON_EMAIL_AND_PASSWORD, neonConfig, newBranch, outOfBand, requestLog } from "./neon";

const P = "p-one-update";
const B = `br-main-${P}`;
const AUTH = `/projects/${P}/branches/${B}/auth`;

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
  webhooks: { enabled: true, webhookUrl: "https://hooks.example.com/one-update-3c1f", enabledEvents: ["user.created", "send.otp"] },
  // The root branch: the only one the OAuth-server plugin may be enabled on.
  oauthServer: {
    enabled: true,
    loginPage: "https://app.example.com/sign-in",
    consentPage: "https://app.example.com/consent",
    mcp: { resource: "https://mcp.example.com/mcp", dynamicRegistration: false },
    resources: ["https://mcp.example.com/mcp"],
  },
};
/** What Neon holds of SETTINGS once made, in its terms (`live`): what differs from its defaults, and those. */
const EXPECTED = {
  name: "Acme",
  allow_localhost: false,
  email_and_password: { ...NEON_EMAIL_AND_PASSWORD, email_verification_method: "link", require_email_verification: true, auto_sign_in_after_verification: false, send_verification_email_on_sign_up: true },
  organization: { enabled: true, organization_limit: 3, membership_limit: 100, creator_role: "admin", send_invitation_email: false },
  magic_link: { enabled: true, expires_in: 15, disable_sign_up: false },
  phone_number: { enabled: true, otp_expires_in: 120 },
  webhooks: { enabled: true, webhook_url: SETTINGS.webhooks.webhookUrl, enabled_events: ["user.created", "send.otp"], timeout_seconds: 5 },
  oauth_server: {
    enabled: true,
    login_page: "https://app.example.com/sign-in",
    consent_page: "https://app.example.com/consent",
    mcp: { resource: "https://mcp.example.com/mcp", dynamic_registration: false },
    resources: ["https://mcp.example.com/mcp"],
  },
};
/** The children of the NeonAuth, by resource name. */
const CHILDREN = ["domain-0", "domain-1", "ms", "alice", "smtp"].sort();

/** The secrets of the stack: as created, and rotated. */
const FIRST = { clientSecret: "ms-secret-one-update-7a2d", password: "smtp-pw-one-update-9b4e", webhookUrl: SETTINGS.webhooks.webhookUrl };
const ROTATED = { clientSecret: "ms-secret-rotated-1e8c", password: "smtp-pw-rotated-4d2a", webhookUrl: "https://hooks.example.com/rotated-8f3b" };

function argsOf(settings: Record<string, unknown>, secrets = FIRST) {
  return {
    projectId: P,
    branchId: B,
    settings,
    domains: ["https://app.example.com", "https://admin.example.com"],
    oauth: [{ name: "ms", providerId: "microsoft", clientId: "ms-client", clientSecret: secrets.clientSecret, microsoftTenantId: "tenant-a" }],
    users: [{ name: "alice", email: "alice@example.com", displayName: "Alice", roles: ["admin"] }],
    smtp: { host: "smtp.example.com", port: 587, username: "mailer", password: secrets.password, senderEmail: "auth@example.com", senderName: "Acme" },
  };
}

/**
 * The steps of `pulumi preview --json` other than `same`, as op → resource names. Run
 * asynchronously: a synchronous run would stall the emulator in this process and its connections.
 */
async function previewSteps(e2e: E2eStack): Promise<Record<string, string[]>> {
  const { stdout } = await promisify(execFile)("pulumi", ["preview", "--json", "--cwd", e2e.dir, "--stack", e2e.stack.name], {
    env: { ...process.env, ...e2e.env },
    maxBuffer: 64 * 1024 * 1024,
  });
  const out = JSON.parse(stdout) as { steps: { op: string; urn: string }[] };
  const ops: Record<string, string[]> = {};
  for (const s of out.steps) if (s.op !== "same") (ops[s.op] ??= []).push(s.urn.split("::").pop()!);
  for (const names of Object.values(ops)) names.sort();
  return ops;
}

async function get(em: EmulatorHandle, p: string): Promise<any> {
  const res = await fetch(`${em.url}${p}`, { headers: { authorization: `Bearer ${API_KEY}` } });
  expect(res.status, `GET ${p}`).toBe(200);
  return res.json();
}

/** What a branch's settings are at the emulator, in the program's terms. */
async function live(em: EmulatorHandle, b: string) {
  const auth = `/projects/${P}/branches/${b}/auth`;
  const [integration, plugins, webhooks, oauthServer] = await Promise.all([get(em, auth), get(em, `${auth}/plugins`), get(em, `${auth}/webhooks`), get(em, `${auth}/plugins/oauth-provider`)]);
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

const writes = async (em: EmulatorHandle) =>
  (await requestLog(em)).filter((r) => r.method !== "GET" && r.path.startsWith("/api/v2")).map((r) => `${r.method} ${r.path.replace(/^\/api\/v2/, "")}`);

describe("a setting change is one update (NeonAuth)", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;
  /** Another branch, with a Neon Auth of its own made outside the stack, and what it holds. */
  let b2: string;
  let other: Awaited<ReturnType<typeof live>>;
  useEmulatorStack({
    emulator: { seedProjects: [`${P}:${B}`], rateLimit: "off" },
    prepare: async (em) => {
      b2 = await newBranch(em, P, "second");
      expect(await outOfBand(em, "POST", `/projects/${P}/branches/${b2}/auth`, { auth_provider: "better_auth" })).toBe(201);
      expect(await outOfBand(em, "PATCH", `/projects/${P}/branches/${b2}/auth/config`, { name: "Other" })).toBe(200);
      other = await live(em, b2);
    },
    stack: (em) => ({
      program: path.join(__dirname, "programs", "neon-auth-children"),
      config: { ...neonConfig(em), args: { value: JSON.stringify(argsOf(SETTINGS)), secret: true } },
    }),
    ready: (s) => ({ em, e2e } = s),
  });

  const set = (settings: Record<string, unknown>, secrets = ROTATED) =>
    e2e.stack.setConfig("args", { value: JSON.stringify(argsOf(settings, secrets)), secret: true });

  it("--diff names each field of an update, secrets included, and prints no secret", { timeout: 600_000 }, async () => {
    const up = await e2e.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ create: 7 }); // the stack, the NeonAuth, 5 children
    expect(up.outputs.authId!.value).toBe(`${P}/${B}`);
    expect(await live(em, B)).toEqual(EXPECTED);
    // The webhook URL is a secret in state (the checkpoint `stack export` prints).
    expect(JSON.stringify(await e2e.stack.exportStack())).not.toContain("one-update-3c1f");

    // A client secret, an SMTP password and the webhook URL, rotated together.
    await set({ ...SETTINGS, webhooks: { ...SETTINGS.webhooks, webhookUrl: ROTATED.webhookUrl } });
    const secrets = [...Object.values(FIRST), ...Object.values(ROTATED)].map((v) => v.replace(/^https:\/\/hooks\.example\.com/, ""));
    // Through the Automation API, not the synchronous `cli`: the emulator answers in this process.
    for (const [command, text] of [
      ["preview --diff", (await e2e.stack.preview({ diff: true, color: "never" })).stdout],
      ["up --diff", (await e2e.stack.up({ diff: true, color: "never" })).stdout],
    ] as const) {
      // The property lines (resource headers and the summary's counts left out), in any order.
      const changed = text.split("\n").filter((l) => /^\s*[~+-] /.test(l) && !/neon-auth:|^\s*[~+-] \d+ /.test(l));
      expect(changed.map((l) => l.trim()).sort(), `${command}:\n${text}`).toEqual(
        ["~ webhooks: {", "~ webhookUrl: [secret] => [secret]", "~ clientSecret: [secret] => [secret]", "~ password: [secret] => [secret]"].sort(),
      );
      for (const secret of secrets) expect(text, command).not.toContain(secret);
    }
    // The next test goes on with this stack and ends with the second preview and refresh.
  });

  it("each setting previews as one update and up does exactly that; a replacement replaces every child", { timeout: 900_000 }, async () => {
    // Every setting area changed at once: still exactly one update of the integration, no child
    // touched; the one request each area sends, and what Neon then holds.
    const areas: [string, Record<string, unknown>, Record<string, unknown>][] = [
      [`PATCH ${AUTH}/config`, { appName: "Acme 2" }, { name: "Acme 2" }],
      [`PATCH ${AUTH}/allow_localhost`, { allowLocalhost: true }, { allow_localhost: true }],
      [`PATCH ${AUTH}/email_and_password`, { emailAndPassword: { ...SETTINGS.emailAndPassword, disableSignUp: true } }, { email_and_password: { ...EXPECTED.email_and_password, disable_sign_up: true } }],
      [`PATCH ${AUTH}/plugins/organization`, { organization: { ...SETTINGS.organization, organizationLimit: 5 } }, { organization: { ...EXPECTED.organization, organization_limit: 5 } }],
      [`PATCH ${AUTH}/plugins/magic-link`, { magicLink: { ...SETTINGS.magicLink, expiresIn: 30 } }, { magic_link: { ...EXPECTED.magic_link, expires_in: 30 } }],
      [`PATCH ${AUTH}/plugins/phone-number`, { phoneNumber: { ...SETTINGS.phoneNumber, otpExpiresIn: 300 } }, { phone_number: { ...EXPECTED.phone_number, otp_expires_in: 300 } }],
      [
        `PUT ${AUTH}/webhooks`,
        { webhooks: { ...SETTINGS.webhooks, webhookUrl: ROTATED.webhookUrl, enabledEvents: ["user.created"] } },
        { webhooks: { ...EXPECTED.webhooks, webhook_url: ROTATED.webhookUrl, enabled_events: ["user.created"] } },
      ],
      // Neon replaces `mcp` whole; the dynamic-registration flag the program no longer names is
      // written back as Neon had it, never switched off by omission.
      [
        `PATCH ${AUTH}/plugins/oauth-provider`,
        { oauthServer: { ...SETTINGS.oauthServer, mcp: { resource: "https://mcp.example.com/v2" }, resources: ["https://mcp.example.com/v2", "https://api.example.com"] } },
        { oauth_server: { ...EXPECTED.oauth_server, mcp: { resource: "https://mcp.example.com/v2", dynamic_registration: false }, resources: ["https://mcp.example.com/v2", "https://api.example.com"] } },
      ],
    ];
    const settings: Record<string, unknown> = Object.assign({ ...SETTINGS }, ...areas.map(([, input]) => input));
    await set(settings);
    expect(await previewSteps(e2e)).toEqual({ update: ["auth"] });
    await clearRequestLog(em);
    const done = await e2e.stack.up({ color: "never" });
    expect(changesOf(done.summary.resourceChanges)).toEqual({ update: 1 });
    expect((await writes(em)).sort()).toEqual(areas.map(([request]) => request).sort());
    const after = Object.assign({ ...EXPECTED }, ...areas.map(([, , state]) => state));
    expect(await live(em, B)).toEqual(after);

    // `deleteDataOnDestroy` is recorded only: one update, no request at all.
    await set({ ...settings, deleteDataOnDestroy: true });
    expect(await previewSteps(e2e)).toEqual({ update: ["auth"] });
    await clearRequestLog(em);
    expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ update: 1 });
    expect(await writes(em)).toEqual([]);
    await set(settings);
    expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ update: 1 });

    // Drift in every area, made outside the stack: refresh shows it, the preview names each area,
    // up writes the program's values back. Fields the program does not set (the membership limit)
    // are not ours and stay drifted.
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
    for (const [method, p, body] of drift) expect(await outOfBand(em, method, `${AUTH}${p}`, body)).toBe(200);
    expect(changesOf((await e2e.stack.refresh({ color: "never" })).summary.resourceChanges)).toEqual({ update: 1 });
    const preview = await e2e.stack.preview({ color: "never", diff: true });
    expect(changesOf(preview.changeSummary)).toEqual({ update: 1 });
    for (const area of ["appName", "allowLocalhost", "emailAndPassword", "organization", "magicLink", "phoneNumber", "webhooks", "oauthServer"]) expect(preview.stdout).toContain(area);
    expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ update: 1 });
    expect(await live(em, B)).toEqual({ ...after, organization: { ...after.organization, membership_limit: 7 } });

    // A replacement of the integration (another database) replaces every child with it.
    const before = (await outOfBandAuth(em)).auth_provider_project_id;
    await set({ ...settings, databaseName: "appdb" });
    expect(await previewSteps(e2e)).toEqual({ replace: ["auth", ...CHILDREN].sort() });
    await clearRequestLog(em);
    const replaced = await e2e.stack.up({ color: "never" });
    expect(changesOf(replaced.summary.resourceChanges)).toEqual({ replace: 1 + CHILDREN.length });
    const replacedAuth = await outOfBandAuth(em);
    expect(replacedAuth.auth_provider_project_id).not.toBe(before);
    expect(replacedAuth.db_name).toBe("appdb");
    await expectNoChanges(e2e.stack);

    // The other branch saw none of this.
    expect(await live(em, b2)).toEqual(other);
  });
});

/** The branch's integration as the emulator's public API shows it. */
async function outOfBandAuth(em: EmulatorHandle): Promise<{ auth_provider_project_id: string; db_name: string }> {
  const res = await fetch(`${em.url}${AUTH}`, { headers: { authorization: `Bearer ${API_KEY}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as { auth_provider_project_id: string; db_name: string };
}
