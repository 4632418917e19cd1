/**
 * An answer reduced to its shape: the status, each field's name and JSON type, and the values of
 * the few fields whose values are an enumeration (never an id, a name, an address, a URL or a
 * secret: those are the values that could be personal or secret, so no other value is kept).
 */

/**
 * Fields whose values are kept: each is a closed set of words in Neon's answers. An operation's
 * `status` and a branch's `current_state` are such words too, but which one an answer holds
 * depends on how far Neon's operation has got: they are compared by type alone.
 */
export const ENUM_FIELDS: ReadonlySet<string> = new Set([
  "auth_provider",
  "type",
  "code",
  "action",
  "owned_by",
  "email_verification_method",
  "default",
  "primary",
  "enabled",
  "success",
]);

/** `"string"`, `"number"`, `"boolean"`, `"null"`, `"string:<value>"` for enumerations, `[shape]`, `{field: shape}`. */
export type Shape = string | Shape[] | { [field: string]: Shape };

export function shapeOf(value: unknown, field?: string): Shape {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length === 0 ? [] : [value.map((v) => shapeOf(v, field)).reduce(merge)];
  if (typeof value === "object") {
    const out: Record<string, Shape> = {};
    for (const k of Object.keys(value as object).sort()) out[k] = shapeOf((value as Record<string, unknown>)[k], k);
    return out;
  }
  const type = typeof value;
  return field !== undefined && ENUM_FIELDS.has(field) && type !== "object" ? `${type}:${String(value)}` : type;
}

/** One shape that covers both (list members of several kinds: fields of either, values of either). */
function merge(a: Shape, b: Shape): Shape {
  if (typeof a === "string" && typeof b === "string") return [...new Set([...a.split("|"), ...b.split("|")])].sort().join("|");
  if (Array.isArray(a) && Array.isArray(b)) return a.length === 0 ? b : b.length === 0 ? a : [merge(a[0]!, b[0]!)];
  if (isObject(a) && isObject(b)) {
    const out: Record<string, Shape> = {};
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) out[k] = k in a && k in b ? merge(a[k]!, b[k]!) : (a[k] ?? b[k])!;
    return out;
  }
  return `${JSON.stringify(a)}|${JSON.stringify(b)}`;
}

function isObject(s: Shape): s is Record<string, Shape> {
  return typeof s === "object" && !Array.isArray(s);
}

/** How the target's answer differs from the reference's at one place. */
export interface Difference {
  /** Where: `status`, or the field's path in the body (`.providers[].type`). */
  readonly at: string;
  readonly reference: string;
  readonly target: string;
  /**
   * Tolerated: the target only adds (a field, an enumeration value) — the package reads past it,
   * though the emulator may want to learn it. Otherwise the emulator and the target disagree.
   */
  readonly tolerated: boolean;
}

export function compareShapes(reference: Shape | undefined, target: Shape | undefined, at = ""): Difference[] {
  const show = (s: Shape | undefined) => (s === undefined ? "absent" : typeof s === "string" ? s : Array.isArray(s) ? "a list" : "an object");
  if (reference === undefined && target === undefined) return [];
  if (reference === undefined) return [{ at, reference: "absent", target: show(target), tolerated: true }];
  if (target === undefined) return [{ at, reference: show(reference), target: "absent", tolerated: false }];
  if (isObject(reference) && isObject(target)) {
    const keys = [...new Set([...Object.keys(reference), ...Object.keys(target)])].sort();
    return keys.flatMap((k) => compareShapes(reference[k], target[k], `${at}.${k}`));
  }
  if (Array.isArray(reference) && Array.isArray(target)) {
    // An empty list says nothing about its members' shape.
    if (reference.length === 0 || target.length === 0) return [];
    return compareShapes(reference[0], target[0], `${at}[]`);
  }
  if (typeof reference === "string" && typeof target === "string") {
    if (reference === target) return [];
    const [r, t] = [new Set(reference.split("|")), new Set(target.split("|"))];
    return [{ at, reference, target, tolerated: [...r].every((x) => t.has(x)) }];
  }
  return [{ at, reference: show(reference), target: show(target), tolerated: false }];
}
