/**
 * The one set of field rules: what `check` accepts from a program, what the client sends and
 * what the emulator accepts. Each refusal names the rule, never the value (a value may be a
 * secret, or a terminal escape). Normalising rules (trim, lower case, canonical origin, port)
 * run here too, so that `diff` compares canonical forms and stays quiet.
 */
import { isIPv4, isIPv6 } from "node:net";
import { z } from "zod";

// C0 and C1 control characters (CR, LF, TAB, NUL, ESC, ...), and DEL.
export const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// Characters that reorder or split what a terminal or log viewer shows (bidi overrides and
// isolates, directional marks, line and paragraph separators).
export const INVISIBLE_LAYOUT = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

export const RULES = {
  blank: "must not be empty or only whitespace",
  control: "must not contain control characters (such as CR, LF, TAB, NUL or ESC)",
  layout: "must not contain bidirectional-override or line-separator characters",
  edgeSpace: "must not begin or end with whitespace",
} as const;

/** Whether a string is free of control and layout characters (used for server text, too). */
export function isCleanText(s: string): boolean {
  return !CONTROL.test(s) && !INVISIBLE_LAYOUT.test(s);
}

/** Control and layout characters replaced by a space: for text that came from a server. */
export function stripUnsafeText(s: string): string {
  return s.replace(new RegExp(`${CONTROL.source}|${INVISIBLE_LAYOUT.source}`, "g"), " ");
}

// Characters that render as nothing (zero-width space and joiners, word joiner, soft hyphen, BOM,
// variation selectors, Hangul fillers, ...): Unicode's Default_Ignorable_Code_Point property.
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
// Half of a UTF-16 surrogate pair without its other half: no character at all, and not encodable
// as UTF-8 (nor by protobuf, which carries Pulumi's state).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why a name or email address could pass for another, or for nothing; undefined when it cannot.
 * Checked on the value as given, before any lower-casing: the Kelvin sign U+212A lower-cases to a
 * plain `k`, so `\u212Aate@example.com` would silently become `kate@example.com`.
 */
export function identityProblem(s: string): string | undefined {
  if (LONE_SURROGATE.test(s)) return "must not contain lone UTF-16 surrogates (half of a character)";
  if (s.replace(IGNORABLE, "").trim() === "") return "must not be empty or only invisible characters (such as zero-width spaces)";
  if (s.normalize("NFKC") !== s) {
    return "must be written in Unicode NFKC form: it holds characters that stand for others (such as the Kelvin sign for k, full-width letters or ligatures); write them as the characters they fold into";
  }
  return undefined;
}

/** Whether a string can be encoded (UTF-8, protobuf): it has no lone surrogate. */
export function isEncodable(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}

/** A refinement of identityProblem, for rules built on z.string(); blank values are left to the rule's own blank check. */
export function identityRule(s: string, ctx: z.RefinementCtx<string>): void {
  const problem = s.trim() === "" ? undefined : identityProblem(s);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
}

/** A name that identifies someone (a user's name): free text that cannot pass for another. */
export function personName(max: number) {
  return z.string().superRefine(identityRule).pipe(text(max));
}

/** Free text (names, labels): trimmed, 1 to `max` characters, no control or layout characters. */
export function text(max: number) {
  return z
    .string()
    .trim()
    .min(1, { message: RULES.blank })
    .max(max, { message: `must be at most ${max} characters` })
    .refine((s) => !CONTROL.test(s), { message: RULES.control })
    .refine((s) => !INVISIBLE_LAYOUT.test(s), { message: RULES.layout });
}

// ---- secrets ---------------------------------------------------------------------------------

const SECRET_SCHEMAS = new WeakSet<z.ZodType>();

/**
 * Marks a field rule as a secret: the one place a field is declared secret. Wrap the finished
 * rule (zod's `.refine` and the like return a new schema that does not carry the mark); wrappers
 * put around it later (`.optional()`, `.default()`) are seen through.
 */
export function secretField<T extends z.ZodType>(schema: T): T {
  SECRET_SCHEMAS.add(schema);
  return schema;
}

/** The schemas a wrapper or container holds (zod 4 definitions). */
function innerSchemas(schema: z.ZodType): z.ZodType[] {
  const def = (schema as unknown as { _zod: { def: Record<string, any> } })._zod.def;
  switch (def.type) {
    case "optional": case "nullable": case "default": case "prefault": case "nonoptional": case "readonly": case "catch":
      return [def.innerType];
    case "pipe": return [def.in, def.out];
    case "array": return [def.element];
    case "object": return Object.values(def.shape as Record<string, z.ZodType>);
    case "union": return def.options;
    case "intersection": return [def.left, def.right];
    case "record": return [def.valueType];
    default: return [];
  }
}

