/**
 * HTTP server: routing, the error envelope, request ids, authentication, rate limits, faults,
 * request log. Handlers live in one file per API area, by generation (project/, branch/, and what
 * hosts both in core/); control routes in core/control.ts; one router (core.router) serves both.
 */
import * as http from "node:http";
import type { Socket } from "node:net";
import { branchControlRoutes } from "./branch/control";
import { branchScopedRoutes } from "./branch/routes";
import { isLoopbackHost } from "../schemas/fields";
import { databaseControlRoutes, databaseRoutes } from "./core/databaseRoutes";
import type { ControlRoute, EmulatorCore, Route } from "./core/context";
import { controlRoutes } from "./core/control";
import { HttpError, LOCKED_MESSAGE, keyLabel, uuid, type ApiContext, type ApiRoute, type Reply } from "./core/http";
import type { RequestLogEntry } from "./core/log";
import { projectRoutes } from "./core/projects";
import { projectControlRoutes } from "./project/control";
import { projectAuthRoutes } from "./project/routes";

export const API_PREFIX = "/api/v2";
export const CONTROL_PREFIX = "/_emulator";
const MAX_BODY = 1024 * 1024;

/** The hosting slice (projects, operations, connection URIs), then each auth generation. */
export const allRoutes: ApiRoute[] = [...projectRoutes, ...databaseRoutes, ...projectAuthRoutes, ...branchScopedRoutes];

/** The control routes: test tooling, then what stands in for the world outside each generation's API. */
export const allControlRoutes: ControlRoute[] = [...controlRoutes, ...projectControlRoutes, ...branchControlRoutes, ...databaseControlRoutes];

function errorBody(status: number, e: HttpError | { message: string; code?: string }, requestId: string) {
  return { status, body: { code: e.code ?? "", message: e.message, request_id: requestId } };
}

function send(res: http.ServerResponse, reply: Reply): void {
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

/** Largest path kept in the request log; longer ones are cut (request heads may take 8 KB). */
const LOGGED_PATH_MAX = 256;

function loggedPath(pathname: string): string {
  if (pathname.length <= LOGGED_PATH_MAX) return pathname;
  // A copy, not a slice: V8 keeps a sliced string's whole parent alive (16 KB per entry).
  const head = Buffer.from(pathname.slice(0, LOGGED_PATH_MAX), "utf8").toString("utf8");
  return `${head}...(${pathname.length} characters)`;
}

/**
 * Why a request must not be served, from where it comes: a Host other than a loopback name with
 * this emulator's port (a DNS-rebound page names its own host), an Origin other than the
 * emulator's own (a page of another site, or a sandboxed one with `null`), or a browser's
 * `Sec-Fetch-Site` saying another site sent it. Undefined when it may be served.
 */
function sourceProblem(core: EmulatorCore, req: http.IncomingMessage): string | undefined {
  const host = (req.headers.host ?? "").toLowerCase();
  if (!hostAllowed(core, host)) {
    return `Host must be a loopback name with this emulator's port (such as 127.0.0.1:${core.port}); requests for other hosts are refused`;
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origin.toLowerCase() !== `http://${host}`) {
    return "requests from web pages of other origins are refused";
  }
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none") {
    return "requests a browser sends on behalf of another site are refused";
  }
  return undefined;
}

function hostAllowed(core: EmulatorCore, host: string): boolean {
  if (host === "") return false;
  if (core.allowedHosts.has(host)) return true;
  let url: URL;
  try {
    url = new URL(`http://${host}`);
  } catch {
    return false;
  }
  if (url.username || url.password || url.pathname !== "/" || `${url.host}` !== host) return false;
  const port = url.port === "" ? 80 : Number(url.port);
  return port === core.port && isLoopbackHost(url.hostname);
}

/** Control writes carry JSON, which a cross-site form or a "simple" request cannot send. */
function requireJson(req: http.IncomingMessage): void {
  const ct = String(req.headers["content-type"] ?? "").toLowerCase().split(";")[0]!.trim();
  if (ct !== "application/json") {
    throw new HttpError(415, "content-type: control writes must be sent as application/json");
  }
}

function bearerOf(req: http.IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  return auth === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1];
}

/** Secrets are served to the holder of the control token or of an API key, to nobody else. */
function mayReadSecrets(core: EmulatorCore, req: http.IncomingMessage): boolean {
  const bearer = bearerOf(req);
  return bearer !== undefined && (bearer === core.controlToken || core.keys.has(bearer));
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
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
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch (e) {
    throw new HttpError(400, `body: invalid JSON (${(e as Error).message})`);
  }
}

function requestIdOf(req: http.IncomingMessage): string {
  const given = req.headers["x-request-id"];
  const v = Array.isArray(given) ? given[0] : given;
  return v !== undefined && /^[\x21-\x7e]{1,200}$/.test(v) ? v : uuid();
}

function isLoopback(socket: Socket): boolean {
  const a = socket.remoteAddress ?? "";
  return a === "127.0.0.1" || a === "::1" || a === "::ffff:127.0.0.1" || a.startsWith("127.");
}

/**
 * Every write that succeeded (API or control) is persisted here, changed or not (writes coalesce and
 * cost little), so no handler has to remember to. Refused writes change nothing and write nothing.
 */
function persistWrite(core: EmulatorCore, method: string): void {
  if (method !== "GET" && method !== "HEAD") core.store.mutated();
}

function isControl(r: Route): r is ControlRoute {
  return "control" in r;
}

