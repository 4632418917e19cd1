/**
 * The Neon API client: one typed method per endpoint, each derived from its entry of the endpoint
 * table (src/schemas/endpoints*.ts: path, method, schemas, success statuses) over `request`, but
 * for the few with behaviour of their own, written here. The attempt loop is transport.ts,
 * operation waits operations.ts; each provider process makes its one client in provider/context.ts.
 */
import type { z } from "zod";
import type * as s from "../schemas";
import { listKeyOf, NEXT_PAGE } from "../schemas/common";
import { fillPath, type AnyEndpoint, type BodyOf, type ParamsOf, type ResultOf } from "../schemas/endpoint";
import { hostingEndpoints as H, projectEndpoints as P } from "../schemas/endpointsProject";
import { jwksEndpoints as J } from "../schemas/jwks";
import type { CreateBranchResponse, RestoreBranchRequest, RestoreBranchResponse } from "../schemas/projects";
import { DomainBatcher, BATCHED_ENDPOINTS, type DomainsBody } from "./batch";
import { branchAuthClient, type BranchAuthClient } from "./branchAuth";
import { NeonConfigError, NeonResponseError } from "./errors";
import { tableMethod, type TableMethods } from "./projectMethods";
import { waitForOperations } from "./operations";
import { formatIssues, resolveOptions, type ClientOptions, type Resolved, type WaitOptions } from "./options";
import { queryString } from "./query";
import { rememberSecrets } from "./redact";
import { Transport } from "./transport";

export { DEFAULT_BASE_URL, formatIssues, hashKey, type AttemptTimeouts, type ClientOptions, type WaitEvent, type WaitKind, type WaitOptions, type WriteEvent } from "./options";

/** The project API's entries, each a method of the client (projectMethods.ts). */
const PROJECT_TABLE = { ...H, ...P, ...J };
type ProjectTable = typeof PROJECT_TABLE;

/** The client's own members, and the methods with behaviour of their own, written below in place of the table's. */
interface OwnMethods {
  readonly baseUrl: string;
  /** `POST /projects`; waits for the operations the response carries. */
  createProject(body?: { name?: string }): Promise<s.CreateProjectResponse>;
  /** `POST /projects/{project_id}/branches`; waits for the operations the response carries. */
  createBranch(projectId: string, branch?: { name?: string; parent_id?: string }): Promise<CreateBranchResponse>;
  /**
   * `POST /projects/{project_id}/branches/{branch_id}/restore`: a reset from the parent (the parent
   * as `source_branch_id`) or an instant restore (the branch itself and a time); it overwrites the
   * branch's Neon Auth too. Waits for the operations the response carries.
   */
  restoreBranch(projectId: string, branchId: string, body: RestoreBranchRequest): Promise<RestoreBranchResponse>;
  getOperation(projectId: string, operationId: string): Promise<s.Operation>;
  /** Waits until every operation is finished/skipped/cancelled; throws NeonOperationError otherwise. */
  waitForOperations(operations: readonly s.Operation[], opts?: WaitOptions): Promise<void>;
  /** The ownership transfer's URL, which carries a one-time code: kept out of every log and error as a secret. */
  transferOwnership(req: s.TransferOwnershipRequest): Promise<{ url: string }>;
  /**
   * Calls any entry of the endpoint table (src/schemas/endpoints.ts): path parameters and body are
   * checked by the entry's rules, the answer by its response schema and success statuses.
   */
  request<E extends AnyEndpoint>(endpoint: E, params: ParamsOf<E>, body?: BodyOf<E>): Promise<ResultOf<E>>;
  /** The branch-scoped (Better Auth) generation, one method per endpoint. */
  readonly branchAuth: BranchAuthClient;
  /** Closes the connection pool if the client created it (no-op for an injected dispatcher). */
  close(): Promise<void>;
}

/**
 * One typed method per endpoint of the table: the project API's derived from its entries
 * (projectMethods.ts) but for those with behaviour of their own, the branch-scoped generation's
 * under `branchAuth`.
 */
export interface NeonClient extends Omit<TableMethods<ProjectTable>, keyof OwnMethods>, OwnMethods {}

/**
 * How the project-level methods have named their arguments since 0.1.0: errors about a path
 * parameter of those generations use these names (the branch-scoped ones use the parameter's own).
 */
const ARGUMENT_NAMES: Record<string, string> = {
  auth_user_id: "userId",
  oauth_provider_id: "providerId",
  operation_id: "operationId",
  branch_id: "branchId",
};

