/**
 * What `npm run gen` writes from the kinds' declarations (`DECLARATIONS` in
 * src/kinds/index.ts): each kind's published Args and output types (plain TypeScript, no
 * zod) and its reference table in the README. Pure functions of the declarations, so that a unit
 * test can tell when the checked-in files are stale.
 */
import { z } from "zod";
import type { Generation, InputDeclaration as Input, KindDeclaration as Declared, OutputDeclaration, PerGeneration } from "../../src/provider/declaration.ts";

/** A rule as JSON Schema (zod's): the published type, default and requiredness of an input or output come from it. */
type Json = { type?: string; enum?: unknown[]; items?: Json; anyOf?: Json[]; additionalProperties?: Json; default?: unknown; properties?: Record<string, Json>; required?: string[] };

const toJson = (rule: z.ZodType, io: "input" | "output") => z.toJSONSchema(rule, { io, unrepresentable: "any" }) as Json;
const sameList = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((v, i) => v === b[i]);
const literalUnion = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(" | ");
/** What the registry holds for an output rule (provider/declaration.ts `output()`). */
const outputOf = (rule: z.ZodType) => (z.globalRegistry.get(rule) as { output: OutputDeclaration }).output;

/** A JSON Schema as the published TypeScript type; a list of values the kind names (`types`) by its name. */
function tsType(js: Json, d: Declared): string {
  if (js.anyOf !== undefined) return tsType(js.anyOf.find((a) => a.type !== "null") ?? {}, d);
  if (js.enum !== undefined) {
    const named = Object.entries(d.types ?? {}).find(([, t]) => sameList(t.values, js.enum!));
    return named === undefined ? literalUnion(js.enum) : named[0];
  }
  if (js.type === "array") {
    const item = tsType(js.items ?? {}, d);
    return /[ |]/.test(item) ? `(${item})[]` : `${item}[]`;
  }
  if (js.type === "object" && js.additionalProperties !== undefined) return `Record<string, ${tsType(js.additionalProperties, d)}>`;
  if (js.type === "integer" || js.type === "number") return "number";
  if (js.type === "boolean" || js.type === "string") return js.type;
  return "unknown";
}

/** One input as the generators read it: its declaration, its rule's type, whether required, its default. */
interface Field {
  readonly name: string;
  readonly input: Input;
  /** The rule's type, a list of values by the name the kind gives it (the output's type). */
  readonly named: string;
  /** Its type on a child of one generation: the values that generation takes, where they differ. */
  type(g: Generation): string;
  readonly required: boolean;
  readonly default?: unknown;
}

function fieldsOf(d: Declared): Field[] {
  const js = toJson(d.schema, "input");
  return Object.entries(d.inputs).map(([name, input]) => {
    const rule = js.properties?.[name] ?? {};
    const named = tsType(rule, d);
    return {
      name,
      input,
      named,
      type: (g: Generation) => (input.values === undefined ? named : literalUnion(input.values[g])),
      required: (js.required ?? []).includes(name),
      default: rule.default,
    };
  });
}

const GENERATIONS: readonly Generation[] = ["AuthIntegration", "NeonAuth"];

function per<T>(v: PerGeneration<T>, g: Generation): T {
  return typeof v === "object" && v !== null && "NeonAuth" in (v as object) ? (v as Record<Generation, T>)[g] : (v as T);
}

