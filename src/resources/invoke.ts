/**
 * How the TypeScript face runs a function (kinds/functions.ts): in the program's own process, with
 * a client made from the same settings the resources' provider resolves (`resolveSettings` over the
 * stack's `neon-auth:` configuration and the environment), so that a function reads with the key
 * and URL the stack's resources use.
 *
 * Why not `pulumi.runtime.invoke`: the engine routes an invoke to a provider plugin it loads by
 * package name, and the classes' provider is the dynamic one (`pulumi-nodejs`), which has no
 * `Invoke`; sending the classes' functions through the `neon-auth` plugin would make every
 * TypeScript user install it. A direct read is what an invoke would do anyway: functions only
 * read, run at preview as at `up`, and record nothing in the state.
 */
import * as pulumi from "@pulumi/pulumi";
import type { Context } from "../provider/context";
import { engineLog } from "./engineLog";

let made: { settings: string; ctx: Context } | undefined;

/**
 * What a function needs, loaded at its first call and not with the package: a program that calls
 * no function loads no HTTP client (test/unit/package-load.test.ts). A dynamic import, with the
 * extension Node's resolver wants of it.
 */
async function runner() {
  const [functions, context, settings, redact, log] = await Promise.all([
    import("../kinds/functions.js"),
    import("../provider/context.js"),
    import("../provider/settings.js"),
    import("../client/redact.js"),
    import("../provider/log.js"),
  ]);
  log.useLog(engineLog);
  /** The program's context, made again only when its settings change; read at each call, so a missing key is the calling function's error. */
  const programContext = (): Context => {
    const s = settings.resolveSettings((name) => pulumi.runtime.getConfig(name), process.env);
    const key = JSON.stringify(s);
    if (made?.settings !== key) made = { settings: key, ctx: context.contextOf(s) };
    return made.ctx;
  };
  return { ...functions, programContext, redactText: redact.redactText };
}

/** @internal A function's direct form: a promise of its result. `opts` is the SDK's; nothing in it applies to a read here. */
async function invokeDirect<R>(name: string, args: object, _opts?: pulumi.InvokeOptions): Promise<R> {
  const { FUNCTIONS, invokeFunction, programContext, redactText } = await runner();
  try {
    return (await invokeFunction(FUNCTIONS[name]!, args as Record<string, unknown>, programContext)) as R;
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    err.message = redactText(err.message);
    if (err.stack) err.stack = redactText(err.stack);
    throw err;
  }
}

/**
 * @internal A function's output form: its arguments may be outputs of other resources. Until they
 * are known (a preview before their resource exists) the result is unknown; then it reads.
 */
function invokeOutput<R>(name: string, args: object, opts?: pulumi.InvokeOutputOptions): pulumi.Output<R> {
  // `dependsOn`: read once those resources exist (a resource's id is unknown until it is made).
  const after = pulumi.output((opts?.dependsOn === undefined ? [] : [opts.dependsOn].flat()) as pulumi.Input<pulumi.Resource>[]);
  const made = after.apply((rs) => pulumi.all(rs.map((r) => (r instanceof pulumi.CustomResource ? r.id : r.urn))));
  return pulumi.all([pulumi.output(args), made]).apply(([a]) => invokeDirect<R>(name, a as object)) as pulumi.Output<R>;
}

/** A function's arguments in its output form: each may be an output of another resource (one level, as its arguments are scalars). */
export type Inputs<A> = { [K in keyof A]: pulumi.Input<Exclude<A[K], undefined>> };

/** @internal A function's direct form, typed by its arguments and its result (a generated function file exports it). */
export const directForm =
  <A extends object, R>(name: string) =>
  (args: A, opts?: pulumi.InvokeOptions): Promise<R> =>
    invokeDirect<R>(name, args, opts);

/** @internal A function's output form, typed by its direct form's arguments and its result (a generated function file exports it). */
export const outputForm =
  <A extends object, R>(name: string) =>
  (args: Inputs<A>, opts?: pulumi.InvokeOutputOptions): pulumi.Output<R> =>
    invokeOutput<R>(name, args, opts);