function paramError(endpoint: AnyEndpoint, name: string, error: z.ZodError): NeonConfigError {
  const problems = error.issues.map((i) => i.message).join("; ");
  if (endpoint.generation === "branch") {
    return new NeonConfigError(`invalid path parameter ${name} for ${endpoint.method} ${endpoint.path}: ${problems}`);
  }
  if (name === "project_id") return new NeonConfigError(`invalid project id: ${problems}`);
  const arg = ARGUMENT_NAMES[name];
  if (arg === undefined) return new NeonConfigError(`invalid request for ${endpoint.method} ${endpoint.path}: ${formatIssues(error).join("; ")}`);
  return new NeonConfigError(`${arg} ${problems}; nothing was sent`);
}

function validate<S extends z.ZodType>(endpoint: AnyEndpoint, schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new NeonConfigError(`invalid request for ${endpoint.method} ${endpoint.path}: ${formatIssues(r.error).join("; ")}`);
  return r.data;
}

// The table's methods, set on the prototype below the class.
interface NeonHttpClient extends Omit<TableMethods<ProjectTable>, keyof OwnMethods> {}

class NeonHttpClient implements NeonClient {
  readonly baseUrl: string;
  readonly branchAuth = branchAuthClient((e, params, body) => this.request(e, params, body));
  readonly #o: Resolved;
  readonly #transport: Transport;
  readonly #batches: DomainBatcher;

  constructor(options: ClientOptions) {
    this.#o = resolveOptions(options);
    this.baseUrl = this.#o.baseUrl;
    this.#transport = new Transport(this.#o);
    // A batch holds engine steps that already started: it is paced before new requests.
    this.#batches = new DomainBatcher(this.#o.clock, (e, params, body) => this.#call(e, { params, body, query: "" }, { urgent: true }), this.#o.batch);
  }

