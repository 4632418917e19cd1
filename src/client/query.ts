/** The query string of a call to an endpoint-table entry that declares query parameters. */
import type { AnyEndpoint } from "../schemas/endpoint";
import { NeonConfigError } from "./errors";

/**
 * `?a=1&b=2` from the entry's query parameters found in `given` (checked by the entry's query
 * schema; the path parameters in `given` are left out), or "" for an entry without a query.
 */
export function queryString(endpoint: AnyEndpoint, given: Record<string, unknown>): string {
  if (endpoint.query === undefined) return "";
  const names = Object.keys(endpoint.query.shape);
  const picked = Object.fromEntries(names.filter((n) => given?.[n] !== undefined).map((n) => [n, given[n]]));
  const r = endpoint.query.safeParse(picked);
  if (!r.success) {
    const why = r.error.issues.map((i) => `${i.path.map(String).join(".") || "query"}: ${i.message}`).join("; ");
    throw new NeonConfigError(`invalid query parameter for ${endpoint.method} ${endpoint.path}: ${why}`);
  }
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(r.data as Record<string, unknown>)) if (v !== undefined) q.set(k, String(v));
  const text = q.toString();
  return text === "" ? "" : `?${text}`;
}
