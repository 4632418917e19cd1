/**
 * The small shared kit of every kind's handler, on either face: input validation for `check`,
 * field-list diffs, ids, half-made objects, the secrets a program marks.
 */
import type { z } from "zod";
import { programName, secretKeys } from "../schemas/fields";
import { output, outputOf, type CheckFailure, type CheckResult, type Handler, type InputDeclaration, type Kind, type KindDeclaration, type NaturalKey, type Props } from "./declaration";
import { containsUnknown, diffFields, type FieldRule } from "./diff";
import { inherited, isUnknownRef, PLACE_FIELDS, placed, type Placed } from "./place";

export type { CheckFailure, Handler, Kind, KindDeclaration, NaturalKey, Props };

/** The diff rules of the inputs a kind declares: each in place unless it `replaces`. */
export function declaredFields(inputs: Readonly<Record<string, InputDeclaration>>, news: Props): FieldRule[] {
  return Object.entries(inputs).flatMap(([name, i]) =>
    i.compared === false ? [] : [{ name, replaces: i.replaces === true || (i.replacesWhenRemoved === true && news[name] === undefined) }],
  );
}

/**
 * The check and diff of a kind whose rules are its input schema and its field list: `check`
 * validates and normalises with the schema, `diff` compares the fields (each in place unless it
 * `replaces`).
 */
export function inputRules(
  kind: Kind,
  inputs: z.ZodType,
  fields: readonly FieldRule[] | ((olds: Props, news: Props) => readonly FieldRule[]),
  opts: { deleteBeforeReplace?: boolean } = {},
): Pick<Handler, "check" | "diff"> {
  return {
    check: async (_olds, news) => checkInputs(kind, inputs, news),
    diff: async (_id, olds, news) => diffFields(olds, news, typeof fields === "function" ? fields(olds, news) : fields, opts),
  };
}

/**
 * @internal
 * Records the resource of URN `urn` as the one that declares the object `key` names, unless another
 * one of the deployment (a program's run, a plugin's process) did first: then says why the second
 * may not manage it (both faces). Keyed by URN, not by name: two components may each hold a
 * resource of one name.
 */
export function secondDeclaration(declared: Map<string, string>, kind: Kind, object: NaturalKey, key: string, urn: string): string | undefined {
  const first = declared.get(`${kind} ${key}`);
  if (first === undefined || first === urn) {
    declared.set(`${kind} ${key}`, urn);
    return undefined;
  }
  // In URN order: which of the two registers first is up to the engine.
  const [a, b] = [first, urn].sort();
  return (
    `${kind} ${a} and ${kind} ${b} declare ${object.what} (${object.fields.join(", ") || "the same place"}): ` +
    "both would manage one object at Neon, and removing either would delete it under the other. Declare it once."
  );
}

/**
 * @internal
 * Validates and normalises inputs with the resource's zod schema. Failures name the field and
 * the rule. Fields still unknown (preview, or an `integration` whose ref arrives empty: `isUnknownRef`)
 * are not judged; the inputs then pass as they are.
 *
 * The field is named in the reason, not in `property`: given a property, the engine prints the
 * offending value beside the reason, and that value may be a secret put in the wrong field, a
 * megabyte of text, or terminal escapes.
 */
export function checkInputs(kind: Kind, schema: z.ZodType, news: Props): CheckResult {
  const { __provider, ...given } = news;
  // A NeonAuth's `adopt` reaches the children that have one (an OAuthClient has none).
  const inputs = "adopt" in (knownShape(schema) ?? {}) ? inherited(given) : given;
  const unknown = new Set(Object.keys(inputs).filter((k) => containsUnknown(inputs[k]) || (k === "integration" && isUnknownRef(inputs[k]))));
  const parsed = schema.safeParse(inputs, { error: typeMessage });
  if (parsed.success) return { inputs: parsed.data as Props };
  const failures = parsed.error.issues.flatMap((issue) => {
    if (issue.code === "unrecognized_keys") {
      // A misspelt input would otherwise be dropped and its default used without a word.
      if (issue.path.length === 0) return issue.keys.map((key) => ({ property: "", reason: `${kind} ${safeName(key)} ${unknownField(key, knownFields(schema))}` }));
      // Inside a settings object it is named by its path, against that object's fields.
      const where = issue.path.map(String).join(".");
      const fields = Object.keys(shapeAt(schema, issue.path) ?? {});
      return issue.keys.map((key) => ({ property: "", reason: `${kind} ${where}.${safeName(key)} ${unknownNested(where, key, fields)}` }));
    }
    if (unknown.has(String(issue.path[0] ?? ""))) return [];
    const field = issue.path.length > 0 ? issue.path.join(".") : "(inputs)";
    return [{ property: "", reason: `${kind} ${field} ${issue.message}` }];
  });
  return failures.length > 0 ? { inputs, failures } : { inputs: eachField(schema, inputs, unknown) };
}

