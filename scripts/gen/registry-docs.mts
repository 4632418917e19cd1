/**
 * What `npm run gen` writes for the Pulumi Registry: docs/_index.md (the package's overview page)
 * and docs/installation-configuration.md, with the front matter the Registry reads (`title`,
 * `meta_desc`, `layout`). Their facts come from the same places as the reference: the kinds from
 * their declarations, the configuration from the plugin schema's `config.variables`, the version
 * from package.json. Pure functions, so that a unit test can tell when the checked-in pages are stale.
 */
import type { KindDeclaration } from "../../src/provider/declaration.ts";
import type { PackageSchema } from "../../src/plugin/schema.ts";

export const REGISTRY_DOCS_DIR = "docs";
export const REGISTRY_DOCS = ["_index.md", "installation-configuration.md"] as const;

const REPO = "https://github.com/pulumi-neon-auth/pulumi-neon-auth";

const frontMatter = (title: string, metaDesc: string) => ["---", `title: ${title}`, `meta_desc: ${metaDesc}`, "layout: package", "---", ""];

/** Where a kind lives, in words: an integration of one generation, or inside one or both. */
function whereOf(d: Pick<KindDeclaration, "kind" | "parent" | "parentUnless" | "livesOn">): string {
  if (d.livesOn !== undefined) return d.livesOn;
  const generation = (g: string) => (g === "NeonAuth" ? "a branch's `NeonAuth`" : "a project's `AuthIntegration`");
  if (d.parent === undefined) return d.kind === "NeonAuth" ? "a branch (branch-scoped API, Better Auth)" : "a project (project-level API, Stack Auth)";
  if (d.parent === "either") return "either integration";
  if (d.parentUnless !== undefined) return `${generation(d.parent)}, or a branch`;
  return `${generation(d.parent)} only`;
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");

function overview(schema: PackageSchema, decls: readonly Pick<KindDeclaration, "kind" | "parent" | "parentUnless" | "livesOn" | "id" | "importable">[]): string {
  const rows = decls.map(
    (d) =>
      `| \`${d.kind}\` | ${whereOf(d)} | ${cell(d.id)} | ${d.importable === true ? "yes" : `no: ${cell(d.importable)}`} |`,
  );
  return [
    ...frontMatter("Neon Auth", "Manage Neon Auth (integrations, settings, users, OAuth providers and clients, trusted domains, email) with Pulumi."),
    `The ${schema.displayName} package manages [Neon Auth](https://neon.com/docs/auth/overview) over Neon's REST API v2,`,
    "in both of its API generations: Neon Auth on a branch (`NeonAuth`, today's API, built on Better",
    "Auth) and the older project-level integration (`AuthIntegration`). TypeScript and JavaScript",
    "programs use the package's classes; YAML, Go, Python and .NET programs use its provider plugin,",
    "`neon-auth`, with the same checks and requests.",
    "",
    "## Resources",
    "",
    "| resource | lives on | id | importable |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
    "Type tokens: `neon-auth:index:<Kind>` on the plugin, `pulumi-nodejs:dynamic/neon-auth:<Kind>` for",
    "the TypeScript classes.",
    "",
    "## Functions",
    "",
    "Reads of what exists, without managing it (GET requests only; they run at preview too). The plugin's",
    "token is `neon-auth:index:<function>`; the npm package exports the same functions for TypeScript.",
    "",
    "| function | what it reads |",
    "| --- | --- |",
    ...Object.entries(schema.functions).map(([token, f]) => `| \`${token.split(":").pop()}\` | ${cell(f.description)} |`),
    "",
    "## Example",
    "",
    "```typescript",
    'import { NeonAuth, RedirectDomain } from "pulumi-neon-auth";',
    "",
    'const auth = new NeonAuth("auth", { projectId: "p-123", branchId: "br-main-123", appName: "Acme" });',
    'new RedirectDomain("app", { integration: auth, domain: "https://app.example.com" });',
    "",
    "export const jwksUrl = auth.jwksUrl;",
    "```",
    "",
    "```yaml",
    "resources:",
    "  auth:",
    "    type: neon-auth:index:NeonAuth",
    "    properties: { projectId: p-123, branchId: br-main-123, appName: Acme }",
    "  app:",
    "    type: neon-auth:index:RedirectDomain",
    "    properties: { integration: ${auth.ref}, domain: https://app.example.com }",
    "outputs:",
    "  jwksUrl: ${auth.jwksUrl}",
    "```",
    "",
    "The [installation and configuration](installation-configuration) page says how to install and set",
    `the API key; the [README](${REPO}#readme) has a quick start and recipes. Each resource has its page`,
    `(${decls.map((d) => `[${d.kind}](${REPO}/blob/main/docs/${d.kind}.md)`).join(", ")}),`,
    `and so do [the plugin for other languages](${REPO}/blob/main/docs/any-language.md), [the policy pack](${REPO}/blob/main/docs/policy.md) and`,
    `[troubleshooting](${REPO}/blob/main/docs/troubleshooting.md).`,
    "",
  ].join("\n");
}

function installation(schema: PackageSchema, version: string): string {
  const vars = schema.config.variables;
  const rows = Object.entries(vars).map(
    ([name, p]) => `| \`${schema.name}:${name}\` | ${p.type ?? "string"} | ${p.secret ? "yes" : ""} | ${cell(p.description ?? "")} |`,
  );
  const go = (schema.language as { go?: { importBasePath?: string } } | undefined)?.go?.importBasePath;
  const python = (schema.language as { python?: { packageName?: string } } | undefined)?.python?.packageName;
  return [
    ...frontMatter("Neon Auth Installation & Configuration", "How to install the Neon Auth package for Pulumi and set its API key and other options."),
    "## Installation",
    "",
    `Version ${version}.`,
    "",
    "* TypeScript and JavaScript: the npm package [`pulumi-neon-auth`](https://www.npmjs.com/package/pulumi-neon-auth)",
    "  (`npm install pulumi-neon-auth @pulumi/pulumi`; Node.js 22.19 or newer).",
    `* YAML, Go, Python and .NET: the provider plugin \`${schema.name}\`, from the release archives`,
    `  (\`pulumi plugin install resource ${schema.name} ${version} --file pulumi-resource-${schema.name}-v${version}-<os>-<arch>.tar.gz\`),`,
    "  with the SDK of your language generated from its schema" +
      [go ? ` (Go: \`${go}\`` : "", python ? `${go ? "; " : " ("}Python: \`${python}\`` : "", go || python ? ")" : ""].join("") +
      ".",
    "",
    "## Credentials",
    "",
    "Create an API key in the Neon console (account or organization settings, API keys) and give it",
    "to the stack as a secret (or in the environment variable the table below names):",
    "",
    "```bash",
    `pulumi config set --secret ${schema.name}:apiKey <your Neon API key>`,
    "```",
    "",
    "The key is never a resource input or output, and never shown in errors.",
    "",
    "## Configuration options",
    "",
    `Use \`pulumi config set ${schema.name}:<option>\` (with \`--secret\` for the key).`,
    "",
    "| option | type | secret | description |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
    `Local testing needs no Neon account: \`npx neon-auth-emulator\` (in the npm package) serves the same`,
    `API on your machine; point \`${schema.name}:apiUrl\` at the URL it prints.`,
    "",
  ].join("\n");
}

export function renderRegistryDocs(
  schema: PackageSchema,
  decls: readonly Pick<KindDeclaration, "kind" | "parent" | "parentUnless" | "livesOn" | "id" | "importable">[],
  version: string,
): Record<(typeof REGISTRY_DOCS)[number], string> {
  return { "_index.md": overview(schema, decls), "installation-configuration.md": installation(schema, version) };
}