/** The route of a path among those of its kind, or the error it gets: 404, or 405 naming the allowed methods. */
function routeOf<R extends Route>(
  core: EmulatorCore,
  method: string,
  pathname: string,
  what: string,
  ofKind: (r: Route) => r is R,
): { route: R; params: Record<string, string> } {
  const m = core.router.match(method, pathname);
  if (m !== null && "allowed" in m) {
    throw new HttpError(405, `method ${method} is not allowed on ${pathname}`, "", { allow: m.allowed.join(", ") });
  }
  if (m === null || !ofKind(m.route)) throw new HttpError(404, `no ${what} ${method} ${pathname}`);
  return { route: m.route, params: m.params };
}

export function createHandler(core: EmulatorCore) {
  return async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const requestId = requestIdOf(req);
    res.setHeader("x-neon-ret-request-id", requestId);
    const method = (req.method ?? "GET").toUpperCase();
    const url = new URL(req.url ?? "/", "http://emulator.invalid");
    const pathname = url.pathname;
    try {
      if (pathname === CONTROL_PREFIX || pathname.startsWith(CONTROL_PREFIX + "/")) {
        let reply: Reply;
        try {
          if (!isLoopback(req.socket)) throw new HttpError(403, "control routes answer loopback clients only");
          const refused = sourceProblem(core, req);
          if (refused !== undefined) throw new HttpError(403, refused);
          if (method !== "GET" && method !== "HEAD") requireJson(req);
          const raw = await readBody(req);
          const body = parseJsonBody(req, raw);
          const { route, params } = routeOf(core, method, pathname, "control route", isControl);
          reply = await route.control({ core, params, query: url.searchParams, body, secretsAllowed: mayReadSecrets(core, req) });
          persistWrite(core, method);
        } catch (e) {
          reply = toErrorReply(e, requestId);
        }
        send(res, reply);
        return;
      }
      await handleApi(core, req, res, method, pathname, url.searchParams, requestId);
    } catch (e) {
      send(res, toErrorReply(e, requestId));
    }
  };
}

function logEntry(
  core: EmulatorCore,
  e: { method: string; path: string; status: number; requestId: string; route?: string | null; started?: number; key?: string | null; fault?: string },
): RequestLogEntry {
  const now = core.clock.now();
  return {
    method: e.method,
    path: e.path,
    route: e.route ?? null,
    status: e.status,
    time: new Date(now).toISOString(),
    duration_ms: Math.max(0, now - (e.started ?? now)),
    request_id: e.requestId,
    key: e.key ?? null,
    ...(e.fault === undefined ? {} : { fault: e.fault }),
  };
}

function toErrorReply(e: unknown, requestId: string): Reply {
  if (e instanceof HttpError) {
    const r = errorBody(e.status, e, requestId);
    return { ...r, headers: e.headers };
  }
  return errorBody(500, { message: `internal emulator error: ${(e as Error)?.message ?? String(e)}` }, requestId);
}

async function handleApi(
  core: EmulatorCore,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  method: string,
  pathname: string,
  query: URLSearchParams,
  requestId: string,
): Promise<void> {
  const started = core.clock.now();
  let account: string | null = null;
  let template: string | null = null;
  let fault: string | undefined;
  const finish = (status: number) => {
    core.log.add(
      logEntry(core, { method, path: loggedPath(pathname), route: template, status, requestId, started, key: account, fault }),
    );
  };

  let reply: Reply;
  let lose = false;
  try {
    const refused = sourceProblem(core, req);
    if (refused !== undefined) throw new HttpError(403, refused);
    if (pathname !== API_PREFIX && !pathname.startsWith(API_PREFIX + "/")) {
      throw new HttpError(404, `no route for ${method} ${pathname}`);
    }
    const rel = pathname.slice(API_PREFIX.length) || "/";
    const { route, params } = routeOf(core, method, pathname, "route for", (r): r is ApiRoute => !isControl(r));
    template = route.template;

    // Authentication: bearer API key, before anything of the body is read.
    const bearer = bearerOf(req);
    if (bearer === undefined) throw new HttpError(401, "authentication required: send Authorization: Bearer <API key>");
    const label = core.keys.get(bearer);
    if (label === undefined) throw new HttpError(401, "authentication failed: unknown API key");
    account = label;

    const rl = core.limiter.take(account, `${method} ${template}`);
    if (!rl.ok) {
      throw new HttpError(429, rl.message ?? "rate limit exceeded", "", { "retry-after": String(rl.retryAfter ?? 1) });
    }

    const decision = core.faults.decide(method, rel, template);
    if (decision.latencyMs > 0) await core.clock.sleep(decision.latencyMs);
    if (decision.kind === "reset") {
      fault = "reset";
      finish(0);
      req.socket.destroy();
      return;
    }
    if (decision.kind === "error") {
      fault = "error";
      throw new HttpError(decision.status ?? 503, "service temporarily unavailable (injected fault)");
    }
    if (decision.kind === "lock") {
      fault = "lock";
      throw new HttpError(423, LOCKED_MESSAGE);
    }
    lose = decision.kind === "lost";

    const raw = await readBody(req);
    const ctx: ApiContext = {
      method,
      path: rel,
      params,
      query,
      body: parseJsonBody(req, raw),
      account,
      store: core.store,
      clock: core.clock,
      config: core.config,
    };
    reply = await route.handler(ctx);
    persistWrite(core, method);
    if (core.validateResponses && route.response !== undefined) {
      const check = route.response.safeParse(reply.body);
      if (!check.success) {
        reply = errorBody(
          500,
          { message: `emulator produced a response that does not match its schema: ${check.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}` },
          requestId,
        );
      }
    }
  } catch (e) {
    reply = toErrorReply(e, requestId);
  }
  if (lose) {
    fault = "lost";
    finish(reply.status);
    req.socket.destroy();
    return;
  }
  finish(reply.status);
  send(res, reply);
}

export { keyLabel, type EmulatorCore };
