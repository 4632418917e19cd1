/**
 * The policy pack around its rules: which stacks are production (config names, patterns, the
 * stack tag), advisories everywhere else (held through @pulumi/policy's own analyze call, since
 * its types do not promise the per-violation level), no secret in any violation, values unknown
 * at preview, and the type tokens of both faces kept in step with the registry and the plugin.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { describe, expect, it } from "vitest";
import { neonAuthPolicies } from "../../src/policy/pack";
import { environmentOf } from "../../src/policy/environment";
import { DYNAMIC_TOKEN_PREFIX, KINDS, PLUGIN_TOKEN_PREFIX } from "../../src/policy/subjects";
import { tokenOf as pluginToken } from "../../src/plugin/schema";
import { DECLARATIONS } from "../../src/kinds";
import { MODULE } from "../../src/resources/registration";
import { secretOutputsOf } from "../../src/provider/declaration";
import { secretKeys } from "../../src/schemas/fields";
import { analyze, FACES, urnOf, type Declared } from "./policy-fixture";

const repo = path.resolve(__dirname, "../..");

/** A NeonAuth on a preview branch as the dev stacks of the examples declare it: many advisories. */
const devStack = (): Declared[] => [
  { kind: "NeonAuth", name: "auth", props: { projectId: "p-shop", branchId: "br-dev", allowLocalhost: true } },
  { kind: "OAuthProvider", name: "google", in: "auth", props: { providerId: "google" } },
];
const EXPECTED_RULES = ["neon-auth-app-name", "neon-auth-email-verification", "neon-auth-no-localhost", "neon-auth-own-email-server", "neon-auth-own-oauth-apps", "neon-auth-protect-integration", "neon-auth-trusted-domain"];

