/**
 * What one entry of the endpoint table holds. The client calls an entry, the emulator registers a
 * handler against it and the contract tests compare it with Neon's OpenAPI document, so the path,
 * method, body schemas and statuses of an endpoint are written once, here.
 */
import type { z } from "zod";
import { authProvider, branchId, databaseName, oauthProviderId, projectId } from "./common";
import { pathSegment } from "./fields";
import { branchOAuthProviderId } from "./branchAuth";

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE" | "PUT";

/**
 * `hosting`: the slice of the project API that hosts auth (projects, branches, operations);
 * `project`: the project-level auth endpoints (deprecated by Neon, still served);
 * `branch`: the branch-scoped Better Auth generation.
 */
export type Generation = "hosting" | "project" | "branch";

/** Names of the `{param}` segments of a path template, as a union of string literals. */
export type ParamNames<P extends string> = P extends `${string}{${infer N}}${infer R}` ? N | ParamNames<R> : never;

/**
 * Where the live service differs from the OpenAPI
 * document of `@neondatabase/api-client` 2.7.3. The comparison test allows exactly these.
 */
export type Deviation =
  /** The service answers `success[0]`; the document names `document`. */
  | { kind: "status"; document: readonly number[]; why: string }
  /** Newer than the 2.7.3 document: the comparison test asserts that the document still lacks it. */
  | { kind: "not-in-document"; why: string }
  /** Fields the document requires in the request body that the service accepts missing. */
  | { kind: "request-optional"; fields: readonly string[]; why: string }
  /** Fields the document requires in the response body that the service leaves out. */
  | { kind: "response-optional"; fields: readonly string[]; why: string };

export interface Endpoint<
  Path extends string = string,
  Req extends z.ZodType | undefined = z.ZodType | undefined,
  Res extends z.ZodType | undefined = z.ZodType | undefined,
  Qry extends z.ZodObject | undefined = z.ZodObject | undefined,
  Ans extends string | undefined = string | undefined,
> {
  /** Unique; also the name of the client method that calls it. */
  readonly name: string;
  readonly generation: Generation;
  readonly method: HttpMethod;
  /** Relative to the base URL (`…/api/v2`). */
  readonly path: Path;
  /** The `{param}` names of `path`, in order. */
  readonly pathParams: readonly ParamNames<Path>[];
  /** The rule each path parameter must meet (client before sending, emulator on receipt). */
  readonly params: { readonly [K in ParamNames<Path>]: z.ZodType<string> };
  /** JSON body; undefined for endpoints without one. */
  readonly request: Req;
  /** Query parameters (a strict object schema); undefined for endpoints without any. */
  readonly query: Qry;
  /** JSON body of a success; undefined for endpoints that answer without one. */
  readonly response: Res;
  /** Success statuses: the first is what the service sends (and the emulator), the rest are accepted too. */
  readonly success: readonly number[];
  /** Error statuses particular to this endpoint (beyond COMMON_ERRORS), and when they happen. */
  readonly errors: Readonly<Record<number, string>>;
  readonly deviations: readonly Deviation[];
  /**
   * The field of a success body that the client's method of a project API entry resolves to, where
   * the rest is Neon's envelope (`{project}`, `{branches}`, `{data}`); undefined: the whole body.
   */
  readonly answer: Ans;
}

export type AnyEndpoint = Endpoint<string, z.ZodType | undefined, z.ZodType | undefined, z.ZodObject | undefined>;

/** Statuses any endpoint may answer, so entries do not repeat them. */
export const COMMON_ERRORS: Readonly<Record<number, string>> = {
  400: "a body or path parameter breaks its rule (the message names the field)",
  401: "missing or unknown API key",
  404: "unknown project (or one the key cannot see)",
  429: "over the rate limit",
  503: "temporarily unavailable; safe to retry",
};

/** Statuses a write to a project's auth may meet while another operation runs on the project. */
export const LOCKED = { 423: "another operation runs on the project; safe to retry" } as const;

const DEFAULT_PARAMS: Record<Generation, Record<string, z.ZodType<string>>> = {
  hosting: { project_id: projectId, branch_id: branchId, operation_id: pathSegment, jwks_id: pathSegment },
  project: { project_id: projectId, auth_user_id: pathSegment, oauth_provider_id: oauthProviderId, auth_provider: authProvider },
  branch: { project_id: projectId, branch_id: branchId, auth_user_id: pathSegment, oauth_provider_id: branchOAuthProviderId, client_id: pathSegment, database_name: databaseName },
};

export function paramNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
}

/** Builds an entry; path parameters and their rules come from the template and the generation. */
export function endpoint<
  const Path extends string,
  Req extends z.ZodType | undefined = undefined,
  Res extends z.ZodType | undefined = undefined,
  Qry extends z.ZodObject | undefined = undefined,
  const Ans extends string | undefined = undefined,
>(def: {
  name: string;
  generation: Generation;
  method: HttpMethod;
  path: Path;
  request?: Req;
  query?: Qry;
  response?: Res;
  success: readonly number[];
  errors?: Record<number, string>;
  deviations?: readonly Deviation[];
  answer?: Ans;
}): Endpoint<Path, Req, Res, Qry, Ans> {
  const names = paramNames(def.path);
  const params: Record<string, z.ZodType<string>> = {};
  for (const n of names) {
    const rule = DEFAULT_PARAMS[def.generation][n];
    if (rule === undefined) throw new Error(`endpoint ${def.name}: no rule for path parameter ${n}`);
    params[n] = rule;
  }
  return {
    name: def.name,
    generation: def.generation,
    method: def.method,
    path: def.path,
    pathParams: names as ParamNames<Path>[],
    params: params as Endpoint<Path, Req, Res, Qry, Ans>["params"],
    request: def.request as Req,
    query: def.query as Qry,
    response: def.response as Res,
    success: def.success,
    errors: def.errors ?? {},
    deviations: def.deviations ?? [],
    answer: def.answer as Ans,
  };
}

/** Path parameters a call needs, and the entry's query parameters when it has some. */
export type ParamsOf<E> = E extends Endpoint<infer P, z.ZodType | undefined, z.ZodType | undefined>
  ? { [K in ParamNames<P>]: string } & (E extends { query: infer Q extends z.ZodType } ? z.input<Q> : unknown)
  : never;
/** What a caller passes as the body (before defaults). */
export type BodyOf<E> = E extends Endpoint<string, infer Q, z.ZodType | undefined> ? (Q extends z.ZodType ? z.input<Q> : undefined) : never;
/** What a successful call resolves to. */
export type ResultOf<E> = E extends Endpoint<string, z.ZodType | undefined, infer S> ? (S extends z.ZodType ? z.output<S> : void) : never;

/** Fills a path template; each value is percent-encoded as one segment. */
export function fillPath(path: string, params: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, n: string) => {
    const v = params[n];
    if (v === undefined) throw new Error(`missing path parameter ${n}`);
    return encodeURIComponent(v);
  });
}
