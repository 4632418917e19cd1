/**
 * What an answer says, for the attempt loop (transport.ts): an error of the one hierarchy
 * (errors.ts) from a failed answer, with secrets redacted and the service's request id, or the
 * parsed body of a successful one.
 */
import type { z } from "zod";
import { errorBody } from "../schemas";
import { NeonApiError, NeonResponseError, type NeonError, type HttpMethod } from "./errors";
import { errorCode, type AttemptResponse } from "./http";
import { formatIssues, type Resolved } from "./options";
import { redactText, serverText } from "./redact";
import { isNotActedStatus, isRetryableStatus } from "./retry";

/** Which attempt of which call an answer is: what its errors name. `requestId` is the call's own. */
export interface AttemptRef {
  method: HttpMethod;
  path: string;
  attempts: number;
  requestId: string;
}

/** The error of a failed answer; the service's request id (header, then body) before the call's own. */
export function apiError(
  hints: Pick<Resolved, "urlHint" | "keyHint">,
  res: AttemptResponse,
  { method, path, attempts, requestId: ourRequestId }: AttemptRef,
  secrets: string[],
  earlierActed: boolean,
): NeonApiError {
  const headerRequestId = headerValue(res.headers["x-neon-ret-request-id"]);
  let code = "";
  let neonMessage = "";
  let bodyRequestId: string | undefined;
  if (res.body.trim() !== "") {
    try {
      const parsed = errorBody.safeParse(JSON.parse(res.body));
      if (parsed.success) {
        code = parsed.data.code;
        neonMessage = parsed.data.message;
        bodyRequestId = parsed.data.request_id;
      }
    } catch {
      // Not JSON (a proxy's HTML page, say): fall back to the status text.
    }
  }
  const acted =
    earlierActed || (method !== "GET" && res.status >= 500 && !isNotActedStatus(res.status));
  return new NeonApiError({
    status: res.status,
    statusText: redactText(serverText(res.statusText, 100), secrets),
    code: redactText(serverText(code, 100), secrets),
    neonMessage: redactText(serverText(neonMessage, 1000), secrets),
    requestId: cleanRequestId(headerRequestId) ?? cleanRequestId(bodyRequestId) ?? ourRequestId,
    method,
    path,
    attempts,
    retryable: isRetryableStatus(res.status),
    mayHaveActed: acted,
    ...(res.status === 404 && hints.urlHint ? { hint: hints.urlHint } : {}),
    ...((res.status === 401 || res.status === 403) && hints.keyHint ? { hint: hints.keyHint } : {}),
  });
}

/** The body of a successful answer, checked against the endpoint's schema. */
export function parseAnswer<T>(schema: z.ZodType<T>, res: AttemptResponse, { method, path, attempts, requestId }: AttemptRef): T {
  const fail = (issues: string[]) => new NeonResponseError({ method, path, attempts, status: res.status, issues, requestId });
  if (res.body.trim() === "") throw fail(["(root): empty body, expected a JSON object"]);
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch {
    throw fail(["(root): body is not valid JSON"]);
  }
  const r = schema.safeParse(withoutNulls(json));
  if (!r.success) throw fail(formatIssues(r.error));
  return r.data;
}

/**
 * The answer with every `null` field of every object left out: Neon answers `null` for what is not
 * set (`phone_number: null` in `GET …/auth/plugins`), where the package's schemas read an absent
 * field. One rule for every answer, so that "not set" is never a failed read: an optional field
 * is then not set, and a required one fails naming the field, as when it is missing.
 */
export function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, withoutNulls(x)]));
}

/** A request id fit for a message: visible ASCII only, at most 100 characters. */
export function cleanRequestId(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const clean = v.replace(/[^\x21-\x7e]/g, "").slice(0, 100);
  return clean === "" ? undefined : clean;
}

export function headerValue(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === "" ? undefined : s;
}

export function lastRequestId(err: NeonError | undefined): string | undefined {
  return err && "requestId" in err ? (err as { requestId?: string }).requestId : undefined;
}

/** A plain Error carrying only the (redacted) message and code of a low-level failure. */
export function redactedCause(original: unknown, secrets: string[]): Error {
  const msg = original instanceof Error ? original.message : String(original);
  const e = new Error(redactText(msg, secrets));
  const code = errorCode(original);
  if (code) (e as Error & { code?: string }).code = code;
  if (original instanceof Error) e.name = original.name;
  return e;
}

/** What to do about a failure that no retry can heal (see isPermanentNetworkCode). */
export function remedy(o: Pick<Resolved, "origin" | "settings">, code: string): string {
  if (/CERT|SSL|TLS/.test(code)) {
    return (
      `the TLS certificate of ${o.origin} was not accepted, and retrying cannot change that: check the ${o.settings.baseUrl} ` +
      "setting, or trust the certificate's authority with NODE_EXTRA_CA_CERTS"
    );
  }
  return `the request cannot be written as HTTP, and retrying cannot change that: check the ${o.settings.apiKey} setting for stray characters`;
}
