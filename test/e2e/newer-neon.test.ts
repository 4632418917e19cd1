/**
 * The acceptance of issue 39: stacks keep working when Neon answers as a newer Neon does (the
 * emulator's newer-Neon mode: a field added to every object of every answer, and members nobody
 * declared, of a client type, provider id and type the package does not know, on every new
 * integration). A branch stack with every NeonAuth setting (the OAuth server with `mcp`, on the
 * project's root branch), Google (shared) and GitHub (own credentials), a wildcard and a plain
 * trusted domain, SMTP, a user with roles and an OAuth client; beside it a project-level stack
 * (integration, SDK keys, a user, a provider, a domain, the email server). `up`, a no-change preview
 * and refresh, an app name change that is exactly one update, and destroy all pass, and the
 * members nobody declared are never touched: the children's deletes leave them as they were (the
 * integrations' own deletes then disable auth, which takes everything with it, as at Neon).
 * Its answers also say less, in pages (issue 48): settings no write has set are `null`, the
 * integrations' JWKS URL and database are left out, and every list the package reads whole comes
 * one member a page behind `pagination: {cursor, has_more: true}`. The refresh forgets nothing (a
 * first page taken as whole would lose the stacks' domains, providers and clients), and the `up`
 * after it sends no create.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changedFields, changesOf, expectNoChanges, failureCollector, pluginStack, sharedBackend, type E2eStack } from "./harness";
import { FOREIGN_BRANCH_PROVIDER, FOREIGN_CLIENT, FOREIGN_DOMAIN, FOREIGN_PROJECT_PROVIDER } from "../newer-neon";
import { branchUserRows, emulator, NEON_AUTH_SETTINGS, NEON_EMAIL_AND_PASSWORD, neonConfig, projectConfig, requestLog } from "./neon";
import { emulatorOnly } from "./remote";

const P = "p-newer-neon";
const B = `br-main-${P}`;
/** The project-level (Stack Auth) stack's own project. */
const PL = "p-newer-neon-legacy";
const BL = `br-main-${PL}`;
const APP = "https://app.example.com";
const PREVIEWS = "https://*.preview.example.com";
const MCP = "https://mcp.example.com/mcp";
const SECRETS = {
  github: "gh-secret-newer-neon-7d3e",
  smtp: "smtp-pw-newer-neon-2b9c",
  webhook: "https://hooks.example.com/newer-neon-5f1a",
  legacyGithub: "gh-secret-newer-neon-legacy-4c8e",
  legacySmtp: "smtp-pw-newer-neon-legacy-9a0d",
};

/** Every setting a NeonAuth has. */
const SETTINGS = {
  ...NEON_AUTH_SETTINGS,
  webhooks: { enabled: true, webhookUrl: SECRETS.webhook, enabledEvents: ["user.created", "send.otp"] },
  oauthServer: { enabled: true, loginPage: `${APP}/sign-in`, consentPage: `${APP}/consent`, mcp: { resource: MCP }, resources: [MCP] },
};
const SMTP = { host: "smtp.example.com", port: 587, username: "mailer", senderEmail: "auth@example.com", senderName: "Acme" };
const CLIENT = { name: "acme-gateway", type: "confidential", redirect_uris: [`${APP}/oauth/callback`] } as const;

const args = (appName: string) => ({
  projectId: P,
  branchId: B,
  settings: { ...SETTINGS, appName },
  domains: [APP, PREVIEWS],
  oauth: [
    { name: "google", providerId: "google" },
    { name: "github", providerId: "github", clientId: "gh-client-newer-neon", clientSecret: SECRETS.github },
  ],
  users: [{ name: "ada", email: "ada@example.com", displayName: "Ada", roles: ["admin", "user"] }],
  smtp: { ...SMTP, password: SECRETS.smtp },
  oauthClients: [{ name: CLIENT.name, type: CLIENT.type, redirectUris: CLIENT.redirect_uris }],
});

