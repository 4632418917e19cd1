/**
 * The YAML program the docs give (examples/yaml) against the plugin's schema: each resource's type
 * is a kind, each property an input of it with a value of its type, every required input given,
 * and each `${resource.output}` an output of that resource. Pulumi YAML itself is not reachable
 * from this project's machines, so this is the check that can be made here.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { packageSchema, type PropertySpec } from "../../src/plugin/schema";

const schema = packageSchema();
interface Program {
  config: Record<string, { type: string }>;
  resources: Record<string, { type: string; properties: Record<string, unknown> }>;
  outputs: Record<string, string>;
}
const program = parse(fs.readFileSync(path.join(__dirname, "..", "..", "examples", "yaml", "Pulumi.yaml"), "utf8")) as Program;

/** `${name}` or `${name.output}`, else undefined. */
const reference = (v: unknown) => (typeof v === "string" ? /^\$\{([^}]+)\}$/.exec(v)?.[1] : undefined);

/** Problems of `value` against `spec`, by path ("" when none). */
function problems(program: Program, value: unknown, spec: PropertySpec, at: string): string[] {
  const ref = reference(value);
  if (ref !== undefined) {
    const [name, output] = ref.split(".");
    if (output === undefined) return name! in program.config ? [] : [`${at}: no config ${name}`];
    const resource = program.resources[name!];
    if (!resource) return [`${at}: no resource ${name}`];
    const out = schema.resources[resource.type]?.properties[output];
    if (!out) return [`${at}: ${resource.type} has no output ${output}`];
    return JSON.stringify({ ...out, description: undefined }) === JSON.stringify({ ...spec, description: undefined }) ? [] : [`${at}: ${name}.${output} is not of the input's type`];
  }
  if (spec.$ref?.startsWith("#/types/")) {
    const type = schema.types[spec.$ref.slice("#/types/".length)]!;
    if (value === null || typeof value !== "object") return [`${at}: must be an object`];
    return [
      ...Object.entries(value).flatMap(([k, v]) => (type.properties[k] ? problems(program, v, type.properties[k]!, `${at}.${k}`) : [`${at}.${k}: no such field`])),
      ...(type.required ?? []).filter((k) => !(k in value)).map((k) => `${at}.${k}: required`),
    ];
  }
  if (spec.type === "string") return typeof value === "string" ? [] : [`${at}: must be a string`];
  if (spec.type === "boolean") return typeof value === "boolean" ? [] : [`${at}: must be a boolean`];
  if (spec.type === "integer" || spec.type === "number") return typeof value === "number" ? [] : [`${at}: must be a number`];
  if (spec.type === "array") return Array.isArray(value) ? value.flatMap((v, i) => problems(program, v, spec.items!, `${at}[${i}]`)) : [`${at}: must be a list`];
  return [];
}

/** Everything in `program` the schema refuses. */
function check(program: Program): string[] {
  const found: string[] = [];
  for (const [name, r] of Object.entries(program.resources)) {
    const kind = schema.resources[r.type];
    if (!kind) {
      found.push(`${name}: no resource type ${r.type}`);
      continue;
    }
    for (const [k, v] of Object.entries(r.properties)) {
      const spec = kind.inputProperties[k];
      found.push(...(spec ? problems(program, v, spec, `${name}.${k}`) : [`${name}.${k}: not an input of ${r.type}`]));
    }
    found.push(...kind.requiredInputs.filter((k) => !(k in r.properties)).map((k) => `${name}.${k}: required`));
  }
  for (const [k, v] of Object.entries(program.outputs)) found.push(...problems(program, v, { type: "string" }, `outputs.${k}`));
  return found;
}

describe("the YAML program of the docs (examples/yaml)", () => {
  it("declares only kinds of the plugin, with their inputs, of their types", () => {
    expect(check(program)).toEqual([]);
    expect(Object.keys(program.resources)).toEqual(["auth", "app", "github"]);
  });

  it("would be refused with an input the schema lacks, a wrong type or a missing output", () => {
    const app = program.resources.app!;
    const wrong: Program = {
      ...program,
      resources: { ...program.resources, app: { ...app, properties: { ...app.properties, projectId: "p-1", adopt: "yes", integration: "${auth.nope}" } } },
    };
    expect(check(wrong).sort()).toEqual(["app.adopt: must be a boolean", "app.integration: neon-auth:index:NeonAuth has no output nope", "app.projectId: not an input of neon-auth:index:RedirectDomain"]);
  });
});
