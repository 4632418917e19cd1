/**
 * One HTTP attempt over an undici dispatcher. Uses the dispatch handler API directly so that we know
 * whether undici finished writing the request (`onRequestSent`) before a failure: that is what decides
 * whether a POST may be replayed (retry.ts).
 */
import type { Dispatcher } from "undici";
import type { IncomingHttpHeaders } from "node:http";

export interface AttemptRequest {
  origin: string;
  /** Full path including the base URL's path prefix. */
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  signal: AbortSignal;
  /** Largest accepted response body in bytes. */
  maxBodyBytes?: number;
}

export interface AttemptResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A failure with no complete response; `requestSent` tells whether undici wrote the whole request. */
export class AttemptNetworkError extends Error {
  override readonly name = "AttemptNetworkError";
  constructor(
    readonly original: unknown,
    readonly requestSent: boolean,
    readonly aborted: boolean,
  ) {
    super(original instanceof Error ? original.message : String(original));
  }
}

export function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 4 && e && typeof e === "object"; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function dispatchOptions(req: AttemptRequest): Dispatcher.DispatchOptions {
  return {
    origin: req.origin,
    path: req.path,
    method: req.method as Dispatcher.HttpMethod,
    headers: req.headers,
    body: req.body ?? null,
    headersTimeout: req.headersTimeoutMs,
    bodyTimeout: req.bodyTimeoutMs,
    // Never let undici pipeline a write behind another request on one socket.
    idempotent: req.method === "GET",
    blocking: true,
  };
}

export function sendAttempt(dispatcher: Dispatcher, req: AttemptRequest): Promise<AttemptResponse> {
  const maxBody = req.maxBodyBytes ?? 8 * 1024 * 1024;
  return new Promise<AttemptResponse>((resolve, reject) => {
    let settled = false;
    let sent = false;
    let controller: Dispatcher.DispatchController | undefined;
    let status = 0;
    let statusText = "";
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let size = 0;

    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      req.signal.removeEventListener("abort", onAbort);
      fn();
    };
    const fail = (err: unknown, aborted = false) =>
      finish(() => reject(new AttemptNetworkError(err, sent, aborted || req.signal.aborted)));
    const onAbort = () => {
      const reason: unknown = req.signal.reason;
      controller?.abort(reason instanceof Error ? reason : new Error("aborted"));
      fail(reason, true);
    };
    if (req.signal.aborted) {
      fail(req.signal.reason, true);
      return;
    }
    req.signal.addEventListener("abort", onAbort, { once: true });

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (settled) c.abort(new Error("aborted"));
      },
      onRequestSent() {
        sent = true;
      },
      onResponseStart(_c, statusCode, h, message) {
        sent = true;
        status = statusCode;
        headers = h;
        statusText = message ?? "";
      },
      onResponseData(c, chunk) {
        size += chunk.length;
        if (size > maxBody) {
          c.abort(new Error(`response body larger than ${maxBody} bytes`));
          return;
        }
        chunks.push(chunk);
      },
      onResponseEnd() {
        finish(() => resolve({ status, statusText, headers, body: Buffer.concat(chunks).toString("utf8") }));
      },
      onResponseError(_c, err) {
        fail(err);
      },
    };

    try {
      dispatcher.dispatch(dispatchOptions(req), handler);
    } catch (err) {
      fail(err);
    }
  });
}
