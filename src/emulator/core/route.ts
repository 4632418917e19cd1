/**
 * Registration of an emulator handler against its endpoint-table entry: path, method, parameter and
 * body rules, success status, response schema and the project lock (423) come from the entry, so
 * the emulator cannot drift from the client on any of them.
 */
import type { z } from "zod";
import type { AnyEndpoint, ParamsOf } from "../../schemas/endpoint";
import { parseParam, parseWith, withoutUnknownFields, type ApiContext, type ApiRoute } from "./http";
import { lockScope, locks, refuseWhileLocked } from "./lock";
import { parseKeepingNewerField } from "./newerNeon";

/** Request of a handler: validated path parameters and body. */
export interface Call<E extends AnyEndpoint> {
  params: ParamsOf<E>;
  body: E["request"] extends z.ZodType ? z.output<E["request"]> : undefined;
}

export type Answer = { status?: number; body?: unknown } | void;

/**
 * An emulator route from a table entry: path, method, parameter and body rules, success status and
 * response schema all come from the entry; the handler only says what happens.
 *
 * Order of checks: path parameters and body (400); for an entry that declares 423, the project and
 * the path's branch (404), then `before` (the route's own lookups, which may wait for the database)
 * and the lock (423, lock.ts); then the handler, which gets what `before` found.
 */
export function route<E extends AnyEndpoint, P = undefined>(
  e: E,
  handler: (ctx: ApiContext, call: Call<E>, found: NoInfer<P>) => Answer | Promise<Answer>,
  before?: (ctx: ApiContext, call: Call<E>) => P | Promise<P>,
): ApiRoute {
  const locked = locks(e);
  return {
    method: e.method,
    template: e.path,
    ...(e.response === undefined ? {} : { response: e.response }),
    handler: async (ctx) => {
      const params: Record<string, string> = {};
      for (const name of e.pathParams) {
        params[name] = parseParam(e.params[name as keyof typeof e.params], name, ctx.params[name]) as string;
      }
      let body: unknown;
      if (e.request !== undefined) {
        // A DELETE whose body is all optional may come without one.
        const input = ctx.body === undefined && e.request.safeParse({}).success ? {} : ctx.body;
        const parse = (given: unknown) => parseWith(e.request!, ctx.config.strict ? given : withoutUnknownFields(e.request!, given));
        // A newer Neon knows the field it added to its answers, so a client may write it back.
        body = ctx.config.newerNeon ? parseKeepingNewerField(input, parse) : parse(input);
      }
      const call = { params, body } as Call<E>;
      const project = locked ? lockScope(ctx, params, body) : undefined;
      const found = before === undefined ? (undefined as P) : await before(ctx, call);
      // Nothing awaits between the lock and the handler: a handler that starts an operation does
      // so before any other request can pass this check.
      if (project !== undefined) refuseWhileLocked(ctx, project);
      const answer = (await handler(ctx, call, found)) ?? {};
      const status = answer.status ?? (e.success[0] as number);
      if (!e.success.includes(status)) throw new Error(`${e.name} answered ${status}, not one of its success statuses`);
      return answer.body === undefined ? { status } : { status, body: answer.body };
    },
  };
}
