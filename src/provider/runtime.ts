/**
 * A kind's handler as either face's provider process calls it: the inputs of create and update
 * parsed once by the kind's rules, every secret it sees remembered and scrubbed from what it
 * throws, results the engine can encode, the names of the program's secret inputs carried on,
 * and each call named in the wait notices. The dynamic resources'
 * entry point is resources/runtime.ts; the plugin's is plugin/server.ts.
 */
import { collectSecrets, DEFAULT_BASE_URL, leaves, NeonNetworkError, redactText, rememberSecrets } from "../client";
import { isConnectFailure } from "../client/retry";
import { isLoopbackHost } from "../schemas";
import { isEncodable } from "../schemas/fields";
import { compact, isHalfMade, parsedInputs, SECRET_INPUTS, type Handler, type Kind, type KindDeclaration, type Props } from "./kit";
import { processContext, type Context } from "./context";
import type { FieldsDiff } from "./diff";
import { currentResource, forResource } from "./waits";
import { info } from "./log";
import { inputsOf, placed, upgraded, withRef } from "./place";

/** A kind's calls as the engine makes them, on one context. */
export interface Provided {
  check(olds: Props, news: Props): ReturnType<Handler["check"]>;
  diff(id: string, olds: Props, news: Props): Promise<FieldsDiff>;
  create(inputs: Props): ReturnType<Handler["create"]>;
  read(id: string, props: Props): ReturnType<Handler["read"]>;
  update(id: string, olds: Props, news: Props): ReturnType<Handler["update"]>;
  delete(id: string, props: Props): Promise<void>;
}

const guardedHandlers = new WeakMap<Context, Map<Kind, Provided>>();

/**
 * The calls of a kind on a context (the provider plugin's, or the process's unless given), made
 * once per context and kind.
 */
export function guardedCalls(decl: KindDeclaration, ctx?: Context): Provided {
  // Every call, check included, first needs settings that make sense: so preview already says
  // what is missing, for each resource, without sending anything.
  const on = ctx ?? processContext();
  let kinds = guardedHandlers.get(on);
  if (!kinds) guardedHandlers.set(on, (kinds = new Map()));
  let g = kinds.get(decl.kind);
  if (!g) kinds.set(decl.kind, (g = guarded(decl, on)));
  return g;
}

/**
 * What the resources of this deployment declare (their objects' keys, from `check`), took (the
 * objects their creates made, adopted or found, by id) and replace (by id, from `diff`), per
 * context: one provider process serves one deployment, and the engine checks every resource of
 * the program before it deletes any that left it.
 */
interface Ledger {
  declared: Set<string>;
  taken: Set<string>;
  replaced: Set<string>;
}

const ledgers = new WeakMap<Context, Ledger>();

function ledger(ctx: Context): Ledger {
  let l = ledgers.get(ctx);
  if (l === undefined) ledgers.set(ctx, (l = { declared: new Set(), taken: new Set(), replaced: new Set() }));
  return l;
}

/** The key of the object `props` name (kind and natural key), if the kind names one and they name it. */
function objectKey(decl: KindDeclaration, props: Props | undefined): string | undefined {
  if (decl.object === undefined || props === undefined) return undefined;
  try {
    const key = decl.object.key(placed(props));
    return key === undefined ? undefined : `${decl.kind} ${key}`;
  } catch {
    return undefined; // props that name nothing (fields still unknown) declare nothing
  }
}

/**
 * Whether the delete of `id` must leave Neon alone: its object is another resource's now, one this
 * deployment took (created, adopted or found) or declares, and this delete is no replacement of its
 * own. Pulumi runs a rename without `aliases` as a create of the new resource, then a delete of the
 * old one (in a later `up` too, when the first stopped at an ownership error): deleting then would
 * remove what the stack still declares. Said in the engine's log, since the engine shows a delete
 * either way.
 */
function leftToAnother(decl: KindDeclaration, ctx: Context, id: string, props: Props): boolean {
  const l = ledger(ctx);
  const key = objectKey(decl, props);
  const another = l.taken.has(`${decl.kind} ${id}`) || (key !== undefined && l.declared.has(key) && !l.replaced.has(`${decl.kind} ${id}`));
  if (!another) return false;
  info(
    `neon-auth: ${label(decl.kind, props, id)} is not deleted at Neon: another resource of this deployment declares or took this object ` +
      "and now manages it, so only this resource leaves the stack. A rename without `aliases` runs this way; README, \"Renaming resources\".",
  );
  return true;
}

/** Per context (one run's provider process): the resource that first met an API it could not connect to. */
const firstUnreachable = new WeakMap<Context, string>();
/** Per error object: the resource that met it first. One object fails every resource that shares a read. */
const firstToMeet = new WeakMap<object, string>();

/**
 * A fault of the run, not of one resource, is printed in full once, by the first resource that
 * meets it: an API that refuses connections (each resource meets an error of its own) and any
 * error one read shared by several resources throws (the same object for each). Every other
 * resource gets an error of its own that names the first: the shared object is never rewritten,
 * since the first resource's answer may not have left yet (a refresh printed only references).
 */
