/**
 * HTTP server: the request pipeline (guards, routing, authentication, rate limits, faults, the
 * handler, response check, request log). The exchange itself is core/wire.ts's, the guards
 * core/guards.ts's. Handlers live in one file per API area, by generation (project/, branch/, and what
 * hosts both in core/), each generation's listed by generations.ts; control routes in core/control.ts;
 * one router (core.router) serves both.
 */
import type * as http from "node:http";
import { databasesSettled } from "./core/database";
import { databaseControlRoutes, databaseRoutes } from "./core/databaseRoutes";
import type { ControlRoute, EmulatorCore, Route } from "./core/context";
import { controlRoutes } from "./core/control";
import { bearerOf, isLoopback, mayReadSecrets, requireJson, sourceProblem } from "./core/guards";
import { HttpError, LOCKED_MESSAGE, keyLabel, type ApiContext, type ApiRoute, type Reply } from "./core/http";
import { newerNeonReply, todaysAnswer, type Exchange } from "./core/newerNeon";
import { projectRoutes } from "./core/projects";
import { jwksRoutes } from "./core/jwks";
import { generations } from "./generations";
import { errorBody, parseJsonBody, readBody, requestIdOf, send, toErrorReply } from "./core/wire";

export const API_PREFIX = "/api/v2";
export const CONTROL_PREFIX = "/_emulator";

/** The hosting slice (projects, operations, connection URIs), then each auth generation. */
export const allRoutes: ApiRoute[] = [...projectRoutes, ...databaseRoutes, ...jwksRoutes, ...generations.flatMap((g) => g.routes)];

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
 * cost little), so no handler has to remember to; its answer waits until the branch databases show
 * it (`databasesSettled`). Refused writes change nothing and write nothing.
 */
async function persistWrite(core: EmulatorCore, method: string): Promise<void> {
  if (method === "GET" || method === "HEAD") return;
  core.store.mutated();
  await databasesSettled(core.store);
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

/** One request on its way through the pipeline. */
interface Incoming {
  core: EmulatorCore;
  req: http.IncomingMessage;
  res: http.ServerResponse;
  method: string;
  url: URL;
  requestId: string;
}

/** What an API request met on its way: for its request log entry, and for newer-Neon mode. */
interface ApiTrace {
  started: number;
  /** The label of the API key, once it was accepted. */
  account: string | null;
  fault?: string;
  /** An injected `lost` fault: the answer is made and logged, and the connection dropped instead. */
  lose: boolean;
  exchange: Exchange;
}

export function createHandler(core: EmulatorCore) {
  return async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const requestId = requestIdOf(req);
    res.setHeader("x-neon-ret-request-id", requestId);
    const x: Incoming = { core, req, res, method: (req.method ?? "GET").toUpperCase(), url: new URL(req.url ?? "/", "http://emulator.invalid"), requestId };
    const pathname = x.url.pathname;
    try {
      const control = pathname === CONTROL_PREFIX || pathname.startsWith(CONTROL_PREFIX + "/");
      if (control && core.config.control) send(res, await controlReply(x));
      else await handleApi(x);
    } catch (e) {
      send(res, toErrorReply(e, requestId));
    }
  };
}

async function controlReply({ core, req, method, url, requestId }: Incoming): Promise<Reply> {
  try {
    if (!isLoopback(req.socket)) throw new HttpError(403, "control routes answer loopback clients only");
    const refused = sourceProblem(core, req);
    if (refused !== undefined) throw new HttpError(403, refused);
    if (method !== "GET" && method !== "HEAD") requireJson(req);
    const raw = await readBody(req);
    const body = parseJsonBody(req, raw);
    const { route, params } = routeOf(core, method, url.pathname, "control route", isControl);
    const reply = await route.control({ core, params, query: url.searchParams, body, secretsAllowed: mayReadSecrets(core, req) });
    await persistWrite(core, method);
    return reply;
  } catch (e) {
    return toErrorReply(e, requestId);
  }
}

/** The request log's entry of an API request (status 0: the connection was reset). */
function logApi(x: Incoming, trace: ApiTrace, status: number): void {
  const now = x.core.clock.now();
  x.core.log.add({
    method: x.method,
    path: loggedPath(x.url.pathname),
    route: trace.exchange.template,
    status,
    time: new Date(now).toISOString(),
    duration_ms: Math.max(0, now - trace.started),
    request_id: x.requestId,
    key: trace.account,
    ...(trace.fault === undefined ? {} : { fault: trace.fault }),
    ...(trace.exchange.body !== undefined && x.core.config.logBodies.includes(trace.exchange.template ?? "") ? { body: trace.exchange.body } : {}),
  });
}