/** A wire field's name in a program and in state: camelCase (`client_secret` is `clientSecret`). */
export function programName(wire: string): string {
  return wire.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** Whether a value of this schema is, or holds, a secret. */
export function holdsSecret(schema: z.ZodType): boolean {
  return SECRET_SCHEMAS.has(schema) || innerSchemas(schema).some(holdsSecret);
}

/** The keys of an object schema (of the objects in it, through wrappers and unions) whose values are or hold secrets. */
export function secretKeys(schema: z.ZodType): string[] {
  const def = (schema as unknown as { _zod: { def: Record<string, any> } })._zod.def;
  if (def.type === "object") {
    return Object.entries(def.shape as Record<string, z.ZodType>).filter(([, v]) => holdsSecret(v)).map(([k]) => k);
  }
  return [...new Set(innerSchemas(schema).flatMap(secretKeys))];
}

/** The names of the fields, at any depth, whose own rule is marked secret (the leaves, not the objects holding them). */
export function secretLeafNames(schema: z.ZodType, into = new Set<string>()): Set<string> {
  const def = (schema as unknown as { _zod: { def: Record<string, any> } })._zod.def;
  if (def.type === "object") {
    for (const [k, v] of Object.entries(def.shape as Record<string, z.ZodType>)) {
      if (isSecretLeaf(v)) into.add(k);
      secretLeafNames(v, into);
    }
  } else {
    for (const inner of innerSchemas(schema)) secretLeafNames(inner, into);
  }
  return into;
}

/** A marked rule, possibly under wrappers, that is not an object holding marked fields. */
function isSecretLeaf(schema: z.ZodType): boolean {
  if (SECRET_SCHEMAS.has(schema)) return true;
  const def = (schema as unknown as { _zod: { def: Record<string, any> } })._zod.def;
  return def.type !== "object" && def.type !== "array" && innerSchemas(schema).some(isSecretLeaf);
}

/**
 * A secret (password, client secret): never trimmed (that would change it silently), so
 * surrounding whitespace, usually a pasted newline, is refused instead.
 */
export function secret(max = 1024) {
  return secretField(z
    .string()
    .max(max, { message: `must be at most ${max} characters` })
    .refine((s) => s.trim() !== "", { message: RULES.blank })
    .refine((s) => s.trim() === s, { message: RULES.edgeSpace })
    .refine((s) => !CONTROL.test(s), { message: RULES.control })
    .refine((s) => !INVISIBLE_LAYOUT.test(s), { message: RULES.layout }));
}

/** An opaque ASCII token such as an OAuth client id: visible ASCII only, no spaces. */
export function token(max = 256) {
  return z
    .string()
    .trim()
    .min(1, { message: RULES.blank })
    .max(max, { message: `must be at most ${max} characters` })
    .regex(/^[\x21-\x7e]*$/, { message: "must be visible ASCII characters only (no spaces, control or non-ASCII characters)" });
}

// ---- hosts -----------------------------------------------------------------------------------

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
// What a URL parser reads as a number (decimal, 0x hex, leading-zero octal): a name whose last
// label looks like this is an IPv4 address in disguise (`0x7f.1`, `999.999.999.999`).
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|\d+)$/;

/** Why `host` (lower case, no brackets) is not a hostname or IPv4 literal; undefined when it is. */
export function hostProblem(host: string): string | undefined {
  if (host === "") return "must not be empty";
  if (CONTROL.test(host)) return RULES.control;
  if (/[^\x00-\x7f]/.test(host)) return "must be ASCII (write an internationalised name in its punycode form, xn--...)";
  if (host.length > 253) return "must be at most 253 characters";
  const labels = host.split(".");
  if (NUMERIC_LABEL.test(labels[labels.length - 1]!)) {
    return isIPv4(host) ? undefined : "must be a valid IPv4 address in dotted decimal (four numbers 0 to 255, no leading zeros)";
  }
  if (labels.some((l) => l.includes("*"))) return "must not contain wildcards";
  if (!labels.every((l) => LABEL.test(l))) {
    return "must be a hostname of dot-separated labels of letters, digits and '-' (1 to 63 characters each, no '-' at either end)";
  }
  return undefined;
}

/** A host name (RFC 1123), an IPv4 literal, or an IPv6 literal with or without brackets. */
export const hostname = z
  .string()
  .trim()
  .toLowerCase()
  .superRefine((h, ctx) => {
    const bare = h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h;
    if (isIPv6(bare)) return;
    const problem = hostProblem(h);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/** Loopback hosts: 127.0.0.0/8, localhost (and names under it) and ::1. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (isIPv4(h)) return h.startsWith("127.");
  if (isIPv6(h)) {
    try {
      return new URL(`http://[${h}]`).hostname === "[::1]";
    } catch {
      return false;
    }
  }
  return false;
}

// ---- PostgreSQL names ------------------------------------------------------------------------

/**
 * A database or role name: a PostgreSQL identifier of at most 63 bytes (longer ones are cut by
 * the server), starting with a letter or `_`; `-` is allowed as Neon quotes names.
 */
export function pgIdentifier(what: "database" | "role") {
  const base = z
    .string()
    .trim()
    .min(1, { message: RULES.blank })
    .refine((s) => Buffer.byteLength(s, "utf8") <= 63, { message: "must be at most 63 bytes (a PostgreSQL identifier)" })
    .regex(/^[A-Za-z_][A-Za-z0-9_$-]*$/, {
      message: "must be a PostgreSQL identifier: a letter or '_' first, then letters, digits, '_', '$' or '-'",
    });
  return what === "role"
    ? base.refine((s) => !/^pg_/i.test(s), { message: "must not start with pg_ (reserved by PostgreSQL)" })
    : base;
}

// ---- identifiers used in paths ---------------------------------------------------------------

/**
 * Why a value cannot stand as one path segment; undefined when it can. `.` and `..` would be read
 * as dot segments (the request would reach another path), and control characters or very long
 * values are never ids.
 */
export function pathSegmentProblem(v: unknown): string | undefined {
  if (typeof v !== "string" || v.trim() === "") return "must be a non-empty string";
  if (v === "." || v === "..") return "must not be a dot segment (. or ..)";
  if (v.length > 256) return "must be at most 256 characters";
  if (!isCleanText(v)) return RULES.control;
  return undefined;
}

/** A path parameter that names one object: see pathSegmentProblem. */
export const pathSegment = z.string().superRefine((v, ctx) => {
  const problem = pathSegmentProblem(v);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});