/**
 * Inputs whose only failures are fields still unknown (preview): each known field parsed on its
 * own, so that it gets its default and canonical form as it will at `up`. Passed on raw, a field
 * left to its default (`adopt`, a child's `authProvider`) would differ from the recorded value
 * and preview a change, even a replacement, that `up` does not make. Cross-field rules wait for
 * `up`, when every value is known.
 */
function eachField(schema: z.ZodType, inputs: Props, unknown: Set<string>): Props {
  const shape = knownShape(schema) ?? {};
  const out: Props = { ...inputs };
  for (const [k, field] of Object.entries(shape)) {
    if (unknown.has(k)) continue;
    const parsed = field.safeParse(inputs[k]);
    if (parsed.success && parsed.data !== undefined) out[k] = parsed.data;
  }
  return out;
}

/** An unknown input's name as written, unless it is long or holds what a terminal would act on. */
function safeName(key: string): string {
  return /^[\x21-\x7e]{1,64}$/.test(key) ? key : "(an input whose name is not shown)";
}

/**
 * The outputs a preview of an in-place update knows: what the kind declares an update keeps, and a
 * child's place (its `integration` and what it outputs from it, which only a replacement changes);
 * the face keeps those the old outputs hold.
 */
export function keptAtPreview(decl: KindDeclaration): string[] {
  const place = decl.parent === undefined ? [] : ["integration", ...PLACE_FIELDS.filter((k) => !(k in decl.inputs))];
  return [...place, ...(decl.keptByUpdate ?? [])];
}

export function knownShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  return (schema as { shape?: Record<string, z.ZodType> }).shape;
}

function knownFields(schema: z.ZodType): string[] {
  return Object.keys(knownShape(schema) ?? {});
}

function unknownField(key: string, known: string[]): string {
  const near = nearest(key, known);
  return `is not an input of this resource${near ? ` (did you mean ${near}?)` : ""}; known inputs: ${known.join(", ")}`;
}

function unknownNested(where: string, key: string, known: string[]): string {
  const near = nearest(key, known);
  return `is not a field of ${where}${near ? ` (did you mean ${where}.${near}?)` : ""}; its fields: ${known.join(", ")}`;
}

function nearest(key: string, known: string[]): string | undefined {
  if (key.length > 64) return undefined;
  return known.find((k) => editDistance(k.toLowerCase(), key.toLowerCase()) <= 2);
}

/**
 * The shape of the object at `path` in `schema`, through what wraps it (optional, default, a
 * secret's pipe, an array's elements); undefined when there is none.
 */
