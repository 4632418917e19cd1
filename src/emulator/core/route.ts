/**
 * Registration of an emulator handler against its endpoint-table entry: path, method, parameter and
 * body rules, success status and response schema come from the entry, so the emulator cannot drift
 * from the client on any of them.
 */
import type { z } from "zod";
import type { AnyEndpoint, ParamsOf } from "../../schemas/endpoint";
import { parseParam, parseWith, withoutUnknownFields, type ApiContext, type ApiRoute } from "./http";

/** Request of a handler: validated path parameters and body. */
export interface Call<E extends AnyEndpoint> {
  params: ParamsOf<E>;
  body: E["request"] extends z.ZodType ? z.output<E["request"]> : undefined;
}

export type Answer = { status?: number; body?: unknown } | void;

/**
 * An emulator route from a table entry: path, method, parameter and body rules, success status and
 * response schema all come from the entry; the handler only says what happens.
 */
export function route<E extends AnyEndpoint>(e: E, handler: (ctx: ApiContext, call: Call<E>) => Answer | Promise<Answer>): ApiRoute {
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
        body = parseWith(e.request, ctx.config.strict ? input : withoutUnknownFields(e.request, input));
      }
      const answer = (await handler(ctx, { params, body } as Call<E>)) ?? {};
      const status = answer.status ?? (e.success[0] as number);
      if (!e.success.includes(status)) throw new Error(`${e.name} answered ${status}, not one of its success statuses`);
      return answer.body === undefined ? { status } : { status, body: answer.body };
    },
  };
}
