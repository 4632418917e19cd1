/**
 * Each kind's example in four languages, from one source: `docs/examples/<Kind>.yaml`, a Pulumi
 * YAML program on the provider plugin. `npm run gen` renders it as a TypeScript program of the
 * classes, a Go and a Python program of the plugin's SDKs, and writes the four into the kind's page
 * (docs/<Kind>.md, "Example"). What each property's type is comes from the plugin's schema, so the
 * renderings follow the declarations. The e2e tests merge every example into one program per
 * language with `mergeExamples` and run it (test/e2e/examples-*.test.ts). Pure functions.
 */
import { parse, stringify } from "yaml";
import type { PackageSchema, PropertySpec } from "../../src/plugin/schema.ts";
import { goName, pythonName } from "./plugin-docs.mts";

export const EXAMPLES_DIR = "docs/examples";
export const exampleSource = (kind: string) => `${EXAMPLES_DIR}/${kind}.yaml`;
export const exampleMarkers = (kind: string) => [`<!-- gen:example:${kind} -->`, `<!-- /gen:example:${kind} -->`] as const;
/** The Go SDK's import path and the Python SDK's module (the schema's language settings). */
export const GO_SDK = "github.com/pulumi-neon-auth/pulumi-neon-auth/sdk/go/neonauth";
export const PYTHON_SDK = "pulumi_neon_auth";

/** A Pulumi YAML program: the parts an example uses. */
export interface Program {
  name: string;
  runtime: "yaml";
  description?: string;
  config?: Record<string, { type: "string"; secret?: boolean }>;
  resources: Record<string, { type: string; properties: Record<string, unknown> }>;
  outputs?: Record<string, string>;
}

/** What a string of the program means: a literal, a config value, or a resource's output (`ref`: the integration). */
type Ref = { config: string } | { resource: string; property: string };

/** `${name}` or `${resource.property}`; anything else with `${` is not an example's (one source, four renderings). */
function refOf(value: string): Ref | undefined {
  if (!value.includes("${")) return undefined;
  const m = /^\$\{([A-Za-z][A-Za-z0-9]*)(?:\.([A-Za-z][A-Za-z0-9]*))?\}$/.exec(value);
  if (m === null) throw new Error(`examples: ${value}: only \${config} and \${resource.output} stand alone in an example`);
  return m[2] === undefined ? { config: m[1]! } : { resource: m[1]!, property: m[2] };
}

export function parseExample(text: string): Program {
  const p = parse(text) as Program;
  if (p.runtime !== "yaml" || typeof p.resources !== "object") throw new Error(`examples: ${p.name}: not a Pulumi YAML program`);
  return p;
}

