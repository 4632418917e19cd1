/**
 * Imported secrets: the placeholders a read with nothing recorded writes, what a diff makes of
 * them, and `neon-auth-import --program`, which turns them into reads of the stack's
 * configuration in each language `pulumi import --out` writes.
 */
import { describe, expect, it } from "vitest";
import { diffFields } from "../../src/provider/diff";
import { configLines, languageOf, programWithConfig } from "../../src/import/importProgram";
import { placeholder, placeholderKey, placeholdersIn, placeholdersRecorded, placeholdersTaken, refusePlaceholders } from "../../src/provider/placeholders";
import { webhookUrlProblem } from "../../src/schemas/urls";

const GH = placeholder("githubClientSecret");
const HOOK = placeholder("webhookUrl", true);

describe("placeholders", () => {
  it("name their configuration key, and a URL one passes the webhook URL's rule", () => {
    expect([placeholderKey(GH), placeholderKey(HOOK), placeholderKey("gh-secret"), placeholderKey(`${GH}; x`)]).toEqual(["githubClientSecret", "webhookUrl", undefined, undefined]);
    expect(webhookUrlProblem(HOOK)).toBeUndefined();
    expect(placeholdersIn({ clientSecret: GH, webhooks: { enabled: true, webhookUrl: HOOK }, port: 587 })).toEqual([
      { path: "clientSecret", key: "githubClientSecret" },
      { path: "webhooks.webhookUrl", key: "webhookUrl" },
    ]);
  });

  it("stand for the program's value until the program has given one, then for that", () => {
    const olds = { clientId: "gh", clientSecret: GH };
    // Just imported: the stack never knew the secret, so the program's is Neon's.
    expect(placeholdersTaken(olds, { clientId: "gh", clientSecret: "s1" }, { clientSecret: GH })).toEqual({ clientId: "gh", clientSecret: "s1" });
    // After an up recorded the program's (its outputs kept the placeholder): a new one is a change.
    expect(placeholdersTaken(olds, { clientSecret: "s2" }, { clientSecret: "s1" })).toEqual({ clientId: "gh", clientSecret: "s1" });
    expect(diffFields(olds, { clientId: "gh", clientSecret: "s1" }, [{ name: "clientId" }, { name: "clientSecret" }]).changes).toBe(false);
    // A refresh's diff: the recorded inputs (as new) still hold the placeholder, Neon's answer the URL.
    expect(diffFields({ webhooks: { enabled: true, webhookUrl: "https://h.example.com/t" } }, { webhooks: { enabled: true, webhookUrl: HOOK } }, [{ name: "webhooks" }]).changes).toBe(false);
    expect(diffFields({ webhooks: { enabled: true, webhookUrl: HOOK } }, { webhooks: { enabled: false, webhookUrl: "https://h.example.com" } }, [{ name: "webhooks" }]).detailedDiff).toEqual({
      "webhooks.enabled": "update",
    });
  });
  it("are never sent: a create or update carrying one names the config line", () => {
    expect(() => refusePlaceholders("NeonAuth", { webhooks: { enabled: true, webhookUrl: HOOK } })).toThrow(
      "NeonAuth webhooks.webhookUrl is still the placeholder neon-auth-import wrote: run `neon-auth-import --program <file>` on the written program and `pulumi config set --secret webhookUrl <value>`",
    );
    expect(() => refusePlaceholders("OAuthProvider", { clientSecret: "s1" })).not.toThrow();
  });

  it("stay in a refresh's inputs until the program gives the value, which then stays", () => {
    // Just imported: Neon's webhook URL is no program's, the recorded placeholder stays.
    expect(placeholdersRecorded({ webhooks: { enabled: true, webhookUrl: "https://h.example.com/t" } }, { webhooks: { enabled: true, webhookUrl: HOOK } })).toEqual({
      webhooks: { enabled: true, webhookUrl: HOOK },
    });
    // After an up: the program's secret, where the read has only the placeholder from the outputs.
    expect(placeholdersRecorded({ clientId: "gh2", clientSecret: GH }, { clientId: "gh", clientSecret: "s1" })).toEqual({ clientId: "gh2", clientSecret: "s1" });
    // A URL removed at Neon is gone from the inputs too.
    expect(placeholdersRecorded({ webhooks: { enabled: false } }, { webhooks: { enabled: true, webhookUrl: HOOK } })).toEqual({ webhooks: { enabled: false } });
  });
});

