/**
 * The policy pack on the other face: examples/yaml, a Pulumi YAML program on the neon-auth plugin
 * (type tokens `neon-auth:index:<Kind>`), run through Pulumi YAML's own language host with the
 * pack as the README gives the command. As a production stack (by its stack tag) its preview fails
 * on the same rules as the classes', with no request that writes; once the program declares the
 * fixes, it passes.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import type { EmulatorHandle } from "../../src/emulator";
import { attempt, linkNodeModules, onFreshEmulator, pluginStack, POLICY_PACK, policyViolations } from "./harness";
import { clearRequestLog, neonConfig, projectConfig, requestLog, secretConfig } from "./neon";

const EXAMPLE = path.join(__dirname, "..", "..", "examples", "yaml");

interface YamlProgram {
  config: Record<string, unknown>;
  resources: Record<string, { type: string; properties: Record<string, unknown>; options?: Record<string, unknown> }>;
}

/** What the rules asked for, declared in the program: no localhost, protect, Google and SMTP of its own. */
function withFixes(text: string): string {
  const program = parse(text) as YamlProgram;
  const auth = program.resources.auth!;
  auth.properties.allowLocalhost = false;
  auth.options = { protect: true };
  program.config.googleClientSecret = { type: "string", secret: true };
  program.config.smtpPassword = { type: "string", secret: true };
  program.resources.google = {
    type: "neon-auth:index:OAuthProvider",
    properties: { integration: "${auth.ref}", providerId: "google", clientId: "acme.apps.googleusercontent.com", clientSecret: "${googleClientSecret}" },
  };
  program.resources.email = {
    type: "neon-auth:index:EmailServer",
    properties: { integration: "${auth.ref}", type: "standard", host: "smtp.example.com", port: 587, username: "acme", password: "${smtpPassword}", senderEmail: "auth@example.com", senderName: "Acme" },
  };
  return stringify(program);
}

describe("the policy pack on a YAML program on the neon-auth plugin", () => {
  it("a production stack fails on the same rules, naming the plugin's resources, then passes with the fixes declared", { timeout: 600_000 }, async () => {
    const project = "p-yaml-policy";
    const stack = (em: EmulatorHandle, branch: string) => pluginStack({ program: EXAMPLE, config: { ...neonConfig(em), ...projectConfig(project, branch, { githubClientSecret: "gh-yaml-policy-3a9c" }) } }, "yaml");
    await onFreshEmulator(project, stack, async ({ em, e2e }) => {
      linkNodeModules(e2e);
      expect((await attempt(e2e, "stack", "tag", "set", "neon-auth:environment", "production")).code).toBe(0);
      await clearRequestLog(em);

      const refused = await attempt(e2e, "preview", "--policy-pack", POLICY_PACK);
      expect(refused.code).toBe(1);
      // examples/yaml declares no Google and no email server: a new NeonAuth keeps Neon's shared ones.
      expect(policyViolations(refused.out)).toEqual([
        "[mandatory] neon-auth-no-localhost (neon-auth:index:NeonAuth: auth)",
        "[mandatory] neon-auth-own-email-server (neon-auth:index:NeonAuth: auth)",
        "[mandatory] neon-auth-own-oauth-apps (neon-auth:index:NeonAuth: auth)",
        "[mandatory] neon-auth-protect-integration (neon-auth:index:NeonAuth: auth)",
      ]);
      expect(refused.out).toContain('NeonAuth "auth" declares no OAuthProvider "google"');

      const program = path.join(e2e.dir, "Pulumi.yaml");
      fs.writeFileSync(program, withFixes(fs.readFileSync(program, "utf8")));
      await e2e.stack.setAllConfig(secretConfig({ googleClientSecret: "google-yaml-policy-6d2e", smtpPassword: "smtp-yaml-policy-0b4f" }));
      const passes = await attempt(e2e, "preview", "--policy-pack", POLICY_PACK);
      expect([passes.code, policyViolations(passes.out)]).toEqual([0, []]);
      expect((await requestLog(em)).filter((r) => r.method !== "GET")).toEqual([]);
    });
  });
});