// The stack, the NeonAuth, 2 domains, 2 providers, 1 user, the email server, 1 OAuth client.
const BRANCH_TOTAL = 9;
// The stack, the integration, SDK keys, a user, a provider, a domain, the email server.
const LEGACY_TOTAL = 7;

/** The errors a failed Pulumi command reports (its diagnostics), without the rest of its output. */
function errorLines(e: Error): string[] {
  const lines = e.message.split("\n").map((l) => l.trim());
  return [...new Set(lines.filter((l) => l.startsWith("* ") || /^error: (?!update failed|preview failed|refresh failed|1 error occurred)/.test(l)))];
}

emulatorOnly("the emulator's newer-Neon mode")("a newer Neon (issue 39): both API generations' stacks work, and what they did not declare stays untouched — the classes", () => {
  let em: EmulatorHandle;
  let branch: E2eStack;
  let legacy: E2eStack;
  const backend = sharedBackend();

  backend.use({
    emulator: { seedProjects: [`${P}:${B}`, `${PL}:${BL}`], newerNeon: true },
    stack: (em) => ({
      program: path.join(__dirname, "programs", "neon-auth-children"),
      stackName: "branch",
      config: { ...neonConfig(em), args: { value: JSON.stringify(args("Acme")), secret: true } },
    }),
    ready: (s) => ({ em, e2e: branch } = s),
  });

  beforeAll(async () => {
    legacy = await backend.stack({
      program: path.join(__dirname, "programs", "all-kinds"),
      stackName: "legacy",
      config: {
        ...neonConfig(em),
        ...projectConfig(PL, BL, { clientSecret: SECRETS.legacyGithub, smtpPassword: SECRETS.legacySmtp }),
        // Everything but the ownership transfer, which would hand the auth project away.
        without: { value: JSON.stringify(["transfer"]) },
      },
    });
  });

  /** The branch's Neon Auth as stored (secrets included), through the control route: it adds nothing. */
  async function branchAuth(): Promise<any> {
    const res = await fetch(`${em.controlUrl}/projects/${P}/branches/${B}/auth?secrets=true`);
    return ((await res.json()) as any).auth;
  }

  /** The project-level integrations of the legacy project as stored. */
  async function legacyIntegrations(): Promise<any[]> {
    const res = await fetch(`${em.controlUrl}/state?secrets=true`, { headers: { authorization: `Bearer ${em.controlToken}` } });
    return ((await res.json()) as any).projects.find((p: any) => p.id === PL).integrations;
  }

  const byId = (a: any, b: any) => (a.id ?? a.client_id).localeCompare(b.id ?? b.client_id);
  const foreignClient = (auth: any) => auth.oauth_clients.find((c: any) => c.client_id === FOREIGN_CLIENT.client_id);
  /** When the emulator made the foreign client (with the integration): compared, never guessed. */
  let foreignCreatedMs: number;

  it("up creates both stacks exactly as declared, beside the members nobody declared", { timeout: 600_000 }, async () => {
    // Every resource runs whatever another's fate, so that one failure does not hide the next.
    const up = async (s: E2eStack) => {
      const { failures, onEvent } = failureCollector();
      const done = await s.stack.up({ color: "never", continueOnError: true, onEvent }).then((r) => changesOf(r.summary.resourceChanges), () => "failed");
      return { changes: done, failures: Object.fromEntries([...failures].map(([urn, m]) => [urn.split("::").pop(), m])) };
    };
    expect({ branch: await up(branch), legacy: await up(legacy) }).toEqual({
      branch: { changes: { create: BRANCH_TOTAL }, failures: {} },
      legacy: { changes: { create: LEGACY_TOTAL }, failures: {} },
    });

    const a = await branchAuth();
    foreignCreatedMs = foreignClient(a).created_ms;
    expect(foreignCreatedMs).toBeGreaterThanOrEqual(a.created_ms);
    expect({
      name: a.name,
      allow_localhost: a.allow_localhost,
      email_and_password: a.email_and_password,
      organization: a.organization,
      magic_link: a.magic_link,
      phone_number: a.phone_number,
      webhooks: a.webhooks,
      oauth_server: a.oauth_server,
      domains: [...a.domains].sort(),
      oauth_providers: [...a.oauth_providers].sort(byId),
      email_provider: a.email_provider,
      oauth_clients: a.oauth_clients.map(({ client_id, client_secret: _, created_ms, ...c }: any) => (client_id === FOREIGN_CLIENT.client_id ? { client_id, created_ms, ...c } : c)),
    }).toEqual({
      name: "Acme",
      allow_localhost: false,
      email_and_password: { ...NEON_EMAIL_AND_PASSWORD, require_email_verification: true },
      organization: { enabled: true, organization_limit: 10, membership_limit: 100, creator_role: "admin", send_invitation_email: false },
      magic_link: { enabled: true, expires_in: 15, disable_sign_up: false },
      phone_number: { enabled: true, otp_expires_in: 120 },
      webhooks: { enabled: true, webhook_url: SECRETS.webhook, enabled_events: ["user.created", "send.otp"], timeout_seconds: 5 },
      oauth_server: { enabled: true, login_page: `${APP}/sign-in`, consent_page: `${APP}/consent`, mcp: { resource: MCP }, resources: [MCP] },
      domains: [FOREIGN_DOMAIN, PREVIEWS, APP].sort(),
      oauth_providers: [
        FOREIGN_BRANCH_PROVIDER,
        { id: "github", type: "standard", client_id: "gh-client-newer-neon", client_secret: SECRETS.github },
        { id: "google", type: "shared" },
      ],
      email_provider: { type: "standard", host: SMTP.host, port: SMTP.port, username: SMTP.username, password: SECRETS.smtp, sender_email: SMTP.senderEmail, sender_name: SMTP.senderName },
      // Created first, with the integration; then the stack's.
      oauth_clients: [{ ...FOREIGN_CLIENT, created_ms: foreignCreatedMs }, { ...CLIENT, resources: [], skip_consent: false, disabled: false }],
    });
    expect((await branchUserRows(em, P, B)).map((r) => [r.email, r.name, r.role])).toEqual([["ada@example.com", "Ada", "admin,user"]]);

    const [i, ...others] = await legacyIntegrations();
    expect(others).toEqual([]);
    expect({
      keys: i.keys.length,
      users: i.users.map((u: any) => [u.email, u.name]),
      oauth_providers: [...i.oauth_providers].sort(byId),
      domains: i.domains.map((d: any) => d.domain).sort(),
      email_server: i.email_server,
    }).toEqual({
      keys: 2, // the integration's own and the AuthSdkKeys set
      users: [["ada@example.com", "Ada"]],
      oauth_providers: [FOREIGN_PROJECT_PROVIDER, { id: "github", type: "standard", client_id: "gh-client-id", client_secret: SECRETS.legacyGithub }],
      domains: [FOREIGN_DOMAIN, APP].sort(),
      email_server: { type: "standard", host: "smtp.example.com", port: 587, username: "apikey", password: SECRETS.legacySmtp, sender_email: "auth@example.com", sender_name: "Example" },
    });
  });

  it("a refresh of each stack, and a preview of the project-level one, show no changes", { timeout: 600_000 }, async () => {
    // Each command of each stack runs, and what fails says why: one failure does not hide the next.
    // The branch stack's preview is the next test's, which counts every change exactly.
    const outcome = (run: Promise<Record<string, number>>) => run.catch((e: Error) => errorLines(e));
    const preview = (s: E2eStack) => outcome(s.stack.preview({ color: "never", expectNoChanges: true }).then((r) => r.changeSummary));
    const refresh = (s: E2eStack) => outcome(s.stack.refresh({ color: "never", expectNoChanges: true }).then((r) => changesOf(r.summary.resourceChanges)));
    expect({ branch: { refresh: await refresh(branch) }, legacy: { preview: await preview(legacy), refresh: await refresh(legacy) } }).toEqual({
      branch: { refresh: {} },
      legacy: { preview: { same: LEGACY_TOTAL }, refresh: {} },
    });
  });

  it("an app name change previews as exactly one update of appName, and up applies just that", { timeout: 600_000 }, async () => {
    await branch.stack.setConfig("args", { value: JSON.stringify(args("Acme Next")), secret: true });
    const preview = await branch.stack.preview({ color: "never", diff: true });
    expect(preview.changeSummary).toEqual({ update: 1, same: BRANCH_TOTAL - 1 });
    expect(changedFields(preview.stdout)).toEqual(["~ appName"]);
    const before = (await requestLog(em)).length;
    expect((await branch.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ update: 1, same: BRANCH_TOTAL - 1 });
    // After the refresh of paged lists and answers that say less, nothing is made again.
    expect((await requestLog(em)).slice(before).filter((r) => r.method === "POST")).toEqual([]);
    expect((await branchAuth()).name).toBe("Acme Next");
    await expectNoChanges(branch.stack, BRANCH_TOTAL);
  });

  it("destroy deletes what the stacks declared and never touches what they did not", { timeout: 600_000 }, async () => {
    // The children first: their deletes are where a package could take a foreign member with them.
    const children = async (s: E2eStack, keep: string) =>
      (((await s.stack.exportStack()).deployment.resources ?? []) as { urn: string; type: string }[])
        .filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/neon-auth:") && !r.type.endsWith(keep))
        .map((r) => r.urn);
    const branchChildren = await children(branch, ":NeonAuth");
    const legacyChildren = await children(legacy, ":AuthIntegration");
    expect([branchChildren.length, legacyChildren.length]).toEqual([BRANCH_TOTAL - 2, LEGACY_TOTAL - 2]);
    expect(changesOf((await branch.stack.destroy({ color: "never", target: branchChildren })).summary.resourceChanges)).toEqual({ delete: BRANCH_TOTAL - 2 });
    expect(changesOf((await legacy.stack.destroy({ color: "never", target: legacyChildren })).summary.resourceChanges)).toEqual({ delete: LEGACY_TOTAL - 2 });

    const a = await branchAuth();
    expect({ domains: a.domains, oauth_providers: a.oauth_providers, oauth_clients: a.oauth_clients, email_provider: a.email_provider }).toEqual({
      domains: [FOREIGN_DOMAIN],
      oauth_providers: [FOREIGN_BRANCH_PROVIDER],
      oauth_clients: [{ ...FOREIGN_CLIENT, created_ms: foreignCreatedMs }],
      email_provider: { type: "shared" },
    });
    expect(await branchUserRows(em, P, B)).toEqual([]);
    const [i] = await legacyIntegrations();
    expect({ oauth_providers: i.oauth_providers, domains: i.domains.map((d: any) => d.domain), users: i.users.map((u: any) => u.email) }).toEqual({
      oauth_providers: [FOREIGN_PROJECT_PROVIDER],
      domains: [FOREIGN_DOMAIN],
      users: [],
    });
    // Nor was anything ever asked of them by name (a batch domain delete names its domains in the body: the state above covers it).
    const named = (await requestLog(em)).filter((r) => r.path.includes(FOREIGN_CLIENT.client_id) || r.path.endsWith("/oauth_providers/apple"));
    expect(named).toEqual([]);

    // The integrations last: disabling auth takes everything on it, as Neon does.
    expect(changesOf((await branch.stack.destroy({ color: "never" })).summary.resourceChanges)).toEqual({ delete: 2 });
    expect(changesOf((await legacy.stack.destroy({ color: "never" })).summary.resourceChanges)).toEqual({ delete: 2 });
    expect(await branchAuth()).toBeNull();
    expect(await legacyIntegrations()).toEqual([]);
  });
});

