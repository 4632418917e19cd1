/**
 * What `npm run gen` writes from the provider plugin's schema (src/plugin/schema.ts, itself from
 * the kinds' declarations): a page per resource under docs/plugin/ with its inputs and outputs as
 * each language names them (TypeScript and YAML, Python, Go and C#), their types, which are
 * required or secret, its id and its import command; and an index. Pure functions of the schema,
 * so that a unit test can tell when the checked-in pages are stale.
 */
import type { PackageSchema, PropertySpec } from "../../src/plugin/schema.ts";

export const PLUGIN_DOCS_DIR = "docs/plugin";

/** A property's name in the Python SDK (Pulumi's generator: snake case). */
export const pythonName = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
/** A property's name in the Go and .NET SDKs (Pulumi's generators: the first letter upper case). */
export const goName = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

const typeName = (token: string) => token.split(":").pop()!;

/** A function's name in the Python SDK (Pulumi's generator: an acronym's last capital starts a word, `get_o_auth_providers`). */
export const pythonFunctionName = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/([A-Z])([A-Z][a-z])/g, "$1_$2").toLowerCase();
/** A function's name in the Go SDK: `get<X>` is `Lookup<X>` where `X` is a resource of the package (Pulumi's Go generator). */
export function goFunctionName(schema: PackageSchema, token: string): string {
  const rest = typeName(token).replace(/^get/, "");
  return `${`${token.slice(0, token.lastIndexOf(":") + 1)}${rest}` in schema.resources ? "Lookup" : "Get"}${rest}`;
}

/** A property's type in words every language shares. */
function typeOf(p: PropertySpec): string {
  if (p.$ref === "pulumi.json#/Any") return "any";
  if (p.$ref) return `[${typeName(p.$ref)}](#${typeName(p.$ref).toLowerCase()})`;
  if (p.type === "array") return `list of ${typeOf(p.items ?? {})}`;
  if (p.type === "object") return `map of ${typeOf(p.additionalProperties ?? {})}`;
  return p.type ?? "any";
}

/** One line of a table cell: no pipes or line breaks. */
const cell = (s: string | undefined) => (s ?? "").replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");

function table(props: Record<string, PropertySpec>, required: readonly string[]): string[] {
  const rows = Object.entries(props).map(
    ([name, p]) =>
      `| \`${name}\` | \`${pythonName(name)}\` | \`${goName(name)}\` | ${typeOf(p)} | ${required.includes(name) ? "yes" : ""} | ${p.secret ? "yes" : ""} | ${cell(p.description)} |`,
  );
  return ["| TypeScript, YAML | Python | Go, C# | Type | Required | Secret | Description |", "| --- | --- | --- | --- | --- | --- | --- |", ...rows];
}

/** The tokens of the object types properties name, at any depth, each once, in the order met. */
export function typeTokens(schema: PackageSchema, props: Record<string, PropertySpec>[]): string[] {
  const seen = new Set<string>();
  const visit = (p: PropertySpec | undefined) => {
    if (!p) return;
    if (p.$ref?.startsWith("#/types/")) {
      const token = p.$ref.slice("#/types/".length);
      if (seen.has(token)) return;
      seen.add(token);
      for (const f of Object.values(schema.types[token]?.properties ?? {})) visit(f);
    }
    visit(p.items);
    visit(p.additionalProperties);
  };
  for (const group of props) for (const p of Object.values(group)) visit(p);
  return [...seen];
}

/** The object types a resource's properties name, each once, with their fields. */
function typesOf(schema: PackageSchema, props: Record<string, PropertySpec>[]): string[] {
  return typeTokens(schema, props).sort().flatMap((token) => {
    const t = schema.types[token]!;
    return ["", `### ${typeName(token)}`, "", ...(t.description ? [t.description, ""] : []), ...table(t.properties, t.required ?? [])];
  });
}

function page(schema: PackageSchema, token: string): string {
  const r = schema.resources[token]!;
  const kind = typeName(token);
  const [what, id] = (r.description ?? "").split(". Id: ");
  const computed = Object.fromEntries(Object.entries(r.properties).filter(([k]) => !(k in r.inputProperties)));
  return [
    `<!-- Written by \`npm run gen\` from the plugin's schema (src/plugin/schema.ts); do not edit. -->`,
    `# ${kind} (\`${token}\`)`,
    "",
    `${what}, on the \`neon-auth\` provider plugin (see the README, "Any language"). A TypeScript program may use the class of the same name instead.`,
    "",
    "## Inputs",
    "",
    ...table(r.inputProperties, r.requiredInputs),
    "",
    "## Outputs",
    "",
    "Every input is an output too. Besides:",
    "",
    ...table(computed, []),
    ...typesOf(schema, [r.inputProperties, r.properties]),
    "",
    "## Id and import",
    "",
    `Id: ${id ?? "the one Neon gives"}`,
    "",
    "```bash",
    `pulumi import ${token} <name> <id>`,
    "```",
    "",
  ].join("\n");
}

/** The functions' page: each function's arguments and result as each language names them. */
function functionsPage(schema: PackageSchema): string {
  const sections = Object.entries(schema.functions).flatMap(([token, f]) => [
    "",
    `## ${typeName(token)} (\`${token}\`)`,
    "",
    f.description,
    "",
    `Direct and output form: TypeScript \`${typeName(token)}\`, \`${typeName(token)}Output\`; Python \`${pythonFunctionName(typeName(token))}\`, \`${pythonFunctionName(typeName(token))}_output\`; Go \`${goFunctionName(schema, token)}\`, \`${goFunctionName(schema, token)}Output\`; YAML \`fn::invoke\` with \`function: ${token}\`.`,
    "",
    "Arguments:",
    "",
    ...table(f.inputs.properties, f.inputs.required ?? []),
    "",
    "Result:",
    "",
    ...table(f.outputs.properties, f.outputs.required ?? []),
    ...typesOf(schema, [f.outputs.properties]).map((l) => l.replace(/^### /, "#### ")),
  ]);
  return [
    `<!-- Written by \`npm run gen\` from the plugin's schema (src/plugin/schema.ts); do not edit. -->`,
    "# The `neon-auth` provider plugin: functions",
    "",
    "Reads of what exists, for a program that does not manage it (the README, \"Functions\"). Each SDK has a direct form and an output form (`…Output` in Node.js and Go, `…_output` in Python); YAML calls them with `fn::invoke`. A TypeScript program may use the functions of the same names that `pulumi-neon-auth` exports instead.",
    ...sections,
    "",
  ].join("\n");
}

/** Every page, by file name in PLUGIN_DOCS_DIR. */
export function renderPluginDocs(schema: PackageSchema): Record<string, string> {
  const tokens = Object.keys(schema.resources);
  const pages = Object.fromEntries(tokens.map((t) => [`${typeName(t)}.md`, page(schema, t)]));
  const index = [
    `<!-- Written by \`npm run gen\` from the plugin's schema (src/plugin/schema.ts); do not edit. -->`,
    "# The `neon-auth` provider plugin: resources",
    "",
    "Each page names every input and output as the SDK of each language spells it. Configuration (`neon-auth:` in the stack):",
    "",
    ...table(schema.config.variables, []),
    "",
    ...tokens.map((t) => `- [${typeName(t)}](${typeName(t)}.md): \`${t}\``),
    "",
    `Functions (${Object.keys(schema.functions).map((t) => `\`${typeName(t)}\``).join(", ")}): [functions.md](functions.md).`,
    "",
  ].join("\n");
  return { "README.md": index, ...pages, "functions.md": functionsPage(schema) };
}
