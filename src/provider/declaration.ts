/**
 * A resource kind, declared once: its published inputs and outputs (on their zod rules: type,
 * required and default from the rule, what a change does and the words from `input()`), its id, whether it can be imported, its runtime input rules and its
 * handler. The class registers from it (resources/registration.ts), its diff compares the inputs it
 * declares, the runtime dispatches on it, the import helper asks it, and `npm run gen` writes the
 * published Args and output types (resources/types/), the plugin's schema and the README's reference tables from it
 * (scripts/gen/kinds.mts; test/unit/generated.test.ts fails when those are stale).
 */
import { z } from "zod";
import { holdsSecret, secretField } from "../schemas/fields";
import type { Context } from "./context";
import type { FieldsDiff } from "./diff";
import type { Kind } from "./kindNames";

export { KINDS, type Kind } from "./kindNames";

export type Props = Record<string, any>;


/** The two API generations, by the class of the integration a child lives in. */
export type Generation = "AuthIntegration" | "NeonAuth";

/** A value that may differ between the generations (a child's `integration`, `providerId`). */
export type PerGeneration<T> = T | Readonly<Record<Generation, T>>;

/**
 * How one input of a kind is published, beside what its zod rule says (its type, whether it is
 * required, its default: `npm run gen` reads those from the rule). Declared on the rule itself with
 * `input(rule, {...})`; a field of a kind's rules without it is no input of its own (a child's place).
 */
export interface InputDeclaration {
  /** What it is, for the Args' TSDoc and the plugin schema (the README shows the rule in words: `shown`). */
  readonly doc: PerGeneration<string>;
  /** The README's type column, where words say more than the TypeScript. Default: the type. */
  readonly shown?: string;
  /** When an optional input is needed after all, in words (`for \`standard\``): the cross-field rules check it. */
  readonly requiredWhen?: string;
  /** The README's default column for an input the rule gives no default: what applies when it is left out. */
  readonly absent?: string;
  /** The values a child of each generation may give, where they differ (the rule takes their union). */
  readonly values?: Readonly<Record<Generation, readonly string[]>>;
  /** A change replaces the object at Neon; otherwise it is made in place. */
  readonly replaces?: true;
  /** A change is made in place, but removing it replaces (the API cannot drop it in place). */
  readonly replacesWhenRemoved?: true;
  /** Not compared: a change alone is no update, and is recorded with the next one (a flag for later changes). */
  readonly compared?: false;
  /** The README's on-change column, when more than "replaces" or "in place" is to be said. */
  readonly change?: string;
  /** Only a child of this generation has it: the other's Args refuse it (`?: never`). */
  readonly only?: Generation;
  /** Its output's doc, where it differs from the input's. */
  readonly outputDoc?: string;
}

/** One output a kind computes, declared on its zod rule with `output(rule, {...})`; the rule gives its type. */
export interface OutputDeclaration {
  readonly doc: string;
  /** Kept secret in state and outputs (the wire schemas mark the fields they return: `withWireSecrets`). */
  readonly secret?: true;
}

/** The words of a value that may differ by generation, as one description (the plugin's schema). */
export const words = (doc: PerGeneration<string>): string =>
  typeof doc === "string" ? doc : `On a NeonAuth: ${doc.NeonAuth} On an AuthIntegration: ${doc.AuthIntegration}`;

/**
 * An input's rule with how it is published (`.meta()`, zod's registry): its words also as the
 * rule's `description`, so that every JSON Schema of it (the plugin's) carries them.
 */
export function input<T extends z.ZodType>(rule: T, meta: InputDeclaration): T {
  return keptSecret(rule, rule.meta({ description: words(meta.doc), input: meta }) as T);
}

/** An output's rule with its words and secrecy (`.meta()`); `.optional()` for one that may be unset. */
export function output<T extends z.ZodType>(rule: T, meta: OutputDeclaration): T {
  return keptSecret(rule, rule.meta({ description: meta.doc, output: meta }) as T);
}

/** `.meta()` returns a copy, which a secret mark on the rule itself (`secretField`) does not reach: marked again. */
const keptSecret = <T extends z.ZodType>(rule: T, copy: T): T => (holdsSecret(rule) && !holdsSecret(copy) ? secretField(copy) : copy);

