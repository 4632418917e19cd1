/**
 * The program's side of every class: what it passes to `super` (its kind's provider, the inputs
 * with their secrets marked, its module and kind), and the rule that each object is declared
 * once in a program.
 */
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { secretKeys } from "../schemas/fields";
import { computedOf, secretOutputsOf } from "../provider/declaration";
import { knownShape, secondDeclaration, SECRET_INPUTS, type Kind, type KindDeclaration, type Props } from "../provider/kit";
import { PROVIDERS } from "./providers";
import { PLACE_FIELDS } from "../provider/place";

/** Module part of the type tokens: `pulumi-nodejs:dynamic/neon-auth:<Kind>`. */
export const MODULE = "neon-auth";

/**
 * Program side: the resource that declared each object, by kind and key, per run of the program
 * (an Automation API program may run several times in one process; each run has its own stack
 * resource).
 */
const declaredIn = new WeakMap<object, Map<string, string>>();

const outsideAnyRun = {};

function declaredThisRun(): Map<string, string> {
  const run = pulumi.runtime.getStackResource() ?? outsideAnyRun;
  let declared = declaredIn.get(run);
  if (declared === undefined) declaredIn.set(run, (declared = new Map()));
  return declared;
}

/**
 * @internal
 * Each object is declared once in a program. Two resources of one kind that manage one object
 * (two spellings of one origin, the email server twice) would both write it, and removing either
 * would delete it under the other while `preview` stayed green; so the second fails as soon as
 * the fields that name the object are known (at preview for values the program gives),
 * naming both resources by URN and the field, never the value (it may be a secret). A lookup
 * (`get`) manages nothing and is not counted. Called once the resource is registered (`urn`).
 */
export function declareOnce(decl: KindDeclaration, urn: pulumi.Output<string>, inputs: Props, opts: pulumi.CustomResourceOptions | undefined): void {
  const object = decl.object;
  if (object === undefined || opts?.id !== undefined) return;
  const shape = knownShape(decl.schema) ?? {};
  const fields = ["projectId", "branchId", ...object.fields];
  // A child's place is its integration's (as `placed` reads it), each field known on its own.
  const ref = inputs.integration as Props | undefined;
  const given: Props = ref === undefined ? inputs : { ...inputs, ...Object.fromEntries(PLACE_FIELDS.map((k) => [k, ref[k]])) };
  const named = pulumi.all([urn, pulumi.all(Object.fromEntries(fields.map((f) => [f, given[f]])))]);
  const declared = declaredThisRun();
  named.apply(([at, values]: [string, Props]) => {
    // Each field in the canonical form `check` gives it; a value it refuses is `check`'s to report.
    const canonical: Props = {};
    for (const f of fields) {
      const parsed = f in shape ? shape[f]!.safeParse(values[f]) : { success: true as const, data: values[f] };
      if (!parsed.success) return;
      canonical[f] = parsed.data;
    }
    const key = canonical.projectId === undefined ? undefined : object.key(canonical);
    if (key === undefined) return;
    const twice = secondDeclaration(declared, decl.kind, object, key, at);
    if (twice !== undefined) throw new Error(twice);
  });
}

/**
 * @internal
 * What every class passes to `super`, from its kind's declaration: the kind's provider (its
 * module's export, providers/index.ts), the inputs as `secretArgs` makes them (with the computed
 * outputs registered empty, so the engine hands them to the program), its module and kind. The
 * class then declares the object it manages, if any, once in the program (`declareOnce`).
 */
export function registration(
  decl: KindDeclaration,
  name: string,
  inputs: Props,
  opts: pulumi.CustomResourceOptions | undefined,
): [pulumi.dynamic.ResourceProvider, string, Props, pulumi.CustomResourceOptions, string, Kind] {
  const all = { ...inputs, ...Object.fromEntries(computedOf(decl).map((k) => [k, undefined])) };
  return [PROVIDERS[decl.kind], name, ...secretArgs(decl.schema, all, opts, secretOutputsOf(decl)), MODULE, decl.kind];
}

/**
 * What every constructor registers: each input whose rule is marked secret (schemas/fields.ts)
 * made a secret whatever the program passed, the names of the other inputs the program made
 * secret in `SECRET_INPUTS`, and every secret input and `outputs` kept secret among the outputs.
 */
function secretArgs(
  schema: z.ZodType,
  inputs: Props,
  opts: pulumi.CustomResourceOptions | undefined,
  outputs: readonly string[],
): [Props, pulumi.CustomResourceOptions] {
  const marked = secretKeys(schema);
  const made: Props = { ...inputs };
  for (const k of marked) if (made[k] !== undefined) made[k] = pulumi.secret(made[k]);
  const others = Object.keys(made).filter((k) => !marked.includes(k) && mayBeSecret(made[k]));
  // Left out when none, so that a stack without such secrets has the inputs it always had; and
  // not registered at all when none can be (each registered property costs the SDK four promises
  // with a stack trace each, the most of a preview's time in the program).
  if (others.length > 0) {
    const wrapped = Promise.all(others.map(async (k) => ((await pulumi.isSecret(pulumi.output(made[k]))) ? k : undefined)));
    made[SECRET_INPUTS] = pulumi.output(wrapped.then((ks) => {
      const names = ks.filter((k): k is string => k !== undefined);
      return names.length > 0 ? names : undefined;
    }));
  }
  const secretOuts = [...new Set([...marked, ...outputs, ...(opts?.additionalSecretOutputs ?? [])])];
  return [made, { ...opts, additionalSecretOutputs: secretOuts }];
}

/**
 * Outputs the package knows hold no secret: a resource's outputs whose inputs were plain values and
 * that no secret-output list names, and what a child derives from only those (its place and its
 * integration's identity). A program's value is a secret only through an Output or a promise.
 */
const plainOutputs = new WeakSet<object>();

/** Whether a program value may be, or hold, a secret (`plainOutputs` are not). */
function mayBeSecret(v: unknown): boolean {
  if (v === null || typeof v !== "object") return false;
  if (plainOutputs.has(v)) return false;
  if (pulumi.Output.isInstance(v) || v instanceof Promise || pulumi.Resource.isInstance(v)) return true;
  return Object.values(v).some(mayBeSecret);
}

/** @internal Marks an Output the package derived from plain values only (`plainOutputs`); returns it. */
export function plainOutput<T>(o: T, from: readonly unknown[]): T {
  if (typeof o === "object" && o !== null && !from.some(mayBeSecret)) plainOutputs.add(o);
  return o;
}

/**
 * @internal
 * After a class registered `res` with `inputs` (as `registration` made them): each output property
 * whose input was a plain value, and which no secret-output list names, holds no secret.
 */
export function notePlainOutputs(res: object, inputs: Props, secretOutputs: readonly string[] = []): void {
  for (const [k, v] of Object.entries(res)) {
    if (!pulumi.Output.isInstance(v) || secretOutputs.includes(k) || k === SECRET_INPUTS || k === "urn" || k === "id") continue;
    if (!mayBeSecret(inputs[k])) plainOutputs.add(v);
  }
}
