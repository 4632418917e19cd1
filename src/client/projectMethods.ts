/**
 * The client's methods of the project API (the hosting slice, the project-level generation, the
 * JWKS entries), derived from the endpoint table as the branch half is (branchAuth.ts): one per
 * entry, named after it, each the client's generic `request` on its entry. They keep the
 * positional form these methods have had since 0.1.0: the path parameters in the order of the
 * path, then the body where the entry takes one (an entry with query parameters takes its
 * parameters as one object), resolving to the entry's `answer` field where it names one. Methods
 * with behaviour of their own (waits, deadlines, secrets to remember) are written in client.ts and
 * take the place of these.
 */
import type { AnyEndpoint, BodyOf, ParamsOf, ResultOf } from "../schemas/endpoint";
import type { Request } from "./branchAuth";

/** One string per `{param}` of a path template, in order. */
type PathArgs<P extends string> = P extends `${string}{${string}}${infer R}` ? [string, ...PathArgs<R>] : [];

type ArgsOf<E> = E extends { path: infer P extends string; query: infer Q; request: infer B }
  ? [...(Q extends undefined ? PathArgs<P> : [params: ParamsOf<E>]), ...(B extends undefined ? [] : [body: BodyOf<E>])]
  : never;

type AnswerOf<E> = E extends { answer: infer K extends keyof ResultOf<E> } ? ResultOf<E>[K] : ResultOf<E>;

/** One method per entry of a table, named after it; a new entry needs no method written. */
export type TableMethods<T> = { readonly [K in keyof T]: (...args: ArgsOf<T[K]>) => Promise<AnswerOf<T[K]>> };

/** The method of one entry, for an object whose `request` sends it. */
export function tableMethod(e: AnyEndpoint): (this: { request: Request }, ...args: unknown[]) => Promise<unknown> {
  const bodyAt = e.query === undefined ? e.pathParams.length : 1;
  return async function (this: { request: Request }, ...args: unknown[]) {
    const params = e.query === undefined ? Object.fromEntries(e.pathParams.map((n, i) => [n, args[i]])) : args[0];
    const res = await this.request(e, params as never, args[bodyAt] as never);
    return e.answer === undefined ? res : (res as Record<string, unknown>)[e.answer];
  };
}