const kindOf = (token: string) => token.split(":").pop()!;
const isSecret = (p: Program, name: string) => p.config?.[name]?.secret === true;
/** The resources other resources or the outputs name: those a Go program keeps in a variable. */
function referenced(p: Program): Set<string> {
  const names = new Set<string>();
  const visit = (v: unknown): void => {
    if (typeof v === "string") {
      const r = refOf(v);
      if (r && "resource" in r) names.add(r.resource);
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object") Object.values(v).forEach(visit);
  };
  Object.values(p.resources).forEach((r) => visit(r.properties));
  Object.values(p.outputs ?? {}).forEach(visit);
  return names;
}

/** How one language spells values, config reads and resources. */
interface Language {
  /** A value of `spec`'s type; `indent` the indentation of the line it starts on. */
  value(v: unknown, spec: PropertySpec, schema: PackageSchema, indent: string): string;
}

const INDENT = "  ";
const TAB = "\t";

function typeSpec(schema: PackageSchema, spec: PropertySpec): Record<string, PropertySpec> {
  const token = spec.$ref!.slice("#/types/".length);
  const t = schema.types[token];
  if (t === undefined) throw new Error(`examples: no type ${token} in the schema`);
  return t.properties;
}

function fieldSpec(props: Record<string, PropertySpec>, name: string, where: string): PropertySpec {
  const spec = props[name];
  if (spec === undefined) throw new Error(`examples: ${where} has no input ${name}`);
  return spec;
}

// TypeScript: the classes of pulumi-neon-auth, which take the integration resource itself.
const typescript: Language = {
  value(v, spec, schema, indent) {
    if (typeof v === "string") {
      const r = refOf(v);
      if (r === undefined) return JSON.stringify(v);
      if ("config" in r) return r.config;
      return r.property === "ref" ? r.resource : `${r.resource}.${r.property}`;
    }
    if (Array.isArray(v)) return `[${v.map((x) => typescript.value(x, spec.items ?? {}, schema, indent)).join(", ")}]`;
    if (v !== null && typeof v === "object") {
      const props = typeSpec(schema, spec);
      const inner = indent + INDENT;
      const fields = Object.entries(v).map(([k, x]) => `${inner}${k}: ${typescript.value(x, fieldSpec(props, k, spec.$ref!), schema, inner)},`);
      return `{\n${fields.join("\n")}\n${indent}}`;
    }
    return JSON.stringify(v);
  },
};

export function renderTypeScript(p: Program, schema: PackageSchema): string {
  const used = referenced(p);
  const kinds = [...new Set(Object.values(p.resources).map((r) => kindOf(r.type)))].sort();
  const config = Object.keys(p.config ?? {});
  const lines = [
    ...(p.description ? [`// ${p.description}`] : []),
    ...(config.length > 0 ? [`import * as pulumi from "@pulumi/pulumi";`] : []),
    `import { ${kinds.join(", ")} } from "pulumi-neon-auth";`,
    "",
    ...(config.length > 0 ? ["const config = new pulumi.Config();"] : []),
    ...config.map((c) => `const ${c} = config.${isSecret(p, c) ? "requireSecret" : "require"}("${c}");`),
    ...(config.length > 0 ? [""] : []),
  ];
  for (const [name, r] of Object.entries(p.resources)) {
    const inputs = schema.resources[r.type]!.inputProperties;
    const fields = Object.entries(r.properties).map(([k, v]) => {
      const value = typescript.value(v, fieldSpec(inputs, k, r.type), schema, INDENT);
      return value === k ? `${INDENT}${k},` : `${INDENT}${k}: ${value},`;
    });
    lines.push(`${used.has(name) ? `const ${name} = ` : ""}new ${kindOf(r.type)}("${name}", {`, ...fields, "});");
  }
  const outputs = Object.entries(p.outputs ?? {});
  if (outputs.length > 0) lines.push("", ...outputs.map(([k, v]) => `export const ${k} = ${typescript.value(v, {}, schema, "")};`));
  return `${lines.join("\n")}\n`;
}

/** A Go expression of a resource output: the id is a method, every other output a field. */
const goOutput = (r: { resource: string; property: string }) => `${r.resource}.${r.property === "id" ? "ID()" : goName(r.property)}`;

/**
 * Go fields `Key: value,` at `indent`, the values of consecutive one-line fields aligned as gofmt
 * aligns them (a field of several lines ends a run).
 */
function goFields(fields: readonly [string, string][], indent: string): string[] {
  const out: string[] = [];
  let run: [string, string][] = [];
  const flush = () => {
    const width = Math.max(0, ...run.map(([k]) => k.length));
    for (const [k, v] of run) out.push(`${indent}${`${k}:`.padEnd(width + 2)}${v},`);
    run = [];
  };
  for (const [k, v] of fields) {
    if (v.includes("\n")) {
      flush();
      out.push(`${indent}${k}: ${v},`);
    } else run.push([k, v]);
  }
  flush();
  return out;
}

// Go: the plugin's Go SDK. Each literal is wrapped in the pulumi.Input of its type.
function goLanguage(p: Program): Language {
  const scalar: Record<string, string> = { string: "String", integer: "Int", number: "Float64", boolean: "Bool" };
  const lang: Language = {
    value(v, spec, schema, indent) {
      if (typeof v === "string") {
        const r = refOf(v);
        if (r === undefined) return `pulumi.String(${JSON.stringify(v)})`;
        if ("config" in r) return isSecret(p, r.config) ? r.config : `pulumi.String(${r.config})`;
        return goOutput(r);
      }
      if (Array.isArray(v)) return `pulumi.${scalar[spec.items?.type ?? "string"]}Array{${v.map((x) => lang.value(x, spec.items ?? {}, schema, indent)).join(", ")}}`;
      if (v !== null && typeof v === "object") {
        const props = typeSpec(schema, spec);
        const inner = indent + TAB;
        const fields = goFields(Object.entries(v).map(([k, x]) => [goName(k), lang.value(x, fieldSpec(props, k, spec.$ref!), schema, inner)]), inner);
        return `&neonauth.${kindOf(spec.$ref!)}Args{\n${fields.join("\n")}\n${indent}}`;
      }
      return `pulumi.${scalar[spec.type ?? "string"]}(${JSON.stringify(v)})`;
    },
  };
  return lang;
}

export function renderGo(p: Program, schema: PackageSchema): string {
  const go = goLanguage(p);
  const used = referenced(p);
  const config = Object.keys(p.config ?? {});
  const body: string[] = [];
  if (config.length > 0) body.push(`c := config.New(ctx, "")`, ...config.map((c) => `${c} := c.${isSecret(p, c) ? "RequireSecret" : "Require"}("${c}")`));
  for (const [name, r] of Object.entries(p.resources)) {
    const inputs = schema.resources[r.type]!.inputProperties;
    const fields = goFields(Object.entries(r.properties).map(([k, v]) => [goName(k), go.value(v, fieldSpec(inputs, k, r.type), schema, TAB)]), TAB);
    const call = [`neonauth.New${kindOf(r.type)}(ctx, "${name}", &neonauth.${kindOf(r.type)}Args{`, ...fields, "})"].join("\n");
    if (used.has(name)) body.push(`${name}, err := ${call}`, "if err != nil {", `${TAB}return err`, "}");
    else body.push(`if _, err := ${call}; err != nil {`, `${TAB}return err`, "}");
  }
  for (const [k, v] of Object.entries(p.outputs ?? {})) body.push(`ctx.Export("${k}", ${go.value(v, {}, schema, "")})`);
  body.push("return nil");
  const indented = body.join("\n").replace(/^(?=.)/gm, TAB + TAB);
  return [
    ...(p.description ? [`// ${p.description}`] : []),
    "package main",
    "",
    "import (",
    `${TAB}"${GO_SDK}"`,
    `${TAB}"github.com/pulumi/pulumi/sdk/v3/go/pulumi"`,
    ...(config.length > 0 ? [`${TAB}"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"`] : []),
    ")",
    "",
    "func main() {",
    `${TAB}pulumi.Run(func(ctx *pulumi.Context) error {`,
    indented,
    `${TAB}})`,
    "}",
    "",
  ].join("\n");
}

/** A Python literal of a JSON scalar. */
const pyScalar = (v: unknown) => (v === true ? "True" : v === false ? "False" : v === null ? "None" : JSON.stringify(v));

// Python: the plugin's Python SDK, keyword arguments in snake case, nested inputs as its Args classes.
const python: Language = {
  value(v, spec, schema, indent) {
    if (typeof v === "string") {
      const r = refOf(v);
      if (r === undefined) return JSON.stringify(v);
      if ("config" in r) return pythonName(r.config);
      return `${r.resource}.${pythonName(r.property)}`;
    }
    if (Array.isArray(v)) return `[${v.map((x) => python.value(x, spec.items ?? {}, schema, indent)).join(", ")}]`;
    if (v !== null && typeof v === "object") {
      const props = typeSpec(schema, spec);
      const inner = indent + INDENT + INDENT;
      const fields = Object.entries(v).map(([k, x]) => `${inner}${pythonName(k)}=${python.value(x, fieldSpec(props, k, spec.$ref!), schema, inner)},`);
      return `neon_auth.${kindOf(spec.$ref!)}Args(\n${fields.join("\n")}\n${indent})`;
    }
    return pyScalar(v);
  },
};

export function renderPython(p: Program, schema: PackageSchema): string {
  const used = referenced(p);
  const config = Object.keys(p.config ?? {});
  const lines = [
    ...(p.description ? [`# ${p.description}`] : []),
    "import pulumi",
    `import ${PYTHON_SDK} as neon_auth`,
    "",
    ...(config.length > 0 ? ["config = pulumi.Config()"] : []),
    ...config.map((c) => `${pythonName(c)} = config.${isSecret(p, c) ? "require_secret" : "require"}("${c}")`),
    ...(config.length > 0 ? [""] : []),
  ];
  const pad = INDENT + INDENT;
  for (const [name, r] of Object.entries(p.resources)) {
    const inputs = schema.resources[r.type]!.inputProperties;
    const fields = Object.entries(r.properties).map(([k, v]) => `${pad}${pythonName(k)}=${python.value(v, fieldSpec(inputs, k, r.type), schema, pad)},`);
    lines.push(`${used.has(name) ? `${name} = ` : ""}neon_auth.${kindOf(r.type)}(`, `${pad}"${name}",`, ...fields, ")");
  }
  const outputs = Object.entries(p.outputs ?? {});
  if (outputs.length > 0) lines.push("", ...outputs.map(([k, v]) => `pulumi.export("${k}", ${python.value(v, {}, schema, "")})`));
  return `${lines.join("\n")}\n`;
}

/** The example section of a kind's page: the source and its three renderings. */
export function renderExampleSection(kind: string, source: string, schema: PackageSchema): string {
  const p = parseExample(source);
  const block = (title: string, file: string, lang: string, text: string) => [`**${title}** (\`${file}\`):`, "", "```" + lang, text.trimEnd(), "```", ""];
  return [
    `Generated by \`npm run gen\` from [examples/${kind}.yaml](examples/${kind}.yaml); each language's program is run by the tests (Python type-checked: see DEVELOPMENT.md). Set \`neon-auth:apiKey\` (or \`NEON_API_KEY\`) and the config it reads, as [Any language](any-language.md) shows.`,
    "",
    ...block("TypeScript", "index.ts", "typescript", renderTypeScript(p, schema)),
    ...block("YAML", "Pulumi.yaml", "yaml", source),
    ...block("Go", "main.go", "go", renderGo(p, schema)),
    ...block("Python", "__main__.py", "python", renderPython(p, schema)),
  ]
    .join("\n")
    .trimEnd();
}

/**
 * Each kind's page with its example section, added at the end under "## Example" where the page
 * has no markers yet. `sources`: each kind's example source, by kind.
 */
export function renderExamplePages(read: (file: string) => string | undefined, sources: Record<string, string>, schema: PackageSchema): Record<string, string> {
  const pages: Record<string, string> = {};
  for (const [kind, source] of Object.entries(sources)) {
    const file = `docs/${kind}.md`;
    const page = read(file);
    if (page === undefined) throw new Error(`${file} is missing`);
    const [open, close] = exampleMarkers(kind);
    const current = page.includes(open) ? page : `${page.trimEnd()}\n\n## Example\n\n${open}\n${close}\n`;
    pages[file] = current.slice(0, current.indexOf(open) + open.length) + `\n${renderExampleSection(kind, source, schema)}\n` + current.slice(current.indexOf(close));
  }
  return pages;
}

/**
 * Every example in one program, for the tests: each example's resources, config and outputs named
 * with its key in front (`redirectDomainAuth`), and the config values in `literal` written into it
 * (each example's own project and branch), the rest of the config shared.
 */
export function mergeExamples(name: string, examples: readonly { key: string; program: Program; literal: Record<string, string> }[]): Program {
  const merged: Program = { name, runtime: "yaml", config: {}, resources: {}, outputs: {} };
  for (const { key, program, literal } of examples) {
    const rename = (n: string) => `${key}${n.charAt(0).toUpperCase()}${n.slice(1)}`;
    const rewrite = (v: unknown): unknown => {
      if (typeof v === "string") {
        const r = refOf(v);
        if (r === undefined) return v;
        if ("config" in r) return r.config in literal ? literal[r.config] : v;
        return `\${${rename(r.resource)}.${r.property}}`;
      }
      if (Array.isArray(v)) return v.map(rewrite);
      if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rewrite(x)]));
      return v;
    };
    for (const [c, spec] of Object.entries(program.config ?? {})) if (!(c in literal)) merged.config![c] = spec;
    for (const [n, r] of Object.entries(program.resources)) merged.resources[rename(n)] = { type: r.type, properties: rewrite(r.properties) as Record<string, unknown> };
    for (const [o, v] of Object.entries(program.outputs ?? {})) merged.outputs![rename(o)] = rewrite(v) as string;
  }
  return merged;
}

