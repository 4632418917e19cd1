/**
 * The HTTP exchange itself: reading a request's body (at most 1 MiB, JSON only), its request id,
 * and writing a reply, errors in Neon's envelope `{code, message, request_id}`.
 */
import type * as http from "node:http";
import { HttpError, uuid, type Reply } from "./http";

const MAX_BODY = 1024 * 1024;

export function errorBody(status: number, e: HttpError | { message: string; code?: string }, requestId: string) {
  return { status, body: { code: e.code ?? "", message: e.message, request_id: requestId } };
}

export function toErrorReply(e: unknown, requestId: string): Reply {
  if (e instanceof HttpError) {
    const r = errorBody(e.status, e, requestId);
    return { ...r, headers: e.headers };
  }
  return errorBody(500, { message: `internal emulator error: ${(e as Error)?.message ?? String(e)}` }, requestId);
}

export function send(res: http.ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return;
  for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
  // A body nobody read (a request refused before authentication) is not read afterwards either:
  // the connection closes instead of draining it.
  const req = res.req as http.IncomingMessage | undefined;
  const unread =
    req !== undefined &&
    !req.readableEnded &&
    (req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0);
  if (unread) res.setHeader("connection", "close");
  if (reply.body === undefined || reply.status === 204 || reply.status === 304) {
    res.statusCode = reply.status;
    res.setHeader("content-length", "0");
    res.end();
    return;
  }
  const text = JSON.stringify(reply.body);
  res.statusCode = reply.status;
  res.setHeader("content-type", "application/json; charset=utf-8");
  res.setHeader("content-length", String(Buffer.byteLength(text)));
  res.end(text);
}

export function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new HttpError(413, `body: larger than ${MAX_BODY} bytes`));
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Parses a JSON body; an empty body is `undefined`. */
export function parseJsonBody(req: http.IncomingMessage, raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const ct = String(req.headers["content-type"] ?? "").toLowerCase();
  if (ct === "") throw new HttpError(415, "content-type: missing; send the body as application/json");
  if (!ct.includes("json")) {
    const type = (ct.split(";")[0] ?? "").trim().slice(0, 100).replace(/[^\x21-\x7e]/g, "?");
    throw new HttpError(415, `content-type: ${type} is not supported; send application/json`);
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString("utf8"));
  } catch (e) {
    throw new HttpError(400, `body: invalid JSON (${(e as Error).message})`);
  }
  if (nestedDeeperThan(body, MAX_DEPTH)) throw new HttpError(400, `body: nested deeper than ${MAX_DEPTH} levels`);
  return body;
}

/**
 * How deep a body may nest: no request of the API nests past four levels, and every check after
 * this one walks the body recursively (a 500 once the stack ran out). Neon's own limit is not
 * documented: the number and the 400 are assumptions.
 */
const MAX_DEPTH = 32;

/** Whether `v` nests objects or lists deeper than `max`, found without recursion. */
function nestedDeeperThan(v: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[v, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [x, depth] = next;
    if (x === null || typeof x !== "object") continue;
    if (depth >= max) return true;
    for (const y of Object.values(x)) stack.push([y, depth + 1]);
  }
  return false;
}

export function requestIdOf(req: http.IncomingMessage): string {
  const given = req.headers["x-request-id"];
  const v = Array.isArray(given) ? given[0] : given;
  return v !== undefined && /^[\x21-\x7e]{1,200}$/.test(v) ? v : uuid();
}
