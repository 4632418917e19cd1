/**
 * Redaction of secrets in anything derived from request or response bodies, and of the API key.
 * Used for error messages, `cause`s and debug logs.
 */

/** Body fields whose values are secrets, wherever they appear. */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  "secret_server_key",
  "pub_client_key",
  "client_secret",
  "password",
  "api_key",
  "apikey",
  "authorization",
  "token",
]);

export const REDACTED = "[redacted]";

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

/** The string values of secret fields found anywhere in `value` (to scrub them from free text). */
export function collectSecrets(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const v of value) collectSecrets(v, into);
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (SECRET_FIELDS.has(k.toLowerCase()) && typeof v === "string" && v.length > 0) into.push(v);
      else collectSecrets(v, into);
    }
  }
  return into;
}

/**
 * `text` with every occurrence of each secret replaced by `[redacted]`, plus anything that looks like
 * a bearer credential. Secrets shorter than 4 characters are ignored (they would scrub ordinary words).
 */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length >= 4) out = out.split(s).join(REDACTED);
  }
  return out.replace(/(bearer\s+)[^\s"',;]+/gi, `$1${REDACTED}`);
}