function oncePerRun(ctx: Context, e: unknown): unknown {
  if (!(e instanceof Error) || isHalfMade(e)) return e;
  const who = currentResource() ?? "another resource";
  const metBy = firstToMeet.get(e);
  if (metBy === who) return e;
  if (e instanceof NeonNetworkError && isConnectFailure(e.errorCode)) {
    const url = (ctx.settings.apiUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
    const first = firstUnreachable.get(ctx);
    if (first !== undefined && first !== who) return referring(e, `cannot connect to the Neon API at ${url} either: see the error of ${first}`);
    firstUnreachable.set(ctx, who);
    e.message = unreachableMessage(ctx, e, url);
  } else if (metBy !== undefined) {
    return referring(e, `the same failure as ${metBy} (a read of Neon they share): see the error of ${metBy}`);
  }
  firstToMeet.set(e, who);
  return e;
}

/** An error of the same class as `e` with its own message and no stack trace: one resource's reference to another's. */
function referring(e: Error, message: string): Error {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(e) as object) as Error, e);
  Object.defineProperty(copy, "message", { value: message, writable: true, configurable: true });
  Object.defineProperty(copy, "stack", { value: `${copy.name}: ${message}`, writable: true, configurable: true });
  return copy;
}

/** The first resource's words for a connection that failed: the URL, where it came from, and what to do. */
function unreachableMessage(ctx: Context, e: NeonNetworkError, url: string): string {
  const s = ctx.settings;
  const from = s.apiUrl === undefined ? `the default base URL; ${s.apiUrlFrom} sets another` : `the base URL from ${s.apiUrlFrom}`;
  const what = e.errorCode === "ENOTFOUND" ? "its host name does not resolve" : "the connection was refused";
  let host = "";
  let port = "";
  try {
    ({ hostname: host, port } = new URL(url));
  } catch {
    // The settings checked it already; without it the hint is the generic one.
  }
  const hint =
    e.errorCode === "ENOTFOUND"
      ? `check the host name in ${s.apiUrlFrom}, or this machine's DNS`
      : isLoopbackHost(host.toLowerCase())
        ? `nothing listens there: start the emulator (\`npx neon-auth-emulator --port ${port || "80"}\`) or correct ${s.apiUrlFrom}`
        : `check the network path to it (a proxy, a firewall) or correct ${s.apiUrlFrom}`;
  return (
    `cannot connect to the Neon API at ${url} (${from}): ${what} (${e.errorCode}, ${e.attempts === 1 ? "1 attempt" : `${e.attempts} attempts`} ` +
    `of ${e.method} ${e.path}); ${hint}. The other resources of this run that need the API refer to this error`
  );
}

/** How a wait line names the resource: its kind and what tells it apart (never a secret). */
function label(kind: Kind, props: Props | undefined, id?: string): string {
  const domain = props?.domain;
  if (typeof domain === "string") return `${kind} ${domain}`;
  if (id !== undefined && id !== "") return `${kind} ${id}`;
  const where = [props?.projectId, props?.branchId].filter((v): v is string => typeof v === "string");
  return where.length > 0 ? `${kind} on ${where.join("/")}` : kind;
}

/**
 * Every secret a provider method sees (inputs, old outputs, new outputs) is remembered for the
 * rest of the process, and every error it throws or failure it reports is scrubbed of all of
 * them: an error about one resource may quote a secret that belongs to another, or one that
 * was never sent in that request (an old client secret echoed by the API). A secret is a field
 * the schemas mark, or any input the program made secret (named in `SECRET_INPUTS`, which the
 * handlers never see and every result carries on, so that refresh and delete know it too).
 */
