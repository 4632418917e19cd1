/**
 * Redaction of secrets in anything derived from request or response bodies, and of the API key.
 * Used for error messages, `cause`s and debug logs, by the client and by the resources' runtime.
 */
import { ENDPOINTS } from "../schemas/endpoints";
import { programName, secretLeafNames, stripUnsafeText } from "../schemas/fields";
import { REDACTED } from "../schemas/redact";

export { REDACTED };

/** Secret names that are no body field of the API: the credential itself, and outputs made of secrets. */
const CREDENTIALS = ["api_key", "apiKey", "authorization", "token", "envVars"];

/**
 * Fields whose values are secrets, wherever they appear (compared in lower case): every body field
 * the endpoint table marks secret (`secretField` in schemas/fields.ts), under its wire name and its
 * program name (camelCase), and the credentials.
 */
export const SECRET_FIELDS: ReadonlySet<string> = (() => {
  const names = new Set<string>(CREDENTIALS);
  for (const e of ENDPOINTS) for (const s of [e.request, e.response]) if (s) secretLeafNames(s, names);
  return new Set([...names].flatMap((n) => [n.toLowerCase(), programName(n).toLowerCase()]));
})();

/** A deep copy of `value` with the values of secret fields replaced by `[redacted]`. */
export function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_FIELDS.has(k.toLowerCase()) ? REDACTED : redactValue(v);
    }
    return out;
  }
  return value;
}

/** Every string inside `value` (the leaves of a secret field's value, such as `envVars`). */
export function leaves(value: unknown, into: string[] = []): string[] {
  if (typeof value === "string") {
    if (value !== "") into.push(value);
  } else if (Array.isArray(value)) {
    for (const v of value) leaves(v, into);
  } else if (value !== null && typeof value === "object") {
    for (const v of Object.values(value)) leaves(v, into);
  }
  return into;
}

/** The string values of secret fields found anywhere in `value` (to scrub them from free text). */
export function collectSecrets(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const v of value) collectSecrets(v, into);
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (SECRET_FIELDS.has(k.toLowerCase())) leaves(v, into);
      else collectSecrets(v, into);
    }
  }
  return into;
}

// Secrets this process has seen (inputs, outputs, request and response bodies, the API key):
// one may come back in an answer to a request that never carried it (an old client secret, a
// key set issued earlier), so every message is scrubbed of all of them, not only of the
// request's own.
const known = new Set<string>();
const KNOWN_LIMIT = 10_000;

/** Remembers secret values so that `redactText` scrubs them from any later text of this process. */
export function rememberSecrets(values: Iterable<string>): void {
  for (const v of values) {
    if (typeof v !== "string" || v === "" || known.has(v)) continue;
    if (known.size >= KNOWN_LIMIT) known.delete(known.values().next().value as string);
    known.add(v);
  }
}

/** Forgets remembered secrets; for tests. */
export function forgetSecrets(): void {
  known.clear();
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * `text` with every occurrence of each secret (given, or remembered by `rememberSecrets`)
 * replaced by `[redacted]`, plus anything that looks like a bearer credential. Secrets of any
 * length are scrubbed; one shorter than 4 characters only where it stands alone (not inside a
 * longer word), so that a 2-character password does not blank every such pair of letters.
 */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let out = text;
  const all = [...new Set([...secrets, ...known])].filter((s) => typeof s === "string" && s !== "");
  // Longest first, so that a secret containing another is scrubbed whole.
  all.sort((a, b) => b.length - a.length);
  for (const s of all) {
    if (!out.includes(s)) continue;
    out =
      s.length >= 4
        ? out.split(s).join(REDACTED)
        : out.replace(new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(s)}(?![A-Za-z0-9])`, "g"), REDACTED);
  }
  return out.replace(/(bearer\s+)[^\s"',;]+/gi, `$1${REDACTED}`);
}

/**
 * Text that came from a server (an error message, a code, a status text) made fit for a terminal:
 * control and layout characters (ANSI escapes, CR/LF, bidi overrides) become spaces, runs of
 * spaces one, and the result is cut to `max` characters.
 */
export function serverText(text: string, max: number): string {
  const clean = stripUnsafeText(text).replace(/ {2,}/g, " ").trim();
  return clean.length > max ? `${clean.slice(0, max)}...` : clean;
}