describe("neon-auth-import --program", () => {
  it("reads each secret from configuration in TypeScript", () => {
    const ts = [
      'import * as pulumi from "@pulumi/pulumi";',
      'import * as neon_auth from "@pulumi-neon-auth/plugin-sdk";',
      "",
      'const github = new neon_auth.OAuthProvider("github", {',
      '    clientId: "gh-client",',
      `    clientSecret: pulumi.secret("${GH}"),`,
      "});",
      `const auth = new neon_auth.NeonAuth("auth", { webhooks: { webhookUrl: "${HOOK}" } });`,
      "",
    ].join("\n");
    const { code, keys } = programWithConfig(ts, "typescript");
    expect(keys).toEqual(["githubClientSecret", "webhookUrl"]);
    expect(code).toContain('clientSecret: config.requireSecret("githubClientSecret"),');
    expect(code).toContain('webhookUrl: config.requireSecret("webhookUrl")');
    expect(code).toContain('import * as neon_auth from "@pulumi-neon-auth/plugin-sdk";\n\n// The secrets');
    expect(code).toContain("const config = new pulumi.Config();\n");
    expect(code).not.toContain("neon-auth-import");
  });

  it("reads each secret from configuration in Go, importing the config package once", () => {
    const go = [
      "package main",
      "",
      "import (",
      '\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi"',
      ")",
      "",
      `\t\tClientSecret: pulumi.ToSecret("${GH}").(pulumi.StringOutput),`,
      `\t\t\tWebhookUrl: pulumi.String("${HOOK}"),`,
      "",
    ].join("\n");
    const { code } = programWithConfig(go, "go");
    expect(code).toContain('\t\tClientSecret: config.RequireSecret(ctx, "githubClientSecret"),');
    expect(code).toContain('\t\t\tWebhookUrl: config.RequireSecret(ctx, "webhookUrl"),');
    expect(code.match(/go\/pulumi\/config"/g)).toHaveLength(1);
    expect(programWithConfig(code, "go").code).toBe(code);
  });

  it("reads each secret from a secret config variable in YAML", () => {
    const yaml = ["resources:", "  github:", "    type: neon-auth:OAuthProvider", "    properties:", "      clientSecret:", `        fn::secret: ${GH}`, `      webhookUrl: ${HOOK}`, ""].join("\n");
    const { code } = programWithConfig(yaml, "yaml");
    expect(code).toBe(
      [
        "config:",
        "  githubClientSecret:",
        "    type: string",
        "    secret: true",
        "  webhookUrl:",
        "    type: string",
        "    secret: true",
        "resources:",
        "  github:",
        "    type: neon-auth:OAuthProvider",
        "    properties:",
        "      clientSecret: ${githubClientSecret}",
        "      webhookUrl: ${webhookUrl}",
        "",
      ].join("\n"),
    );
  });

  it("prints what to set, never a value; knows the language by the file's extension", () => {
    expect(configLines(["microsoftClientSecret", "smtpPassword", "webhookUrl"])).toEqual([
      "pulumi config set --secret microsoftClientSecret '<client secret of the microsoft OAuth app>'",
      "pulumi config set --secret smtpPassword '<password of the SMTP server>'",
      "pulumi config set --secret webhookUrl '<URL of the webhook endpoint, as the Neon console shows it>'",
    ]);
    expect(["a.ts", "main.go", "Main.yaml"].map(languageOf)).toEqual(["typescript", "go", "yaml"]);
    expect(() => languageOf("Program.cs")).toThrow("Program.cs: a program in TypeScript (.ts), Go (.go) or YAML (.yaml) was expected");
    expect(programWithConfig("resources: {}\n", "yaml")).toEqual({ code: "resources: {}\n", keys: [] });
  });
});