/** The registry entry of a rule or of the rule it wraps (`.optional()`, `.default()` after `.meta()`). */
function metaOf(rule: z.ZodType, key: "input" | "output"): unknown {
  for (let r: z.ZodType | undefined = rule; r !== undefined; r = (r._zod.def as { innerType?: z.ZodType }).innerType) {
    const found = z.globalRegistry.get(r)?.[key];
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A kind's inputs, in the order its rules list them: each field declared with `input()`. */
export function inputsOf(rules: z.ZodType): Record<string, InputDeclaration> {
  const shape = (rules as { shape?: Record<string, z.ZodType> }).shape ?? {};
  return Object.fromEntries(Object.entries(shape).flatMap(([k, r]) => {
    const meta = metaOf(r, "input") as InputDeclaration | undefined;
    return meta === undefined ? [] : [[k, meta]];
  }));
}

/** The published declaration of one output rule. */
export const outputOf = (rule: z.ZodType): OutputDeclaration => metaOf(rule, "output") as OutputDeclaration;

/**
 * What every kind's `adopt` is: a switch read by the create alone. Adding or removing it (on a
 * NeonAuth, whose children inherit it, or on the child) changes nothing at Neon, so it previews no
 * change; it is recorded with the resource's next update.
 */
export const CREATE_TIME_SWITCH = {
  compared: false,
  change: "none: read at create only, so adding or removing it previews no change; see [adopting](adopt-and-import.md#looking-up-and-adopting-existing-objects)",
} as const satisfies Partial<InputDeclaration>;

/** `adopt` where leaving it out means false (nothing found is taken over): a create-time switch. */
export const adoptSwitch = (doc: string, outputDoc?: string) =>
  input(z.boolean().optional(), { ...CREATE_TIME_SWITCH, doc, ...(outputDoc === undefined ? {} : { outputDoc }), absent: "`false`" });

/** An input the check refuses: the reason names the field (`property` stays empty, see kit.ts `checkInputs`). */
export interface CheckFailure {
  readonly property: string;
  readonly reason: string;
}

/** The inputs as the check made them (defaults filled, canonical), or why it refuses them. */
export interface CheckResult {
  readonly inputs?: Props;
  readonly failures?: CheckFailure[];
}

/** What a create made: its id and outputs. */
export interface CreateResult {
  readonly id: string;
  readonly outs?: Props;
}

/** What a read found: nothing (the object is gone), or its id, outputs and the inputs that would make it. */
export interface ReadResult {
  readonly id?: string;
  readonly props?: Props;
  readonly inputs?: Props;
}

/** What an update left: the outputs. */
export interface UpdateResult {
  readonly outs?: Props;
}

/**
 * What each resource file implements, in the package's own terms: each face adapts it (the
 * dynamic resources' results, resources/runtime.ts; the plugin's gRPC answers, plugin/server.ts).
 * Create and update get the inputs the check made, parsed once more by the kind's rules (the
 * runtime does it, provider/runtime.ts): typed, defaults filled. Calls that talk to
 * the API are given the process's context (context.ts); check and diff need none.
 */
export interface Handler<Inputs extends Props = Props> {
  check(olds: Props, news: Props): Promise<CheckResult>;
  diff(id: string, olds: Props, news: Props): Promise<FieldsDiff>;
  create(inputs: Inputs, ctx: Context): Promise<CreateResult>;
  read(id: string, props: Props, ctx: Context): Promise<ReadResult>;
  update(id: string, olds: Props, news: Inputs, ctx: Context): Promise<UpdateResult>;
  delete(id: string, props: Props, ctx: Context): Promise<void>;
}

/**
 * The object a resource manages, named from its inputs: two resources of one kind with one key
 * manage one object. It is the resource's id where the id is natural (not a server-made id).
 */
export interface NaturalKey {
  /** The inputs that name it, beside `projectId` and `branchId`. */
  fields: readonly string[];
  /** What those inputs name, in words for an error (`one origin`, `the email server`). */
  what: string;
  /** From inputs in their canonical form; undefined while they name nothing. */
  key(inputs: Props): string | undefined;
  /**
   * Where the service makes the id (an OAuth client's), the key names the object but is no id: the
   * id of the object it names, looked up at Neon; undefined when there is none. Absent: the key is
   * the id.
   */
  idAtNeon?(ctx: Context, inputs: Props): Promise<string | undefined>;
}

export interface KindDeclaration {
  readonly kind: Kind;
  /** Its class's TSDoc: what it is, what a change does, an `@example` (`npm run gen` writes the class with it). */
  readonly doc: string;
  /** No `get` on its class: the object cannot be read by its id alone (the service never shows it again). */
  readonly get?: false;
  /**
   * A child lives in an integration, of either generation or of one: it takes it as its
   * `integration` input (the resource object, not wrapped in `pulumi.Input`), is created after it
   * and replaced with it, and has `ChildOutputs`. Absent for the integrations themselves.
   */
  readonly parent?: "either" | Generation;
  /**
   * A child that may also stand without its integration (a Data API bound to another identity
   * provider): the words that say when `integration` is needed. Without it the child takes
   * `projectId` and `branchId` as inputs of its own, which it then declares.
   */
  readonly parentUnless?: string;
  /** Where it lives, in words, when it is neither an integration nor a child (the Registry's overview). */
  readonly livesOn?: string;
  /** A child whose requests name its integration's auth provider outputs it. Default true. */
  readonly withProvider?: false;
  /** Published interfaces its Args and outputs extend (NeonAuth's settings, generated from their own table). */
  readonly also?: { readonly args: string; readonly outputs: string };
  /** The inputs a program passes, in the order the Args and the README list them: `inputsOf(schema)`. */
  readonly inputs: Readonly<Record<string, InputDeclaration>>;
  /** The outputs the provider computes (its inputs are outputs too, without saying so), each rule declared with `output()`. */
  readonly outputs?: Readonly<Record<string, z.ZodType>>;
  /** Published types the inputs and outputs name (`OAuthClientType`), each from its list of values. */
  readonly types?: Readonly<Record<string, { readonly values: readonly string[]; readonly doc: string }>>;
  /** Its id, in the README's words. */
  readonly id: string;
  /** `true`, or why `importFile` cannot write it (the service cannot show all of it). */
  readonly importable: true | string;
  /** The runtime input rules (zod stays out of the published types). */
  readonly schema: z.ZodType;
  /** Inputs the runtime keeps that the program does not pass (a child's project, from its integration). */
  readonly hidden?: readonly string[];
  /** The object it manages, for the kinds that manage a named one. */
  readonly object?: NaturalKey;
  /**
   * Outputs that tell which object it is (when Neon made it, its auth project), which an in-place
   * update never changes: the plugin's preview of an update shows them as recorded, not unknown.
   * A child's place is kept too, without saying so (kit.ts `keptAtPreview`).
   */
  readonly keptByUpdate?: readonly string[];
  readonly handler: Handler;
}

/**
 * The id under which the object the inputs name can be imported: its natural key, or Neon's id of
 * it where Neon makes the id (looked up); undefined when the kind cannot be imported, the inputs
 * name nothing, or Neon has no such object.
 */
export async function importableId(decl: KindDeclaration, ctx: Context, inputs: Props): Promise<string | undefined> {
  const object = decl.importable === true ? decl.object : undefined;
  const key = object?.key(inputs);
  if (typeof key !== "string") return undefined;
  return object!.idAtNeon === undefined ? key : object!.idAtNeon(ctx, inputs);
}

/** The secret outputs a kind declares. */
export function secretOutputsOf(decl: KindDeclaration): string[] {
  return Object.entries(decl.outputs ?? {}).flatMap(([k, o]) => (outputOf(o).secret ? [k] : []));
}

/** The outputs only the provider sets: registered empty, so the engine hands them to the program. */
export function computedOf(decl: KindDeclaration): string[] {
  return Object.keys(decl.outputs ?? {}).filter((k) => !(k in decl.inputs));
}

/**
 * A function (a Pulumi invoke), declared once: it only reads. The plugin's schema and `Invoke`, the
 * TypeScript face's `get…` and `get…Output`, their published types and the reference are made from
 * it (`npm run gen`). Its arguments are zod rules (each field `.describe()`d), checked before any
 * request; its result is a zod shape (each field described) that gives the published types and the
 * schema's outputs, never a secret (test/unit/functions.test.ts holds every declaration to that).
 */
export interface FunctionDeclaration {
  /** `getNeonAuth`: the TypeScript name, and the token's last part (`neon-auth:index:getNeonAuth`). */
  readonly name: string;
  /** What it reads, for the reference and the SDKs' docs. */
  readonly doc: string;
  readonly args: z.ZodObject;
  readonly result: z.ZodObject;
  /** Reads, with the arguments the rules gave; throws an error naming what is missing. */
  read(args: Props, ctx: Context): Promise<Props>;
}