/** A TSDoc comment, on one line when it fits in 110 columns, else wrapped at 100. */
export function docLines(doc: string, indent: string): string[] {
  if (indent.length + doc.length + 7 <= 110) return [`${indent}/** ${doc} */`];
  const lines: string[] = [];
  let line = "";
  for (const word of doc.split(" ")) {
    if (line !== "" && indent.length + 3 + line.length + 1 + word.length > 100) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return [`${indent}/**`, ...[...lines, line].map((l) => `${indent} * ${l}`), `${indent} */`];
}

const a = (kind: string) => (/^[AEIOU]/.test(kind) ? `an ${kind}` : `a ${kind}`);

function wrapped(type: string): string {
  const list = /^(.*)\[\]$/.exec(type);
  return list ? `pulumi.Input<pulumi.Input<${list[1]}>[]>` : `pulumi.Input<${type}>`;
}

function argsMember(f: Field, g: Generation, present: boolean): string[] {
  if (!present) return [`  /** Only on a ${f.input.only}. */`, `  ${f.name}?: never;`];
  return [...docLines(per(f.input.doc, g), "  "), `  ${f.name}${f.required ? "" : "?"}: ${wrapped(f.type(g))};`];
}

const PARENT_TYPE = { either: "ParentIntegration", AuthIntegration: "ProjectIntegration", NeonAuth: "NeonAuthIntegration" } as const;
/** The base of a child's Args that declares its `integration` (children.ts), by its parent. */
const LIVES_IN = { either: "InEitherIntegration", AuthIntegration: "InProjectIntegration", NeonAuth: "InNeonAuth" } as const;

/** The `integration` of a child that may do without one (`parentUnless`): the resource object itself, not wrapped in `pulumi.Input`. */
function optionalIntegration(parent: keyof typeof PARENT_TYPE, unless: string): string[] {
  const which = parent === "either" ? "AuthIntegration or NeonAuth" : parent;
  return [...docLines(`The ${which} this lives in: it is created after it, and replaced with it. Required ${unless}.`, "  "), `  integration?: ${PARENT_TYPE[parent]};`];
}

/** Whether the Args differ by generation: some input only one has, or a type or doc per generation. */
function split(d: Declared): boolean {
  return d.parent === "either" && Object.values(d.inputs).some(perGeneration);
}

function perGeneration(i: Input): boolean {
  return i.only !== undefined || i.values !== undefined || typeof i.doc === "object";
}

/** The published name of a kind's Args for one generation: `ProjectAuthUserArgs`, `NeonAuthUserArgs`. */
export function argsName(kind: string, g: Generation): string {
  return g === "AuthIntegration" ? `Project${kind}Args` : `NeonAuth${kind.replace(/^Auth/, "")}Args`;
}

function renderArgs(d: Declared): string[] {
  const generation: Generation = d.parent === "AuthIntegration" ? "AuthIntegration" : "NeonAuth";
  if (!split(d)) {
    const bases = [...(d.also ? [d.also.args] : []), ...(d.parent && d.parentUnless === undefined ? [LIVES_IN[d.parent]] : [])];
    const ext = bases.length > 0 ? ` extends ${bases.join(", ")}` : "";
    const own = d.parent && d.parentUnless !== undefined ? optionalIntegration(d.parent, d.parentUnless) : [];
    const out = [`/** The inputs of ${a(d.kind)}. */`, `export interface ${d.kind}Args${ext} {`, ...own];
    for (const f of fieldsOf(d)) out.push(...argsMember(f, generation, true));
    return [...out, "}"];
  }
  const out: string[] = [];
  const shared = fieldsOf(d).filter((f) => !perGeneration(f.input));
  const own = fieldsOf(d).filter((f) => perGeneration(f.input));
  out.push(`interface ${d.kind}ArgsBase {`);
  for (const f of shared) out.push(...argsMember(f, generation, true));
  out.push("}");
  for (const g of GENERATIONS) {
    out.push("", `/** ${a(d.kind).replace(/^a/, "A")} of ${g === "NeonAuth" ? "a NeonAuth (branch-scoped)" : "a project-level AuthIntegration"}. */`, `export interface ${argsName(d.kind, g)} extends ${d.kind}ArgsBase, ${LIVES_IN[g]} {`);
    for (const f of own) out.push(...argsMember(f, g, f.input.only === undefined || f.input.only === g));
    out.push("}");
  }
  return [...out, "", `export type ${d.kind}Args = ${GENERATIONS.map((g) => argsName(d.kind, g)).join(" | ")};`];
}

/** The outputs every child of such a parent has (parent.ts). */
const CHILD_OUTPUTS = { either: "EitherChildOutputs", NeonAuth: "NeonAuthChildOutputs", AuthIntegration: "ChildOutputs" } as const;

/**
 * Whether an input's output is the input itself as recorded (`Recorded`): the same words, and the
 * same type for every generation. Otherwise the output member is written out.
 */
const recordedAsGiven = (f: Field) => f.input.outputDoc === undefined && !perGeneration(f.input);

function renderOutputs(d: Declared): string[] {
  // An input the runtime rules give a default always has a value once checked.
  const always = new Set(toJson(d.schema, "output").required ?? []);
  // A child's place is an output of the child's base already (a `parentUnless` child declares it as inputs too).
  const fields = fieldsOf(d).filter((f) => d.parent === undefined || (f.name !== "projectId" && f.name !== "branchId"));
  const given = fields.filter(recordedAsGiven);
  const union = (names: readonly string[]) => names.map((n) => JSON.stringify(n)).join(" | ");
  const absent = given.filter((f) => !always.has(f.name)).map((f) => f.name);
  const bases = [
    ...(d.parent === undefined ? [] : [CHILD_OUTPUTS[d.parent]]),
    ...(d.parent !== undefined && d.withProvider !== false ? ["AuthProviderOutput"] : []),
    ...(d.also ? [d.also.outputs] : []),
    ...(given.length === 0 ? [] : [`Recorded<Pick<${split(d) ? `${d.kind}ArgsBase` : `${d.kind}Args`}, ${union(given.map((f) => f.name))}>${absent.length > 0 ? `, ${union(absent)}` : ""}>`]),
  ];
  const out = [`/** The outputs of ${a(d.kind)}: its inputs as recorded, and what the service made. */`, `export interface ${d.kind}Outputs${bases.length > 0 ? ` extends ${bases.join(", ")}` : ""} {`];
  for (const f of fields.filter((f) => !recordedAsGiven(f))) {
    const type = `${f.named}${always.has(f.name) ? "" : " | undefined"}`;
    out.push(...docLines(f.input.outputDoc ?? per(f.input.doc, "NeonAuth"), "  "), `  readonly ${f.name}: pulumi.Output<${type}>;`);
  }
  for (const [name, o] of Object.entries(d.outputs ?? {})) {
    const { doc, secret } = outputOf(o);
    out.push(...docLines(secret ? `${doc} Secret.` : doc, "  "), `  readonly ${name}: pulumi.Output<${outputType(o, d)}>;`);
  }
  return [...out, "}"];
}

/** An output's published type: its rule's, `| undefined` when the rule is optional. */
const outputType = (rule: z.ZodType, d: Declared) => `${tsType(toJson(rule, "output"), d)}${rule.isOptional() ? " | undefined" : ""}`;

const HEADER = "// Generated by `npm run gen` from the kinds' declarations (src/kinds/index.ts). Do not edit.\n";

/** One kind's published types: src/resources/types/<Kind>.ts. */
function renderKind(d: Declared): string {
  const names = ["AuthProviderOutput", "ChildOutputs", "EitherChildOutputs", "NeonAuthChildOutputs", "NeonAuthIntegration", "ParentIntegration", "ProjectIntegration", "Recorded", ...Object.values(LIVES_IN)];
  const out: string[] = [];
  for (const [name, t] of Object.entries(d.types ?? {})) out.push("", ...docLines(t.doc, ""), `export type ${name} = ${t.values.map((v) => JSON.stringify(v)).join(" | ")};`);
  out.push("", ...renderArgs(d), "", ...renderOutputs(d), "");
  const body = out.join("\n");
  const used = (n: string) => new RegExp(`\\b${n}\\b`).test(body);
  const parent = names.filter(used);
  const settings = ["NeonAuthSettingsArgs", "NeonAuthSettingsOutputs"].filter(used);
  return [
    HEADER,
    'import type * as pulumi from "@pulumi/pulumi";',
    ...(parent.length > 0 ? [`import type { ${parent.join(", ")} } from "../children";`] : []),
    ...(settings.length > 0 ? [`import type { ${settings.join(", ")} } from "../settingTypes";`] : []),
  ].join("\n") + "\n" + body;
}

/** Every file of src/resources/types/, by name: one per kind, and the index. */
export function renderKindTypes(decls: readonly Declared[]): Record<string, string> {
  const files: Record<string, string> = {};
  for (const d of decls) files[`${d.kind}.ts`] = renderKind(d);
  const importable = decls.filter((d) => d.importable === true).map((d) => JSON.stringify(d.kind));
  files["index.ts"] = [
    HEADER,
    ...decls.map((d) => `export type * from "./${d.kind}";`),
    "",
    "/** The kinds whose whole state can be read back from the service (`importFile`). */",
    `export type ImportableKind = ${importable.join(" | ")};`,
    "",
  ].join("\n");
  return files;
}

export const KIND_TYPES_DIR = "src/resources/types";

// ---- README ------------------------------------------------------------------------------------

const cell = (s: string) => s.replace(/\|/g, "\\|");

function shownType(f: Field, secret: boolean): string {
  const t = f.input.shown ?? `\`${f.type("NeonAuth")}\``;
  return cell(secret ? `${t}, secret` : t);
}

function required(f: Field): string {
  const when = f.required ? "yes" : (f.input.requiredWhen ?? "no");
  return f.input.only ? `${when} (**\`${f.input.only}\` only**)` : when;
}

/** The default column: the rule's default, or the words for what applies when the input is left out. */
function defaultOf(f: Field): string {
  if (f.default === undefined) return f.input.absent ?? "";
  return `\`${typeof f.default === "string" ? f.default : JSON.stringify(f.default)}\``;
}

function onChange(input: Input): string {
  return cell(input.change ?? (input.replaces ? "replaces" : "in place"));
}

/** A kind's reference table in the README, between its `gen:kind:<Kind>` markers. */
export function renderKindTable(d: Declared, secrets: readonly string[]): string {
  const rows = ["| input | type | required | default | on change |", "|---|---|---|---|---|"];
  if (d.parent) rows.push(`| \`integration\` | ${d.parent === "either" ? "`AuthIntegration` or `NeonAuth`" : `\`${d.parent}\``} | ${cell(d.parentUnless ?? "yes")} |  | replaces when the integration is replaced |`);
  for (const f of fieldsOf(d)) {
    rows.push(`| \`${f.name}\` | ${shownType(f, secrets.includes(f.name))} | ${cell(required(f))} | ${cell(defaultOf(f))} | ${onChange(f.input)} |`);
  }
  const outputs = Object.entries(d.outputs ?? {});
  if (outputs.length > 0) {
    rows.push("", "| output | type | notes |", "|---|---|---|");
    for (const [name, o] of outputs) rows.push(`| \`${name}\` | \`${cell(outputType(o, d))}\`${outputOf(o).secret ? ", secret" : ""} | ${cell(outputOf(o).doc)} |`);
  }
  rows.push("", `- **Id**: ${d.id}`);
  rows.push(d.importable === true ? "- **Import**: by id (`importFile`, `pulumi import --file`)." : `- **Import**: not importable: ${d.importable}.`);
  return rows.join("\n");
}

export const kindMarkers = (kind: string) => [`<!-- gen:kind:${kind} -->`, `<!-- /gen:kind:${kind} -->`] as const;