/**
 * The same on the plugin: a YAML program (lost-yaml: a NeonAuth, a trusted domain, GitHub with its
 * own credentials, SMTP, a confidential OAuth client) on a newer Neon. `up`, a no-change preview
 * and refresh, an app name change that is exactly one update, and destroy pass, and the members
 * nobody declared (a client, a provider, a domain) are left as they were by the children's deletes.
 */
emulatorOnly("the emulator's newer-Neon mode")("a newer Neon (issue 39): a stack works, and what it did not declare stays untouched — the plugin", () => {
  const PP = "p-newer-neon-plugin";
  const PB = `br-main-${PP}`;

  it("up, no changes, one update of appName, destroy; the members nobody declared untouched", { timeout: 600_000 }, async () => {
    const em = await emulator({ seedProjects: [`${PP}:${PB}`], newerNeon: true, rateLimit: "off" });
    const e2e = await pluginStack(
      { program: path.join(__dirname, "programs", "lost-yaml"), config: { ...neonConfig(em), ...projectConfig(PP, PB, { githubClientSecret: SECRETS.github, smtpPassword: SECRETS.smtp }) } },
      "yaml",
    );
    const auth = async () => ((await (await fetch(`${em.controlUrl}/projects/${PP}/branches/${PB}/auth?secrets=true`)).json()) as any).auth;
    try {
      const { failures, onEvent } = failureCollector();
      const up = await e2e.stack.up({ color: "never", continueOnError: true, onEvent }).then((r) => changesOf(r.summary.resourceChanges), () => "failed");
      expect({ up, failures: Object.fromEntries(failures) }).toEqual({ up: { create: 6 }, failures: {} });
      const a = await auth();
      const foreignCreatedMs = a.oauth_clients.find((c: any) => c.client_id === FOREIGN_CLIENT.client_id).created_ms;
      expect({ domains: [...a.domains].sort(), providers: a.oauth_providers.map((p: any) => p.id).sort(), clients: a.oauth_clients.map((c: any) => c.name) }).toEqual({
        domains: [FOREIGN_DOMAIN, APP].sort(),
        providers: ["apple", "github", "google"],
        clients: [FOREIGN_CLIENT.name, "cli"],
      });
      // The refresh of paged lists before the update; the preview is the diff's below, which counts every change.
      expect(changesOf((await e2e.stack.refresh({ color: "never", expectNoChanges: true })).summary.resourceChanges)).toEqual({});

      const file = path.join(e2e.dir, "Pulumi.yaml");
      fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("appName: Acme\n", "appName: Acme Next\n"));
      const preview = await e2e.stack.preview({ color: "never", diff: true });
      expect(preview.changeSummary).toEqual({ update: 1, same: 5 });
      expect(changedFields(preview.stdout)).toEqual(["~ appName"]);
      const before = (await requestLog(em)).length;
      expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ update: 1, same: 5 });
      expect((await requestLog(em)).slice(before).filter((r) => r.method === "POST")).toEqual([]);
      expect((await auth()).name).toBe("Acme Next");
      await expectNoChanges(e2e.stack, 6);

      const children = (((await e2e.stack.exportStack()).deployment.resources ?? []) as { urn: string; type: string }[])
        .filter((r) => r.type.startsWith("neon-auth:index:") && r.type !== "neon-auth:index:NeonAuth")
        .map((r) => r.urn);
      expect(changesOf((await e2e.stack.destroy({ color: "never", target: children })).summary.resourceChanges)).toEqual({ delete: 4 });
      const left = await auth();
      expect({ domains: left.domains, oauth_providers: left.oauth_providers, oauth_clients: left.oauth_clients, email_provider: left.email_provider }).toEqual({
        domains: [FOREIGN_DOMAIN],
        // Neon's default Google, which this program does not declare, stays too.
        oauth_providers: [{ id: "google", type: "shared" }, FOREIGN_BRANCH_PROVIDER],
        oauth_clients: [{ ...FOREIGN_CLIENT, created_ms: foreignCreatedMs }],
        email_provider: { type: "shared" },
      });
      expect((await requestLog(em)).filter((r) => r.path.includes(FOREIGN_CLIENT.client_id) || r.path.endsWith("/oauth_providers/apple"))).toEqual([]);
      expect(changesOf((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges)).toEqual({ delete: 2 });
      expect(await auth()).toBeNull();
    } finally {
      await e2e.cleanup();
      await em.close();
    }
  });
});