describe("which stacks are production", () => {
  const tags = (t: Record<string, string> = {}) => new Map(Object.entries(t));
  const urn = (stack: string) => `urn:pulumi:${stack}::shop::neon-auth:index:NeonAuth::auth`;

  it("a stack the config names, by name or pattern, or one with the production tag", () => {
    expect(environmentOf(urn("prod"), tags(), { productionStacks: ["prod"] })).toEqual({ stack: "prod", production: true, because: "neon-auth-production-stacks names it (prod)" });
    expect(environmentOf(urn("prod-eu.1"), tags(), { productionStacks: ["staging", "prod-*"] })).toEqual({ stack: "prod-eu.1", production: true, because: "neon-auth-production-stacks names it (prod-*)" });
    expect(environmentOf(urn("production"), tags(), { productionStacks: ["prod"] })).toEqual({ stack: "production", production: false });
    expect(environmentOf(urn("pr-12"), tags({ "neon-auth:environment": "production" }), {})).toEqual({ stack: "pr-12", production: true, because: "its stack tag neon-auth:environment=production" });
    expect(environmentOf(urn("pr-12"), tags({ "neon-auth:environment": "preview" }), {})).toEqual({ stack: "pr-12", production: false });
    expect(environmentOf(urn("live"), tags({ tier: "prod" }), { productionStackTag: "tier=prod" })).toEqual({ stack: "live", production: true, because: "its stack tag tier=prod" });
    expect(environmentOf(urn("live"), tags({ "neon-auth:environment": "production" }), { productionStackTag: "tier=prod" })).toEqual({ stack: "live", production: false });
  });

  it("names, tag names and tag values match regardless of case", () => {
    expect(environmentOf(urn("Prod"), tags(), { productionStacks: ["prod"] })).toEqual({ stack: "Prod", production: true, because: "neon-auth-production-stacks names it (prod)" });
    expect(environmentOf(urn("PROD-EU"), tags(), { productionStacks: ["prod-*"] })).toEqual({ stack: "PROD-EU", production: true, because: "neon-auth-production-stacks names it (prod-*)" });
    expect(environmentOf(urn("pr-12"), tags({ "neon-auth:environment": "Production" }), {})).toEqual({ stack: "pr-12", production: true, because: "its stack tag neon-auth:environment=production" });
    expect(environmentOf(urn("live"), tags({ Tier: "PROD" }), { productionStackTag: "tier=prod" })).toEqual({ stack: "live", production: true, because: "its stack tag tier=prod" });
    expect(environmentOf(urn("Prodigy"), tags({ "neon-auth:environment": "Productions" }), { productionStacks: ["prod"] })).toEqual({ stack: "Prodigy", production: false });
  });

  it.each(FACES)("on any other stack every violation is advisory, and says why (%s)", (face) => {
    const dev = analyze(devStack(), { face, stack: "dev" });
    expect([...dev.keys()].sort()).toEqual(EXPECTED_RULES);
    for (const reported of dev.values()) {
      for (const v of reported) {
        expect(v.enforcementLevel).toBe("advisory");
        expect(v.message.endsWith('\n(advisory: stack "dev" is not a production stack)')).toBe(true);
      }
    }
    const tagged = analyze(devStack(), { face, stack: "dev", tags: { "neon-auth:environment": "production" } });
    expect([...tagged.keys()].sort()).toEqual(EXPECTED_RULES);
    for (const reported of tagged.values()) for (const v of reported) expect(v.enforcementLevel).toBeUndefined();
    expect(tagged.get("neon-auth-no-localhost")).toEqual([
      { message: `NeonAuth "auth" sets allowLocalhost to true: any page on a user's machine can start sign-in (Neon's Auth production checklist, item 6 "Disable localhost access"). Set allowLocalhost: false.` },
    ]);
  });

  it("@pulumi/policy's own analyze call sends a non-production violation as advisory, though the rule is mandatory", async () => {
    // Neither module has type declarations: the server's internals and the generated protobuf code.
    const { makeAnalyzeRpcFun } = require("@pulumi/policy/server") as { makeAnalyzeRpcFun: (...a: unknown[]) => (call: unknown, cb: (err: unknown, res: any) => void) => Promise<void> };
    const analyzer = require("@pulumi/pulumi/proto/analyzer_pb");
    const req = new analyzer.AnalyzeRequest();
    req.setType("neon-auth:index:NeonAuth");
    req.setUrn("urn:pulumi:dev::shop::neon-auth:index:NeonAuth::auth");
    req.setName("auth");
    req.setProperties(Struct.fromJavaScript({ projectId: "p-shop", branchId: "br-dev", appName: "Shop", allowLocalhost: false, emailAndPassword: { requireEmailVerification: true } }));
    req.setOptions(new analyzer.AnalyzerResourceOptions());
    const policies = neonAuthPolicies();
    const levels = ["advisory", "mandatory", "remediate", "disabled"];
    const diagnostics = await new Promise<{ policy: string; level: string; message: string }[]>((resolve, reject) => {
      void makeAnalyzeRpcFun("neon-auth", "0.0.0", "advisory", policies)({ request: req }, (err, res) =>
        err ? reject(err) : resolve(res.getDiagnosticsList().map((d: any) => ({ policy: d.getPolicyname(), level: levels[d.getEnforcementlevel()]!, message: d.getMessage() }))),
      );
    });
    expect(diagnostics).toEqual([
      {
        policy: "neon-auth-protect-integration",
        level: "advisory",
        message: 'NeonAuth "auth" is not protected: a destroy, or a change that replaces it, disables Neon Auth there and deletes everything declared in it at Neon. Pass protect: true.\n(advisory: stack "dev" is not a production stack)',
      },
    ]);
  });
});