function shapeAt(schema: z.ZodType, path: readonly PropertyKey[]): Record<string, z.ZodType> | undefined {
  let at: unknown = schema;
  for (let i = 0; i <= path.length; i++) {
    for (let guard = 0; guard < 20; guard++) {
      const def = (at as { _zod?: { def?: Record<string, unknown> } })?._zod?.def;
      const inner = def?.innerType ?? def?.in ?? (def?.type === "array" ? def.element : undefined);
      if (def === undefined || def.shape !== undefined || inner === undefined) break;
      at = inner;
    }
    if (i === path.length) break;
    const shape = knownShape(at as z.ZodType);
    const segment = path[i];
    // An array index stays on the elements the unwrapping above reached.
    if (typeof segment === "number") continue;
    at = shape?.[String(segment)];
    if (at === undefined) return undefined;
  }
  return knownShape(at as z.ZodType);
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * @internal
 * Inputs checked again for create and update (runtime.ts, once, before the handler), where the
 * engine hands back what `check` returned plus `__provider`, which no (strict) schema knows; a child's with its place beside its `integration`.
 */
export function parsedInputs<S extends z.ZodType>(schema: S, props: Props): Placed<z.output<S>> {
  const { __provider, ...inputs } = props;
  return placed(schema.parse(inputs) as Props) as Placed<z.output<S>>;
}

/** Zod's default type messages, said the way the rest of our messages are. */
function typeMessage(issue: { code?: string; expected?: string; input?: unknown }): string | undefined {
  if (issue.code !== "invalid_type") return undefined;
  return issue.input === undefined ? "is required" : `must be ${/^[aeiou]/.test(issue.expected ?? "") ? "an" : "a"} ${issue.expected}`;
}

/** `a/b` ids: the natural key of an object, so `import` and read-back can find it. */
export function joinId(...parts: string[]): string {
  return parts.join("/");
}

/** Splits an id made by `joinId` into exactly `n` parts; the last part keeps any further `/`. */
export function splitId(kind: Kind, id: string, n: 2 | 3, format: string): [string, string, ...string[]] {
  const parts = id.split("/");
  if (parts.length < n || parts.slice(0, n).some((p) => p === "")) {
    throw new Error(`${kind} id "${id}" is not of the form ${format}`);
  }
  const [first, ...rest] = [...parts.slice(0, n - 1), parts.slice(n - 1).join("/")];
  return [first!, rest[0]!, ...rest.slice(1)];
}

/**
 * A create that failed after the object came to exist at Neon: the error carries the object's id
 * and what it is now, which the engine records (Pulumi's "initialization failed" state) so that
 * refresh, destroy and the next `up` can reach it. Record only what was really written: the next
 * `up` diffs the program against it and writes the rest.
 */
export interface HalfMade extends Error {
  id: string;
  properties: Props;
  reasons: string[];
}

export function halfMade(message: string, id: string, properties: Props): HalfMade {
  // The engine shows `reasons` for such a create, so the whole message goes there too.
  return Object.assign(new Error(message), { id, properties: compact(properties), reasons: [message] });
}

export function isHalfMade(e: unknown): e is HalfMade {
  return e instanceof Error && typeof (e as Partial<HalfMade>).id === "string" && typeof (e as Partial<HalfMade>).properties === "object";
}

/** Drops undefined values, so outputs never carry keys without values. */
export function compact<T extends Props>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

// ---- secrets -----------------------------------------------------------------------------------

/**
 * @internal
 * The engine's mark of a secret value (`pulumi.runtime.specialSigKey` and `specialSecretSig`; a
 * unit test holds them equal): on the plugin's wire, and in the state an import file carries.
 * Spelled here rather than read from @pulumi/pulumi: loading its index for two strings cost every
 * plugin start about 0.4 s of a core (it loads TypeScript and npm's installer), and the engine
 * starts the plugin on every command.
 */
export const SIG = "4dabf18193072939515e22adb298388d";
export const SECRET = "1b47061264138c4ac30d75fd1eb44270";

/**
 * @internal
 * The hidden input that names the inputs a program gave as secrets beyond those the schemas mark
 * (a secret-wrapped email, say): the provider process gets every value in plain text, so this is
 * how it knows to scrub them from errors and logs (runtime.ts). Names only, never values.
 */
export const SECRET_INPUTS = "__secretInputs";

/**
 * @internal
 * Output declarations with those a wire schema marks secret (schemas/fields.ts) marked so: what
 * the service returns as a secret is a secret output, said once, where the wire schema is.
 */
export function withWireSecrets<O extends Record<string, z.ZodType>>(wire: z.ZodType, outputs: O): O {
  const marked = new Set(secretKeys(wire).map(programName));
  return Object.fromEntries(Object.entries(outputs).map(([k, o]) => [k, marked.has(k) ? output(o, { ...outputOf(o), secret: true }) : o])) as O;
}

