/**
 * The package's policy pack through the real engine, run as the README and the examples write the
 * command (`--policy-pack node_modules/pulumi-neon-auth/policy`): examples/per-environment's `prod`
 * (production by the pack's config file) set up like dev fails its preview and its up, naming each
 * rule and resource, with no request that writes; with Pulumi.prod.yaml as shipped it previews and
 * goes up; `dev` passes with advisories. examples/preview-branches' stacks are production by their
 * stack tag.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { EmulatorHandle } from "../../src/emulator";
import { attempt, expectNoChanges, linkNodeModules, POLICY_PACK, policyViolations, sharedBackend, useEmulatorStack, type E2eStack } from "./harness";
import { branchSnapshot, branchState, clearRequestLog, neonConfig, projectConfig, requestLog, secretConfig } from "./neon";

const EXAMPLES = path.resolve(__dirname, "../../examples");
const PER_ENVIRONMENT = path.join(EXAMPLES, "per-environment");
const PREVIEW_BRANCHES = path.join(EXAMPLES, "preview-branches");
const WITH_PACK = ["--policy-pack", POLICY_PACK];
const CLASSES = "pulumi-nodejs:dynamic/neon-auth";

/**
 * prod's stack file as a first draft could have it, settings copied from dev's (what the checklist
 * is for): localhost allowed, Neon's shared Google keys and mail server, only a wildcard origin,
 * no protect. The test's own keys (the emulator, the secrets, their salt) stay as they are.
 */
function draftOf(stackFile: string): string {
  const file = parse(stackFile) as { config: Record<string, unknown> };
  const { "neon-auth-envs:smtp": _smtp, "neon-auth-envs:protect": _protect, ...config } = file.config;
  return stringify({
    ...file,
    config: {
      ...config,
      "neon-auth-envs:allowLocalhost": true,
      "neon-auth-envs:domains": ["https://*.example.com"],
      "neon-auth-envs:oauthProviders": [{ id: "google" }],
    },
  });
}