describe("violations never carry a secret", () => {
  /** Every field a kind keeps secret, set to a value no message may show. */
  function withSecrets(r: Declared): Declared {
    const decl = DECLARATIONS[r.kind];
    const props = { ...r.props };
    for (const field of [...secretKeys(decl.schema), ...secretOutputsOf(decl)]) {
      props[field] = field === "webhooks" ? { enabled: true, webhookUrl: `http://hooks.example.com/t/SECRET-${r.name}-${field}` } : `SECRET-${r.name}-${field}`;
    }
    return { ...r, props };
  }

  it.each(FACES)("in any message, on production and other stacks (%s)", (face) => {
    const stack = ([
      ...devStack(),
      { kind: "EmailServer", name: "smtp", in: "auth", props: { type: "shared" } },
      { kind: "OAuthProvider", name: "github", in: "auth", props: { providerId: "github" } },
      { kind: "OAuthClient", name: "cli", in: "auth", props: { name: "CLI", type: "public", skipConsent: true } },
      { kind: "AuthIntegration", name: "legacy", props: { projectId: "p-old" } },
      { kind: "EmailServer", name: "legacy-smtp", in: "legacy", props: { type: "standard", host: "smtp.example.com", port: 25, username: "u", senderEmail: "a@example.com", senderName: "A" } },
    ] satisfies Declared[]).map(withSecrets);
    const secrets = stack.flatMap((r) => JSON.stringify(r.props).match(/SECRET-[\w-]+/g) ?? []);
    expect(secrets.length).toBe(9);
    for (const stackName of ["prod", "dev"]) {
      const messages = [...analyze(stack, { face, stack: stackName }).values()].flat().map((v) => v.message);
      // The stack breaks rules whose messages name the secret fields: the check is not vacuous.
      expect(messages.length).toBe(12);
      expect(messages.some((m) => m.includes("webhooks.webhookUrl"))).toBe(true);
      for (const m of messages) for (const s of secrets) expect(m).not.toContain(s);
    }
  });
});

describe("values the engine does not know at preview", () => {
  it("are not held against a rule, and break none", () => {
    const proxy = require("@pulumi/policy/proxy") as { unknownCheckingProxy: (p: object) => Record<string, unknown>; unknownBooleanValue: unknown; unknownStringValue: unknown; unknownObjectValue: unknown };
    const stack: Declared[] = [
      { kind: "NeonAuth", name: "auth", protect: true, props: proxy.unknownCheckingProxy({ appName: proxy.unknownStringValue, allowLocalhost: proxy.unknownBooleanValue, emailAndPassword: proxy.unknownObjectValue, webhooks: proxy.unknownObjectValue }) },
      { kind: "RedirectDomain", name: "app", in: "auth", props: proxy.unknownCheckingProxy({ domain: proxy.unknownStringValue }) },
      { kind: "OAuthProvider", name: "google", in: "auth", props: proxy.unknownCheckingProxy({ providerId: "google", clientId: proxy.unknownStringValue }) },
      { kind: "EmailServer", name: "smtp", in: "auth", props: proxy.unknownCheckingProxy({ type: proxy.unknownStringValue }) },
    ];
    expect(Object.fromEntries(analyze(stack, { face: "plugin" }))).toEqual({});
  });
});

describe("the pack's type tokens and folder", () => {
  it("names every kind of the registry, with the classes' and the plugin's tokens", () => {
    expect([...KINDS].sort()).toEqual(Object.keys(DECLARATIONS).sort());
    expect(DYNAMIC_TOKEN_PREFIX).toBe(`pulumi-nodejs:dynamic/${MODULE}:`);
    for (const kind of KINDS) expect(pluginToken(kind)).toBe(`${PLUGIN_TOKEN_PREFIX}${kind}`);
    expect(urnOf("classes", "NeonAuth", "auth")).toBe("urn:pulumi:prod::shop::pulumi-nodejs:dynamic/neon-auth:NeonAuth::auth");
  });

  it("is a Node.js policy pack that loads the built rules", () => {
    expect(fs.readFileSync(path.join(repo, "policy/PulumiPolicy.yaml"), "utf8")).toMatch(/^runtime: nodejs\n/);
    expect(JSON.parse(fs.readFileSync(path.join(repo, "policy/package.json"), "utf8")).main).toBe("index.js");
    expect(fs.readFileSync(path.join(repo, "policy/index.js"), "utf8")).toContain('require("../dist/policy/serve.js")');
    expect(neonAuthPolicies().map((p) => p.name)[0]).toBe("neon-auth-production-stacks");
  });
});
