/**
 * HTTP server: the request pipeline (guards, routing, authentication, rate limits, faults, the
 * handler, response check, request log). The exchange itself is core/wire.ts's, the guards
 * core/guards.ts's. Handlers live in one file per API area, by generation (project/, branch/, and what
 * hosts both in core/), each generation's listed by generations.ts; control routes in core/control.ts;
 * one router (core.router) serves both.
 */
import type * as http from "node:http";
import { databaseControlRoutes, databaseRoutes } from "./core/databaseRoutes";
import type { ControlRoute, EmulatorCore, Route } from "./core/context";
import { controlRoutes } from "./core/control";
import { bearerOf, isLoopback, mayReadSecrets, requireJson, sourceProblem } from "./core/guards";
import { HttpError, LOCKED_MESSAGE, keyLabel, type ApiContext, type ApiRoute, type Reply } from "./core/http";
import type { RequestLogEntry } from "./core/log";
import { newerNeonReply, todaysAnswer, type Exchange } from "./core/newerNeon";
import { projectRoutes } from "./core/projects";
import { generations } from "./generations";
import { errorBody, parseJsonBody, readBody, requestIdOf, send, toErrorReply } from "./core/wire";

export const API_PREFIX = "/api/v2";
export const CONTROL_PREFIX = "/_emulator";

/** The hosting slice (projects, operations, connection URIs), then each auth generation. */
export const allRoutes: ApiRoute[] = [...projectRoutes, ...databaseRoutes, ...generations.flatMap((g) => g.routes)];

/** The control routes: test tooling, then what stands in for the world outside each generation's API. */
export const allControlRoutes: ControlRoute[] = [...controlRoutes, ...generations.flatMap((g) => g.controlRoutes), ...databaseControlRoutes];

/** Largest path kept in the request log; longer ones are cut (request heads may take 8 KB). */
const LOGGED_PATH_MAX = 256;

function loggedPath(pathname: string): string {
  if (pathname.length <= LOGGED_PATH_MAX) return pathname;
  // A copy, not a slice: V8 keeps a sliced string's whole parent alive (16 KB per entry).
  const head = Buffer.from(pathname.slice(0, LOGGED_PATH_MAX), "utf8").toString("utf8");
  return `${head}...(${pathname.length} characters)`;
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
  let exchange: Exchange = { method, template: null, params: {}, body: undefined };
  try {
    const refused = sourceProblem(core, req);
    if (refused !== undefined) throw new HttpError(403, refused);
    if (pathname !== API_PREFIX && !pathname.startsWith(API_PREFIX + "/")) {
      throw new HttpError(404, `no route for ${method} ${pathname}`);
    }
    const rel = pathname.slice(API_PREFIX.length) || "/";
    const { route, params } = routeOf(core, method, pathname, "route for", (r): r is ApiRoute => !isControl(r));
    template = route.template;
    exchange = { method, template, params, body: undefined };

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
    exchange.body = ctx.body;
    reply = await route.handler(ctx);
    persistWrite(core, method);
    // In newer-Neon mode the check is of what today's Neon would answer: the package's schemas
    // describe that, and what a newer Neon adds is the point of the mode.
    const checked = core.config.newerNeon ? todaysAnswer(reply.body) : { body: reply.body };
    if (core.validateResponses && route.response !== undefined && checked !== undefined) {
      const check = route.response.safeParse(checked.body);
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
  // The one place newer-Neon mode changes an answer (core/newerNeon.ts), errors included.
  if (core.config.newerNeon) reply = newerNeonReply(core.store, exchange, reply);
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