describe("the policy pack through the engine", () => {
  let em: EmulatorHandle;
  let prod: E2eStack;
  /** prod's stack file as the example ships it, with the test's keys. */
  let shipped: string;
  const backend = sharedBackend();
  const writes = async () => (await requestLog(em)).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

  useEmulatorStack({
    emulator: { seedProjects: ["p-prod:br-main-p-prod"] },
    stack: (em) => ({
      program: PER_ENVIRONMENT,
      stackName: "prod",
      backendDir: backend.dir,
      config: {
        ...neonConfig(em),
        ...secretConfig({ googleClientSecret: "prod-google-secret-c41e", githubClientSecret: "prod-github-secret-5b07", microsoftClientSecret: "prod-ms-secret-2e9d", smtpPassword: "prod-smtp-pw-8f13" }),
      },
    }),
    ready: (s) => {
      ({ em, e2e: prod } = s);
      linkNodeModules(prod);
    },
    // Production's NeonAuth is protected: the teardown's destroy may remove it only once it is not.
    beforeTeardown: async () => {
      await attempt(prod, "state", "unprotect", "--all", "--yes");
      await backend.teardown.beforeTeardown();
    },
    afterCleanup: backend.teardown.afterCleanup,
  });

  it("examples/per-environment: prod set up like dev fails preview and up, naming each rule and resource, and writes nothing", async () => {
    const stackFile = path.join(prod.dir, "Pulumi.prod.yaml");
    shipped = fs.readFileSync(stackFile, "utf8");
    fs.writeFileSync(stackFile, draftOf(shipped));
    await clearRequestLog(em);
    const want = [
      `[mandatory] neon-auth-no-localhost (${CLASSES}:NeonAuth: auth)`,
      `[mandatory] neon-auth-own-email-server (${CLASSES}:EmailServer: email)`,
      `[mandatory] neon-auth-own-oauth-apps (${CLASSES}:OAuthProvider: google)`,
      `[mandatory] neon-auth-protect-integration (${CLASSES}:NeonAuth: auth)`,
      `[mandatory] neon-auth-trusted-domain (${CLASSES}:NeonAuth: auth)`,
    ];
    const preview = await attempt(prod, "preview", ...WITH_PACK, "--policy-pack-config", "policy.json");
    expect(preview.code).toBe(1);
    expect(policyViolations(preview.out)).toEqual(want);
    expect(preview.out).toContain('NeonAuth "auth" sets allowLocalhost to true: any page on a user\'s machine can start sign-in');
    // The pipeline's command: up previews first and stops there.
    const up = await attempt(prod, "up", "--yes", ...WITH_PACK, "--policy-pack-config", "policy.json");
    expect(up.code).toBe(1);
    expect(policyViolations(up.out)).toEqual(want);
    expect(await writes()).toEqual([]);
    expect((await branchSnapshot(em, "p-prod", "br-main-p-prod")).auth).toBeUndefined();
  });

  it("examples/per-environment: with Pulumi.prod.yaml as shipped, prod previews and goes up with no violation", async () => {
    fs.writeFileSync(path.join(prod.dir, "Pulumi.prod.yaml"), shipped);
    // up previews with the pack first (as the failing up above shows): no violation there, nor in the update.
    const up = await attempt(prod, "up", "--yes", ...WITH_PACK, "--policy-pack-config", "policy.json");
    expect([up.code, policyViolations(up.out)]).toEqual([0, []]);
    const providers = { github: "standard", google: "standard", microsoft: "standard" };
    const email = { type: "standard", host: "smtp.example.com", port: 587, username: "prod", password: "", sender_email: "auth@example.com", sender_name: "Example" };
    const declared = branchState({ name: "Example", localhost: false, verification: true, providers, domains: ["https://app.example.com", "https://www.example.com"], email });
    expect(await branchSnapshot(em, "p-prod", "br-main-p-prod")).toEqual(declared);
    await expectNoChanges(prod.stack);
  });

  it("examples/per-environment: dev passes the same command with advisories listed", async () => {
    const dev = await backend.stack({ program: PER_ENVIRONMENT, stackName: "dev", config: neonConfig(em) });
    linkNodeModules(dev);
    await clearRequestLog(em);
    const preview = await attempt(dev, "preview", ...WITH_PACK, "--policy-pack-config", "policy.json");
    expect(preview.code).toBe(0);
    expect(policyViolations(preview.out)).toEqual([
      `[advisory] neon-auth-email-verification (${CLASSES}:NeonAuth: auth)`,
      `[advisory] neon-auth-no-localhost (${CLASSES}:NeonAuth: auth)`,
      `[advisory] neon-auth-own-email-server (${CLASSES}:EmailServer: email)`,
      `[advisory] neon-auth-own-oauth-apps (${CLASSES}:OAuthProvider: google)`,
      `[advisory] neon-auth-protect-integration (${CLASSES}:NeonAuth: auth)`,
    ]);
    expect(preview.out).toContain('(advisory: stack "dev" is not a production stack)');
    expect(await writes()).toEqual([]);
  });

  it("examples/preview-branches: a stack tagged production is held to the mandatory rules, an untagged preview gets advisories", async () => {
    await clearRequestLog(em);
    const tag = ["stack", "tag", "set", "neon-auth:environment", "production"];
    const prodBranches = await backend.stack({ program: PREVIEW_BRANCHES, stackName: "prod", config: { ...neonConfig(em), ...secretConfig({ googleClientSecret: "acme-google-secret-77a0", smtpPassword: "acme-smtp-pw-1c5d" }) } });
    linkNodeModules(prodBranches);
    expect((await attempt(prodBranches, ...tag)).code).toBe(0);
    const passes = await attempt(prodBranches, "preview", ...WITH_PACK);
    expect([passes.code, policyViolations(passes.out)]).toEqual([0, []]);

    const pr = await backend.stack({ program: PREVIEW_BRANCHES, stackName: "pr-7", config: { ...neonConfig(em), ...projectConfig("p-acme", "br-pr-7") } });
    linkNodeModules(pr);
    const rules = ["email-verification", "keep-data-on-destroy", "no-localhost", "own-email-server", "own-oauth-apps", "protect-integration"];
    const resource = (rule: string) => (rule === "own-email-server" ? "EmailServer: email" : rule === "own-oauth-apps" ? "OAuthProvider: google" : "NeonAuth: auth");
    const advisories = await attempt(pr, "preview", ...WITH_PACK);
    expect(advisories.code).toBe(0);
    expect(policyViolations(advisories.out)).toEqual(rules.map((r) => `[advisory] neon-auth-${r} (${CLASSES}:${resource(r)})`));
    // The same stack tagged production: the defaults' levels apply (email verification is advisory).
    expect((await attempt(pr, ...tag)).code).toBe(0);
    const refused = await attempt(pr, "preview", ...WITH_PACK);
    expect(refused.code).toBe(1);
    expect(policyViolations(refused.out)).toEqual(rules.map((r) => `[${r === "email-verification" ? "advisory" : "mandatory"}] neon-auth-${r} (${CLASSES}:${resource(r)})`));
    expect(await writes()).toEqual([]);
  });
});
