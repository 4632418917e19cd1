/**
 * What `npm run gen` writes from the kinds' declarations (`DECLARATIONS` in
 * src/kinds/index.ts): each kind's published Args and output types (plain TypeScript, no
 * zod) and its reference table in the README. Pure functions of the declarations, so that a unit
 * test can tell when the checked-in files are stale.
 */
import { z } from "zod";
import type { Generation, InputDeclaration as Input, KindDeclaration as Declared, PerGeneration } from "../../src/provider/declaration.ts";

const GENERATIONS: readonly Generation[] = ["AuthIntegration", "NeonAuth"];

function per<T>(v: PerGeneration<T>, g: Generation): T {
  return typeof v === "object" && v !== null && "NeonAuth" in (v as object) ? (v as Record<Generation, T>)[g] : (v as T);
}

/** A TSDoc comment, on one line when it fits in 110 columns, else wrapped at 100. */
function docLines(doc: string, indent: string): string[] {
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

function argsMember(name: string, input: Input, g: Generation, present: boolean): string[] {
  if (!present) return [`  /** Only on a ${input.only}. */`, `  ${name}?: never;`];
  const optional = input.required === true ? "" : "?";
  return [...docLines(per(input.doc, g), "  "), `  ${name}${optional}: ${wrapped(per(input.type, g))};`];
}

const PARENT_TYPE = { either: "ParentIntegration", AuthIntegration: "ProjectIntegration", NeonAuth: "NeonAuthIntegration" } as const;

/** A child's `integration`: the resource object itself, not wrapped in `pulumi.Input`. */
function integrationMember(parent: keyof typeof PARENT_TYPE, unless?: string): string[] {
  const which = parent === "either" ? "AuthIntegration or NeonAuth" : parent;
  const when = unless === undefined ? "" : ` Required ${unless}.`;
  return [...docLines(`The ${which} this lives in: it is created after it, and replaced with it.${when}`, "  "), `  integration${unless === undefined ? "" : "?"}: ${PARENT_TYPE[parent]};`];
}

/** Whether the Args differ by generation: some input only one has, or a type or doc per generation. */
function split(d: Declared): boolean {
  return d.parent === "either" && Object.values(d.inputs).some((i) => i.only !== undefined || typeof i.type === "object" || typeof i.doc === "object");
}

/** The published name of a kind's Args for one generation: `ProjectAuthUserArgs`, `NeonAuthUserArgs`. */
export function argsName(kind: string, g: Generation): string {
  return g === "AuthIntegration" ? `Project${kind}Args` : `NeonAuth${kind.replace(/^Auth/, "")}Args`;
}

function renderArgs(d: Declared): string[] {
  const generation: Generation = d.parent === "AuthIntegration" ? "AuthIntegration" : "NeonAuth";
  const ext = d.also ? ` extends ${d.also.args}` : "";
  if (!split(d)) {
    const out = [`/** The inputs of ${a(d.kind)}. */`, `export interface ${d.kind}Args${ext} {`, ...(d.parent ? integrationMember(d.parent, d.parentUnless) : [])];
    for (const [name, input] of Object.entries(d.inputs)) out.push(...argsMember(name, input, generation, true));
    return [...out, "}"];
  }
  const out: string[] = [];
  const shared = Object.entries(d.inputs).filter(([, i]) => i.only === undefined && typeof i.type !== "object" && typeof i.doc !== "object");
  const own = Object.entries(d.inputs).filter(([n]) => !shared.some(([s]) => s === n));
  out.push(`interface ${d.kind}ArgsBase {`);
  for (const [name, input] of shared) out.push(...argsMember(name, input, generation, true));
  out.push("}");
  for (const g of GENERATIONS) {
    out.push("", `/** ${a(d.kind).replace(/^a/, "A")} of ${g === "NeonAuth" ? "a NeonAuth (branch-scoped)" : "a project-level AuthIntegration"}. */`, `export interface ${argsName(d.kind, g)} extends ${d.kind}ArgsBase {`, ...integrationMember(g));
    for (const [name, input] of own) out.push(...argsMember(name, input, g, input.only === undefined || input.only === g));
    out.push("}");
  }
  return [...out, "", `export type ${d.kind}Args = ${GENERATIONS.map((g) => argsName(d.kind, g)).join(" | ")};`];
}

/** The outputs every child of such a parent has (parent.ts). */
const CHILD_OUTPUTS = { either: "EitherChildOutputs", NeonAuth: "NeonAuthChildOutputs", AuthIntegration: "ChildOutputs" } as const;

function renderOutputs(d: Declared): string[] {
  const bases = [
    ...(d.parent === undefined ? [] : [CHILD_OUTPUTS[d.parent]]),
    ...(d.parent !== undefined && d.withProvider !== false ? ["AuthProviderOutput"] : []),
    ...(d.also ? [d.also.outputs] : []),
  ];
  const out = [`/** The outputs of ${a(d.kind)}: its inputs as recorded, and what the service made. */`, `export interface ${d.kind}Outputs${bases.length > 0 ? ` extends ${bases.join(", ")}` : ""} {`];
  // An input the runtime rules give a default always has a value once checked.
  const always = new Set((z.toJSONSchema(d.schema, { io: "output", unrepresentable: "any" }) as { required?: string[] }).required ?? []);
  for (const [name, input] of Object.entries(d.inputs)) {
    // A child's place is an output of the child's base already (a `parentUnless` child declares it as inputs too).
    if (d.parent !== undefined && (name === "projectId" || name === "branchId")) continue;
    const type = `${input.output ?? per(input.type, "NeonAuth")}${always.has(name) ? "" : " | undefined"}`;
    out.push(...docLines(input.outputDoc ?? per(input.doc, "NeonAuth"), "  "), `  readonly ${name}: pulumi.Output<${type}>;`);
  }
  for (const [name, o] of Object.entries(d.outputs ?? {})) out.push(...docLines(o.secret ? `${o.doc} Secret.` : o.doc, "  "), `  readonly ${name}: pulumi.Output<${o.type}>;`);
  return [...out, "}"];
}

const HEADER = "// Generated by `npm run gen` from the kinds' declarations (src/kinds/index.ts). Do not edit.\n";

/** One kind's published types: src/resources/types/<Kind>.ts. */
function renderKind(d: Declared): string {
  const names = ["AuthProviderOutput", "ChildOutputs", "EitherChildOutputs", "NeonAuthChildOutputs", "NeonAuthIntegration", "ParentIntegration", "ProjectIntegration"];
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

function shownType(input: Input, secret: boolean): string {
  const t = input.shown ?? `\`${per(input.type, "NeonAuth")}\``;
  return cell(secret ? `${t}, secret` : t);
}

function required(input: Input): string {
  const when = input.required === true ? "yes" : (input.required ?? "no");
  return input.only ? `${when} (**\`${input.only}\` only**)` : when;
}

function onChange(input: Input): string {
  return cell(input.change ?? (input.replaces ? "replaces" : "in place"));
}

/** A kind's reference table in the README, between its `gen:kind:<Kind>` markers. */
export function renderKindTable(d: Declared, secrets: readonly string[]): string {
  const rows = ["| input | type | required | default | on change |", "|---|---|---|---|---|"];
  if (d.parent) rows.push(`| \`integration\` | ${d.parent === "either" ? "`AuthIntegration` or `NeonAuth`" : `\`${d.parent}\``} | ${cell(d.parentUnless ?? "yes")} |  | replaces when the integration is replaced |`);
  for (const [name, input] of Object.entries(d.inputs)) {
    rows.push(`| \`${name}\` | ${shownType(input, secrets.includes(name))} | ${cell(required(input))} | ${cell(input.default ?? "")} | ${onChange(input)} |`);
  }
  const outputs = Object.entries(d.outputs ?? {});
  if (outputs.length > 0) {
    rows.push("", "| output | type | notes |", "|---|---|---|");
    for (const [name, o] of outputs) rows.push(`| \`${name}\` | \`${cell(o.type)}\`${o.secret ? ", secret" : ""} | ${cell(o.doc)} |`);
  }
  rows.push("", `- **Id**: ${d.id}`);
  rows.push(d.importable === true ? "- **Import**: by id (`importFile`, `pulumi import --file`)." : `- **Import**: not importable: ${d.importable}.`);
  return rows.join("\n");
}

export const kindMarkers = (kind: string) => [`<!-- gen:kind:${kind} -->`, `<!-- /gen:kind:${kind} -->`] as const;
