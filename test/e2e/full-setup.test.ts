/**
 * The whole auth setup through the real engine against the emulator at its spec rate limits:
 * create at scale, no-change preview and refresh, in-place updates, replacements, back to
 * shared email, drift, secrets, destroy.
 */
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, fullSetup, useEmulatorStack, type E2eStack } from "./harness";
import { API_KEY, FULL_SETUP_EMAIL, FULL_SETUP_PROVIDERS, FULL_SETUP_USERS, outOfBand, snapshot } from "./neon";
import { emulatorOnlyIt } from "./remote";

const PROJECT = "p-full";
const BRANCH = "br-main-p-full";
const GITHUB_SECRET = "gh-secret-7c1e5a90d2";
const GITHUB_SECRET_2 = "gh-secret-rotated-3b8f14";
const SMTP_PASSWORD = "smtp-pw-e41b0c77aa";
const EXTRA = Number(process.env.E2E_EXTRA_DOMAINS ?? 100);

describe("full auth setup (examples/full-setup)", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;
  const output: string[] = [];
  const onOutput = (s: string) => output.push(s);

  useEmulatorStack({
    ...fullSetup({
      project: PROJECT,
      branch: BRANCH,
      githubClientSecret: GITHUB_SECRET,
      smtpPassword: SMTP_PASSWORD,
      extraDomains: EXTRA,
    }),
    ready: (s) => ({ em, e2e } = s),
  });

  /**
   * `pulumi stack export` as the CLI prints it, once: the Automation API's exportStack shows
   * secrets; the CLI's export is what a user shares. Nothing changes the stack between its readers.
   */
  let exportedText: string | undefined;
  const cliExport = () => (exportedText ??= e2e.cli("stack", "export"));

  // 1 stack + integration + keys + 2 OAuth providers + (3 + EXTRA) domains + email + 2 users
  const TOTAL = 1 + 1 + 1 + 2 + (3 + EXTRA) + 1 + 2;

  it("creates everything as declared", { timeout: 600_000 }, async () => {
    const up = await e2e.stack.up({ color: "never", onOutput });
    expect(up.summary.result).toBe("succeeded");
    expect(up.summary.resourceChanges).toEqual({ create: TOTAL });

    const snap = await snapshot(em, PROJECT);
    expect(snap.integrations).toEqual([{ auth_provider: "stack", branch_id: BRANCH, owned_by: "neon" }]);
    expect(snap.providers).toEqual(FULL_SETUP_PROVIDERS);
    expect(snap.domains).toHaveLength(3 + EXTRA);
    expect(snap.domains).toContain("https://app.example.com");
    expect(snap.domains).toContain("http://localhost:3000");
    expect(snap.domains).toContain(`https://app-${EXTRA}.example.com`);
    expect(snap.email).toEqual(FULL_SETUP_EMAIL);
    expect(snap.users).toEqual(FULL_SETUP_USERS);

    expect(up.outputs.domainCount).toEqual({ value: 3 + EXTRA, secret: false });
    expect(up.outputs.ownedBy).toEqual({ value: "neon", secret: false });
    expect(up.outputs.appEnv?.secret).toBe(true);
    expect(Object.keys(up.outputs.appEnv?.value ?? {}).sort()).toEqual([
      "NEXT_PUBLIC_STACK_PROJECT_ID",
      "NEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY",
      "STACK_SECRET_SERVER_KEY",
    ]);
  });

  it("updates credentials and SMTP fields in place", { timeout: 300_000 }, async () => {
    await e2e.stack.setConfig("githubClientSecret", { value: GITHUB_SECRET_2, secret: true });
    await e2e.stack.setConfig("smtpHost", { value: "mail.example.org" });
    await e2e.stack.setConfig("smtpPort", { value: "2525" });
    const up = await e2e.stack.up({ color: "never", diff: true, onOutput });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ update: 2 });
    const snap = await snapshot(em, PROJECT);
    expect(snap.email).toMatchObject({ type: "standard", host: "mail.example.org", port: 2525 });
    expect(snap.providers).toEqual([
      { id: "github", type: "standard" },
      { id: "google", type: "shared" },
    ]);
  });

  it("replaces a domain, a user and a provider id; email back to shared", { timeout: 300_000 }, async () => {
    await e2e.stack.setConfig("appDomain", { value: "https://www.example.com" });
    await e2e.stack.setConfig("users", {
      value: JSON.stringify([
        // A rename deletes the account: said on purpose.
        { email: "ada@example.com", name: "Ada King", recreateOnChange: true },
        { email: "grace@example.com", name: "Grace Hopper" },
      ]),
    });
    await e2e.stack.setConfig("githubProviderId", { value: "microsoft" });
    await e2e.stack.setConfig("emailType", { value: "shared" });
    const up = await e2e.stack.up({ color: "never", diff: true, onOutput });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ replace: 3, update: 1 });

    const snap = await snapshot(em, PROJECT);
    expect(snap.domains).toContain("https://www.example.com");
    expect(snap.domains).not.toContain("https://app.example.com");
    expect(snap.domains).toHaveLength(3 + EXTRA);
    expect(snap.providers).toEqual([
      { id: "google", type: "shared" },
      { id: "microsoft", type: "standard" },
    ]);
    expect(snap.users).toEqual([
      { email: "ada@example.com", name: "Ada King" },
      { email: "grace@example.com", name: "Grace Hopper" },
    ]);
    expect(snap.email).toEqual({ type: "shared" });
  });

  it("shows objects deleted out of band on refresh and recreates them on up", { timeout: 300_000 }, async () => {
    expect(await outOfBand(em, "DELETE", `/projects/${PROJECT}/auth/oauth_providers/google`)).toBe(204);
    expect(
      await outOfBand(em, "DELETE", `/projects/${PROJECT}/auth/domains`, {
        auth_provider: "stack",
        domains: [{ domain: "https://app-1.example.com" }],
      }),
    ).toBe(200);

    const refresh = await e2e.stack.refresh({ color: "never", onOutput });
    expect(changesOf(refresh.summary.resourceChanges)).toEqual({ delete: 2 });

    const up = await e2e.stack.up({ color: "never", onOutput });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ create: 2 });
    const snap = await snapshot(em, PROJECT);
    expect(snap.providers.map((p) => p.id)).toEqual(["google", "microsoft"]);
    expect(snap.domains).toContain("https://app-1.example.com");

    // The one no-change preview (with its diff, into the output checked for secrets) and refresh:
    // each up before this one is checked by the next operation's exact change counts.
    const preview = await e2e.stack.preview({ color: "never", expectNoChanges: true, diff: true, onOutput });
    expect(preview.changeSummary).toEqual({ same: TOTAL });
    const quiet = await e2e.stack.refresh({ color: "never", expectNoChanges: true, onOutput });
    expect(changesOf(quiet.summary.resourceChanges)).toEqual({});
  });

  emulatorOnlyIt("the SDK keys as the emulator stored them")("keeps every secret out of state and CLI output", { timeout: 120_000 }, async () => {
    const state = await em.state({ secrets: true });
    const keys = JSON.stringify(state).match(/"(pck|ssk)_[A-Za-z0-9_-]+"/g) ?? [];
    expect(keys.length).toBeGreaterThan(0);
    const secrets = [API_KEY, GITHUB_SECRET, GITHUB_SECRET_2, SMTP_PASSWORD, ...keys.map((k) => k.slice(1, -1))];

    const exported = cliExport();
    const outputsJson = e2e.cli("stack", "output", "--json");
    const cliOutput = output.join("");
    for (const secret of secrets) {
      expect(exported.includes(secret), `state holds ${secret.slice(0, 4)}…`).toBe(false);
      expect(cliOutput.includes(secret), `CLI output holds ${secret.slice(0, 4)}…`).toBe(false);
      expect(outputsJson.includes(secret), `stack output holds ${secret.slice(0, 4)}…`).toBe(false);
    }
    expect(cliOutput.length).toBeGreaterThan(1000);
  });

  it("keeps state small: each provider is a require() of its module", async () => {
    const exported = JSON.parse(cliExport());
    const resources: { type: string; inputs?: { __provider?: string } }[] = exported.deployment.resources;
    const dynamic = resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/neon-auth:"));
    expect(dynamic).toHaveLength(TOTAL - 1);
    for (const r of dynamic) {
      const kind = r.type.split(":").pop();
      expect(r.inputs?.__provider).toContain(`require("pulumi-neon-auth/dist/resources/providers/${kind}.js")`);
      expect(r.inputs?.__provider?.length).toBeLessThan(600);
    }
    const bytesPerResource = JSON.stringify(exported).length / resources.length;
    process.stderr.write(`state: ${resources.length} resources, ${Math.round(bytesPerResource)} bytes per resource\n`);
    expect(bytesPerResource).toBeLessThan(4096);
  });

  it("destroys everything it made", { timeout: 300_000 }, async () => {
    const destroy = await e2e.stack.destroy({ color: "never", onOutput });
    expect(destroy.summary.resourceChanges).toEqual({ delete: TOTAL });
    const snap = await snapshot(em, PROJECT);
    expect(snap.integrations).toEqual([]);
    expect(snap.domains).toEqual([]);
    expect(snap.providers).toEqual([]);
    expect(snap.users).toEqual([]);
  });
});