async function handleApi(x: Incoming): Promise<void> {
  const { core, method } = x;
  const trace: ApiTrace = { started: core.clock.now(), account: null, lose: false, exchange: { method, template: null, params: {}, body: undefined, query: x.url.searchParams } };
  let reply: Reply | undefined;
  try {
    reply = await answerApi(x, trace);
    // An injected reset: the connection is gone, and the request logged.
    if (reply === undefined) return;
  } catch (e) {
    reply = toErrorReply(e, x.requestId);
  }
  // The one place newer-Neon mode changes an answer (core/newerNeon.ts), errors included.
  if (core.config.newerNeon) reply = newerNeonReply(core.store, trace.exchange, reply);
  if (trace.lose) trace.fault = "lost";
  logApi(x, trace, reply.status);
  if (trace.lose) x.req.socket.destroy();
  else send(x.res, reply);
}

/** The API's answer in the order of the checks (README, "Errors"); undefined after an injected reset. */
async function answerApi(x: Incoming, trace: ApiTrace): Promise<Reply | undefined> {
  const { core, req, method } = x;
  const pathname = x.url.pathname;
  const refused = sourceProblem(core, req);
  if (refused !== undefined) throw new HttpError(403, refused);
  if (pathname !== API_PREFIX && !pathname.startsWith(API_PREFIX + "/")) {
    throw new HttpError(404, `no route for ${method} ${pathname}`);
  }
  const rel = pathname.slice(API_PREFIX.length) || "/";
  const { route, params } = routeOf(core, method, pathname, "route for", (r): r is ApiRoute => !isControl(r));
  trace.exchange = { method, template: route.template, params, body: undefined, query: x.url.searchParams };
  trace.account = accountOf(core, req);
  const rl = core.limiter.take(trace.account, `${method} ${route.template}`);
  if (!rl.ok) {
    throw new HttpError(429, rl.message ?? "rate limit exceeded", "", { "retry-after": String(rl.retryAfter ?? 1) });
  }
  if ((await injectFault(x, trace, rel)) === "reset") return undefined;
  const raw = await readBody(req);
  const ctx: ApiContext = {
    method,
    path: rel,
    params,
    query: x.url.searchParams,
    body: parseJsonBody(req, raw),
    account: trace.account,
    store: core.store,
    clock: core.clock,
    config: core.config,
  };
  trace.exchange.body = ctx.body;
  const reply = await route.handler(ctx);
  await persistWrite(core, method);
  return checkedReply(x, route, reply);
}

/** Authentication: the label of the request's bearer API key, before anything of the body is read. */
function accountOf(core: EmulatorCore, req: http.IncomingMessage): string {
  const bearer = bearerOf(req);
  if (bearer === undefined) throw new HttpError(401, "authentication required: send Authorization: Bearer <API key>");
  const label = core.keys.get(bearer);
  if (label === undefined) throw new HttpError(401, "authentication failed: unknown API key");
  return label;
}

/** The fault decided for this request, if any: injected latency, then a reset, an error, a lock, or a lost answer (noted in `trace`). */
async function injectFault(x: Incoming, trace: ApiTrace, rel: string): Promise<"reset" | undefined> {
  const { core, method } = x;
  const decision = core.faults.decide(method, rel, trace.exchange.template as string);
  if (decision.latencyMs > 0) await core.clock.sleep(decision.latencyMs);
  if (decision.kind === "reset") {
    trace.fault = "reset";
    logApi(x, trace, 0);
    x.req.socket.destroy();
    return "reset";
  }
  if (decision.kind === "error") {
    trace.fault = "error";
    throw new HttpError(decision.status ?? 503, "service temporarily unavailable (injected fault)");
  }
  if (decision.kind === "lock") {
    trace.fault = "lock";
    throw new HttpError(423, LOCKED_MESSAGE);
  }
  trace.lose = decision.kind === "lost";
  return undefined;
}

/** The reply, or a 500 when it does not match its route's response schema (validateResponses). */
function checkedReply(x: Incoming, route: ApiRoute, reply: Reply): Reply {
  const { core } = x;
  // In newer-Neon mode the check is of what today's Neon would answer: the package's schemas
  // describe that, and what a newer Neon adds is the point of the mode.
  const checked = core.config.newerNeon ? todaysAnswer(reply.body) : { body: reply.body };
  if (!core.validateResponses || route.response === undefined || checked === undefined) return reply;
  const check = route.response.safeParse(checked.body);
  if (check.success) return reply;
  return errorBody(
    500,
    { message: `emulator produced a response that does not match its schema: ${check.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}` },
    x.requestId,
  );
}

export { keyLabel, type EmulatorCore };
