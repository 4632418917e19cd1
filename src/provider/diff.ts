/**
 * Diffs of a resource's fields: which changed, which of those replace it, and the changed paths
 * the engine shows in `preview --diff`.
 */
import { placeholdersTaken } from "./placeholders";

type Props = Record<string, any>;

/** What the engine sends for a value it does not know yet (during preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Whether a value is, or holds, what the engine sends for a value it does not know yet. */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value !== null && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

export interface FieldRule {
  /** Input name, as declared in the Args and kept in outputs. */
  name: string;
  /** A change to this field replaces the object. */
  replaces?: boolean;
  /**
   * A value still unknown at preview is taken as unchanged: the field changes only when something
   * the engine already shows as a step changes (a child's integration identity, see parent.ts).
   */
  unknownIsSame?: boolean;
  /**
   * Only what the new value names is compared, into nested objects: a field it leaves out is left
   * as the service has it (a setting's PATCH of the fields given), so leaving it out is no change.
   */
  namedOnly?: boolean;
  /** Only these fields of the (object) value are compared: a rule for part of an object. */
  pick?: readonly string[];
}

/** How one property changed, as the engine's detailed diff names it. */
export type PropertyChange = "add" | "addReplace" | "delete" | "deleteReplace" | "update" | "updateReplace";

/**
 * A diff with the changed property paths (`clientSecret`, `webhooks.webhookUrl`): what makes
 * `pulumi preview --diff` name the fields of an update. The dynamic resources hand it to the engine
 * through resources/host.ts `forEngine` (which says how, and what the dynamic-provider protocol
 * lacks); the plugin as its detailed diff (plugin/server.ts).
 */
export interface FieldsDiff {
  /** Whether anything changed; undefined when it cannot be told yet. */
  changes?: boolean;
  /** The fields whose change replaces the object. */
  replaces?: string[];
  /** The outputs a replacement keeps. */
  stables?: string[];
  deleteBeforeReplace?: boolean;
  detailedDiff?: Record<string, PropertyChange>;
}

/**
 * Compares an explicit field list of old outputs and new (checked) inputs. Absent and
 * undefined are the same, so an optional field left out never shows as a change.
 */
export function diffFields(
  olds: Props,
  news: Props,
  fields: readonly FieldRule[],
  opts: { deleteBeforeReplace?: boolean } = {},
): FieldsDiff {
  // An imported secret the state never knew is the program's, and a placeholder the program (or,
  // in a refresh's diff, the recorded inputs) still holds is whatever the other side has (placeholders.ts).
  news = placeholdersTaken(news, olds) as Props;
  olds = placeholdersTaken(olds, news) as Props;
  const now = (f: FieldRule) => picked(news[f.name], f.pick);
  const old = (f: FieldRule) => (f.namedOnly ? namedIn(olds[f.name], news[f.name]) : picked(olds[f.name], f.pick));
  const changed = fields.filter((f) => !sameValue(old(f), now(f)) && !(f.unknownIsSame && containsUnknown(now(f))));
  const replaces = [...new Set(changed.filter((f) => f.replaces).map((f) => f.name))];
  const detailedDiff: Record<string, PropertyChange> = {};
  for (const f of changed) changedPaths(f.name, old(f), now(f), f.replaces ?? false, detailedDiff);
  return {
    changes: changed.length > 0,
    replaces,
    // An output neither side has is none to keep stable.
    stables: [...new Set(fields.filter((f) => f.replaces && !replaces.includes(f.name) && !(olds[f.name] === undefined && news[f.name] === undefined)).map((f) => f.name))],
    deleteBeforeReplace: replaces.length > 0 && (opts.deleteBeforeReplace ?? false),
    ...(changed.length > 0 ? { detailedDiff } : {}),
  };
}

/**
 * The paths of what changed under one field: into objects on both sides (a setting area, the
 * webhooks), so that the field named is the one that changed; arrays and values whole.
 */
function changedPaths(path: string, old: unknown, now: unknown, replaces: boolean, out: Record<string, PropertyChange>): void {
  if (sameValue(old, now)) return;
  const suffix = replaces ? "Replace" : "";
  if (old === undefined || old === null) out[path] = `add${suffix}` as PropertyChange;
  else if (now === undefined || now === null) out[path] = `delete${suffix}` as PropertyChange;
  else if (isPlainObject(old) && isPlainObject(now)) {
    for (const k of new Set([...Object.keys(old), ...Object.keys(now)])) changedPaths(`${path}.${k}`, old[k], now[k], replaces, out);
  } else out[path] = `update${suffix}` as PropertyChange;
}

/** The fields `pick` names of an object value (a value still unknown stays so); the value whole without `pick`. */
function picked(value: unknown, pick: readonly string[] | undefined): unknown {
  if (pick === undefined || !isPlainObject(value)) return value;
  const out = Object.fromEntries(pick.filter((k) => value[k] !== undefined).map((k) => [k, value[k]]));
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * `old` with only the fields `now` names, into nested objects (arrays and values whole): what a
 * write of `now` leaves as it is, and so what a comparison with `now` must not count. A value
 * `now` leaves out entirely is kept whole.
 */
export function namedIn(old: unknown, now: unknown): unknown {
  if (!isPlainObject(old) || !isPlainObject(now)) return old;
  return Object.fromEntries(Object.keys(now).filter((k) => k in old).map((k) => [k, namedIn(old[k], now[k])]));
}

function isPlainObject(v: unknown): v is Props {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * Whether two property values are the same, absent and null alike. Object keys are compared in
 * any order: values that went through the engine come back with their keys sorted, while values
 * checked by a schema have them in the schema's order.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === undefined || a === null) return b === undefined || b === null;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (!isPlainObject(v)) return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])]));
}