/** A program as its Pulumi.yaml. */
export const programYaml = (p: Program): string => stringify(p, { lineWidth: 0 });

/**
 * The first example of a kind that has none: the kind in the integration it lives in, with a
 * plain value for each input it requires. `npm run gen` writes it once, so that adding a kind
 * costs no file of examples; a person then makes it show the kind (it is never overwritten).
 */
export function starterExample(kind: string, parent: "NeonAuth" | "AuthIntegration" | undefined, schema: PackageSchema): string {
  const token = `neon-auth:index:${kind}`;
  const resource = schema.resources[token];
  if (resource === undefined) throw new Error(`examples: no resource ${token} in the schema`);
  const starter = (spec: PropertySpec): unknown =>
    spec.type === "boolean" ? true : spec.type === "integer" || spec.type === "number" ? 1 : spec.type === "array" ? [] : spec.$ref !== undefined ? {} : "example";
  const properties = Object.fromEntries(
    resource.requiredInputs.filter((k) => k !== "integration").map((k) => [k, starter(resource.inputProperties[k]!)]),
  );
  const place = { projectId: "${projectId}", branchId: "${branchId}" };
  const program: Program = {
    name: `neon-auth-${kind.replace(/[A-Z]/g, (c, i: number) => (i === 0 ? "" : "-") + c.toLowerCase())}`,
    runtime: "yaml",
    description: `A ${kind}.`,
    config: { projectId: { type: "string" }, branchId: { type: "string" } },
    resources:
      parent === undefined
        ? { example: { type: token, properties: { ...place, ...properties } } }
        : { auth: { type: `neon-auth:index:${parent}`, properties: place }, example: { type: token, properties: { integration: "${auth.ref}", ...properties } } },
  };
  return stringify(program);
}