  // ---- the methods with behaviour of their own (the others come from the table, below the class) --
  async createProject(body?: { name?: string }) { return this.#waited(await this.request(H.createProject, {}, { project: body ?? {} })); }
  async createBranch(projectId: string, branch?: { name?: string; parent_id?: string }) { return this.#waited(await this.request(H.createBranch, { project_id: projectId }, { branch: branch ?? {} })); }
  async restoreBranch(projectId: string, branchId: string, body: RestoreBranchRequest) { return this.#waited(await this.request(H.restoreBranch, { project_id: projectId, branch_id: branchId }, body)); }
  async getOperation(projectId: string, operationId: string, deadlineMs?: number) { return (await this.#send(H.getOperation, { project_id: projectId, operation_id: operationId }, undefined, deadlineMs)).operation; }

  async waitForOperations(operations: readonly s.Operation[], opts?: WaitOptions): Promise<void> {
    const poller = { clock: this.#o.clock, deadlineMs: this.#o.deadlineMs, apiKey: this.#o.apiKey, getOperation: this.getOperation.bind(this), onWait: this.#o.onWait };
    await waitForOperations(poller, operations, opts?.timeoutMs ?? this.#o.operationTimeoutMs);
  }

  async transferOwnership(req: s.TransferOwnershipRequest): Promise<{ url: string }> {
    const res = await this.request(P.transferOwnership, {}, req);
    // The URL carries a one-time code: as secret as a password, though its field is not named so.
    rememberSecrets([res.url, ...new URL(res.url, "https://x.invalid").searchParams.values()]);
    return res;
  }

  async request<E extends AnyEndpoint>(endpoint: E, params: ParamsOf<E>, body?: BodyOf<E>): Promise<ResultOf<E>> {
    if (!BATCHED_ENDPOINTS.has(endpoint)) return this.#send(endpoint, params, body);
    // Checked alone first: a bad domain fails its own caller before anything joins a batch.
    const checked = this.#check(endpoint, params, body);
    return this.#batches.delete(endpoint, checked.params, checked.body as DomainsBody) as Promise<ResultOf<E>>;
  }

  async close(): Promise<void> {
    if (this.#o.ownsDispatcher) await this.#o.dispatcher.close();
  }

  /** Nothing about the key shows up when a client is logged or serialized. */
  toJSON(): Record<string, string> {
    return { baseUrl: this.baseUrl };
  }

  async #waited<R extends { operations: readonly s.Operation[] }>(res: R): Promise<R> {
    await this.waitForOperations(res.operations);
    return res;
  }

  /** Checks path parameters and body by the entry's rules (nothing is sent otherwise), then calls. */
  async #send<E extends AnyEndpoint>(endpoint: E, params: ParamsOf<E>, body: BodyOf<E> | undefined, deadlineMs?: number): Promise<ResultOf<E>> {
    const checked = this.#check(endpoint, params, body);
    const key = endpoint.method === "GET" ? listKeyOf(endpoint.response) : undefined;
    if (key !== undefined) return this.#wholeList(endpoint, checked, key) as Promise<ResultOf<E>>;
    return this.#call(endpoint, checked, { deadlineMs }) as Promise<ResultOf<E>>;
  }

  /**
   * A list with every page (schemas/common.ts, `wholeList`): each cursor an answer names is asked
   * for with the `cursor` query parameter, as Neon's paged lists take it, until a page names none.
   * A cursor met twice would never end: refused, as a list the package cannot take whole.
   */
  async #wholeList(endpoint: AnyEndpoint, checked: CheckedRequest, key: string): Promise<unknown> {
    type Page = Record<string, unknown> & { [NEXT_PAGE]?: string };
    const first = (await this.#call(endpoint, checked)) as Page;
    const items = [...((first[key] as unknown[] | undefined) ?? [])];
    const seen = new Set<string>();
    for (let cursor = first[NEXT_PAGE]; cursor !== undefined; ) {
      if (seen.has(cursor) || seen.size >= MAX_PAGES) {
        throw new NeonResponseError({ method: endpoint.method, path: fillPath(endpoint.path, checked.params), attempts: seen.size + 1, status: 200, issues: [`${key}: the pages never end (a cursor came back twice, or over ${MAX_PAGES} pages); the package refuses to take a partial list as complete`], requestId: "" });
      }
      seen.add(cursor);
      const query = new URLSearchParams(checked.query);
      query.set("cursor", cursor);
      const page = (await this.#call(endpoint, { ...checked, query: `?${query}` })) as Page;
      items.push(...((page[key] as unknown[] | undefined) ?? []));
      cursor = page[NEXT_PAGE];
    }
    return { ...first, [key]: items };
  }

  #check(endpoint: AnyEndpoint, params: unknown, body: unknown): CheckedRequest {
    const given = params as Record<string, string>;
    const checked: Record<string, string> = {};
    for (const name of endpoint.pathParams) {
      const rule = (endpoint.params as Record<string, z.ZodType<string>>)[name] as z.ZodType<string>;
      const r = rule.safeParse(given?.[name]);
      if (!r.success) throw paramError(endpoint, name, r.error);
      checked[name] = r.data;
    }
    let sent: unknown;
    if (endpoint.request !== undefined) {
      // An all-optional body (disable auth) may be left out; it is then sent as {}.
      const input = body === undefined && endpoint.request.safeParse({}).success ? {} : body;
      sent = validate(endpoint, endpoint.request, input);
    }
    return { params: checked, body: sent, query: queryString(endpoint, given) };
  }

  /** Sends a checked request through the attempt loop; a write is told to `onWrite` when it settles. */
  #call(endpoint: AnyEndpoint, { params, body, query }: CheckedRequest, { deadlineMs, urgent = false }: { deadlineMs?: number | undefined; urgent?: boolean } = {}): Promise<unknown> {
    const sent = this.#transport.call({
      method: endpoint.method,
      route: endpoint.path,
      params,
      ...(query === "" ? {} : { query }),
      ...(body === undefined ? {} : { body }),
      ...(endpoint.response === undefined ? {} : { schema: endpoint.response }),
      ...(deadlineMs === undefined ? {} : { deadlineMs }),
      success: endpoint.success,
      ...(urgent ? { urgent } : {}),
    });
    const onWrite = this.#o.onWrite;
    if (endpoint.method === "GET" || onWrite === undefined) return sent;
    const projectId = params.project_id ?? (body as { project_id?: string } | undefined)?.project_id;
    const told = (created: boolean) => onWrite({ projectId, branchId: params.branch_id, created });
    return sent.then(
      (r) => (told(endpoint.method === "POST"), r),
      (err: unknown) => {
        told(false);
        throw err;
      },
    );
  }
}

for (const [name, e] of Object.entries(PROJECT_TABLE)) {
  if (!(name in NeonHttpClient.prototype)) Object.defineProperty(NeonHttpClient.prototype, name, { value: tableMethod(e), writable: true, configurable: true });
}

/** More pages than any auth list of one branch could fill: a bound on a service that pages forever. */
const MAX_PAGES = 1000;

/** A request whose path parameters, body and query string passed the endpoint's rules. */
interface CheckedRequest {
  params: Record<string, string>;
  body: unknown;
  /** With its leading `?`, or "" for none. */
  query: string;
}

/** A new client (its own connection pool unless a dispatcher is given; the limiter is shared). */
export function createClient(options: ClientOptions): NeonClient {
  return new NeonHttpClient(options);
}
