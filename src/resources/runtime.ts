/**
 * Entry point of the dynamic-provider process: the serialized provider methods
 * (providers/dynamic.ts) load this module by package name (the path stacks record) and dispatch
 * to the calls of their resource kind, shaped the way the dynamic-provider host takes them.
 */
import type * as pulumi from "@pulumi/pulumi";
import { assertNodeVersion } from "../nodeVersion";
// First, before the rest loads: on an old Node our dependencies fail without saying why.
assertNodeVersion("pulumi-neon-auth");
import { calls } from "../kinds";
import { configureProcess, type Context } from "../provider/context";
import { useLog } from "../provider/log";
import { engineLog } from "./engineLog";
import { isHalfMade, type Kind, type Props } from "../provider/kit";
import type { Provided } from "../provider/runtime";
import { placeholdersIn, placeholdersTaken } from "../provider/placeholders";
import { forEngine, installRecordedInputs, RECORDED_INPUTS, reported } from "./host";

/**
 * The engine's configure of a serialized provider: the stack configuration, once per provider
 * before its first check.
 */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  configureProcess((name) => req.config.get(name));
}

// Every notice of this process goes to the engine's log.
useLog(engineLog);

/** Where the dynamic-provider host keeps each resource's serialized provider (`cmd/dynamic-provider`). */
const PROVIDER_KEY = "__provider";

/**
 * The calls of a kind as the dynamic-provider host takes them, on the process's context (from the
 * stack configuration) unless given: the diff carries its changed fields the way host.ts lets it,
 * and the errors the host prints itself are marked so (host.ts `reported`).
 */
export function handler(kind: Kind, ctx?: Context): Omit<Provided, "diff"> & { diff(id: string, olds: Props, news: Props): Promise<pulumi.dynamic.DiffResult> } {
  let c: Provided;
  try {
    c = calls(kind, ctx);
  } catch (e) {
    // A missing key or settings that disagree: the engine shows it under each resource; the
    // host's own print of it (with a stack trace, under the stack) would only repeat it.
    throw reported(e);
  }
  installRecordedInputs();
  const printed = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) => (...args: A) => fn(...args).catch((e: unknown) => Promise.reject(reported(e)));
  return {
    check: printed(c.check),
    diff: printed(async (id: string, olds: Props, news: Props) => {
      // An imported secret: compared with what the program last gave, once it gave one (as the plugin does).
      const { [RECORDED_INPUTS]: recorded, ...outs } = olds;
      return forEngine(await c.diff(id, recorded === undefined ? outs : (placeholdersTaken(outs, news, recorded) as Props), news));
    }),
    create: (props) => c.create(props).catch(withProvider(props)),
    read: printed(async (id: string, props: Props) => {
      const r = await c.read(id, props);
      // Outputs that hold an import's placeholder: the recorded inputs keep the program's value (or
      // the placeholder, until the program gives one), which Neon's answer does not have.
      if (placeholdersIn(props).length === 0 || r.inputs === undefined) return r;
      const { inputs: _, ...rest } = r;
      return rest;
    }),
    update: (id, olds, news) => c.update(id, olds, news).catch(withProvider(news)),
    delete: printed(c.delete),
  };
}

/**
 * A half-made object carries the serialized provider the host adds to every other result: without
 * it the next refresh or destroy of the object cannot call this provider at all ("code must be a
 * string").
 */
function withProvider(props: Props): (e: unknown) => never {
  return (e) => {
    if (isHalfMade(e) && props[PROVIDER_KEY] !== undefined) e.properties = { ...e.properties, [PROVIDER_KEY]: props[PROVIDER_KEY] };
    throw e;
  };
}