function guarded(decl: KindDeclaration, ctx: Context): Provided {
  const { kind, handler: h } = decl;
  // What earlier versions recorded, as this one records it (place.ts); and an integration's `ref`.
  const up = (p: Props) => upgraded(decl, p);
  const outs = (p: Props) => withRef(decl, up(p));
  const wrap =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      for (const a of args) rememberSecrets(secretsIn(a));
      try {
        const result = await fn(...(args.map(withoutNames) as A));
        rememberSecrets(secretsIn(result));
        return result;
      } catch (e) {
        throw scrub(oncePerRun(ctx, e));
      }
    };
  const check = wrap(h.check.bind(h));
  const diff = wrap((id: string, olds: Props, news: Props) => h.diff(id, up(olds), up(news)));
  const create = wrap((props: Props) => h.create(parsedInputs(decl.schema, props) as Props, ctx));
  const read = wrap((id: string, props: Props) => h.read(id, up(props), ctx));
  const update = wrap((id: string, olds: Props, news: Props) => h.update(id, up(olds), parsedInputs(decl.schema, news) as Props, ctx));
  const del = wrap((id: string, props: Props) => h.delete(id, up(props), ctx));
  return {
    check: async (olds, news) => {
      const r = await check(olds, news);
      const key = r.failures ? undefined : objectKey(decl, r.inputs);
      if (key !== undefined) ledger(ctx).declared.add(key);
      const inputs = r.inputs && withNames(r.inputs, news);
      return r.failures ? { inputs, failures: r.failures.map((f) => ({ ...f, reason: redactText(f.reason) })) } : { ...r, inputs };
    },
    diff: async (id, olds, news) => {
      const r = await diff(id, olds, news);
      if ((r.replaces ?? []).length > 0) ledger(ctx).replaced.add(`${kind} ${id}`);
      return r;
    },
    create: (props) =>
      forResource(label(kind, placed(props)), async () => {
        const r = await create(props).catch(recordable(props));
        encodable(kind, r.id, r.outs);
        ledger(ctx).taken.add(`${kind} ${r.id}`);
        return { ...r, outs: r.outs && withNames(outs(r.outs), props) };
      }),
    read: (id, props) =>
      forResource(label(kind, props, id), async () => {
        const r = await read(id, props);
        encodable(kind, r.id ?? id, r.props);
        return r.props === undefined ? r : { ...r, props: withNames(outs(r.props), props), ...(r.inputs ? { inputs: withNames(inputsOf(up(r.inputs)), props) } : {}) };
      }),
    update: (id, olds, news) =>
      forResource(label(kind, placed(news), id), async () => {
        const r = await update(id, olds, news).catch(recordable(news));
        encodable(kind, id, r.outs);
        return { ...r, outs: r.outs && withNames(outs(r.outs), news) };
      }),
    delete: (id, props) => forResource(label(kind, props, id), async () => (leftToAnother(decl, ctx, id, props) ? undefined : del(id, props))),
  };
}

/** A half-made object's properties as the engine records them (kit.ts `halfMade`): with the names of the program's secret inputs. */
function recordable(props: Props): (e: unknown) => never {
  return (e) => {
    if (isHalfMade(e)) e.properties = withNames(e.properties, props);
    throw e;
  };
}

/**
 * Refuses a result holding a string the engine cannot take (a lone surrogate the service stored):
 * sent on, it fails the whole run with a gRPC encoding error that names no resource.
 */
function encodable(kind: Kind, id: string, props: Props | undefined): void {
  const field = unencodableField(props, "");
  if (field === undefined) return;
  throw new Error(
    `${kind} ${id}: Neon returned ${field} with a character that cannot be encoded (a lone UTF-16 surrogate, half of a ` +
      "character), so Pulumi cannot record it. Correct that value at Neon (in the console, or through the API), then run again.",
  );
}

/** The path of the first string in `value` that cannot be encoded; undefined when there is none. */
function unencodableField(value: unknown, at: string): string | undefined {
  if (typeof value === "string") return isEncodable(value) ? undefined : at || "a value";
  if (value === null || typeof value !== "object") return undefined;
  for (const [k, v] of Object.entries(value)) {
    const found = unencodableField(v, at === "" ? k : Array.isArray(value) ? `${at}[${k}]` : `${at}.${k}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `value` (props, or a provider result) without the names of the program's secret inputs. */
function withoutNames(value: unknown): unknown {
  if (value === null || typeof value !== "object" || !(SECRET_INPUTS in value)) return value;
  const { [SECRET_INPUTS]: _, ...rest } = value as Props;
  return rest;
}

/** `props` with the names `from` carries, if any. */
function withNames(props: Props, from: Props): Props {
  // A key left undefined (an optional input such as `adopt` the program omits) cannot cross the
  // provider protocol: the host's Struct encoding fails with "Unexpected struct type".
  const clean = compact(props);
  const names = from[SECRET_INPUTS];
  return names === undefined ? clean : { ...clean, [SECRET_INPUTS]: names };
}

/** Secret values in props or a provider result: marked fields, and the inputs the program made secret. */
function secretsIn(value: unknown): string[] {
  const found = collectSecrets(value);
  for (const props of [value, (value as { outs?: unknown })?.outs, (value as { props?: unknown })?.props, (value as { inputs?: unknown })?.inputs]) {
    const names = (props as Props | undefined)?.[SECRET_INPUTS];
    if (Array.isArray(names)) for (const n of names) if (typeof n === "string") secretLeaves((props as Props)[n], found);
  }
  return found;
}

/**
 * The secret strings of a secret input: a value whole, but of a settings object only the fields
 * the schemas mark (a NeonAuth's `webhooks` is kept secret as a whole for its `webhookUrl`), so
 * that an error can still say which event names are allowed.
 */
function secretLeaves(value: unknown, into: string[]): void {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) collectSecrets(value, into);
  else leaves(value, into);
}

function scrub(e: unknown): unknown {
  if (!(e instanceof Error)) return new Error(redactText(String(e)));
  e.message = redactText(e.message);
  if (e.stack) e.stack = redactText(e.stack);
  if (isHalfMade(e)) e.reasons = e.reasons.map((r) => redactText(r));
  return e;
}
