/**
 * One method per endpoint of the branch-scoped (Better Auth) generation, each the client's generic
 * `request` on its table entry (src/schemas/endpointsBranch.ts), which gives path, method, schemas
 * and success statuses.
 */
import type { AnyEndpoint, BodyOf, ParamsOf, ResultOf } from "../schemas/endpoint";
import { branchEndpoints as B } from "../schemas/endpointsBranch";

/** The client's one request path: validates params and body, parses the answer by the entry. */
export type Request = <E extends AnyEndpoint>(e: E, params: ParamsOf<E>, body?: BodyOf<E>) => Promise<ResultOf<E>>;

type T = typeof B;

/**
 * One method per entry of the table, named after it: `(params)`, or `(params, body)` where the
 * entry takes a body. Derived from the table, so a new entry needs no method written here.
 */
export type BranchAuthClient = {
  readonly [K in keyof T]: T[K]["request"] extends undefined
    ? (p: ParamsOf<T[K]>) => Promise<ResultOf<T[K]>>
    : (p: ParamsOf<T[K]>, body: BodyOf<T[K]>) => Promise<ResultOf<T[K]>>;
};

export function branchAuthClient(request: Request): BranchAuthClient {
  return Object.fromEntries(Object.entries(B).map(([name, e]) => [name, (p: never, body?: never) => request(e, p, body)])) as unknown as BranchAuthClient;
}
