/**
 * The Neon API client: one typed method per endpoint over undici, with one retry policy (retry.ts),
 * one limiter shared by the process (pacing.ts), one error hierarchy (errors.ts) and one Clock.
 */
import { createHash, randomUUID } from "node:crypto";
import type { Dispatcher } from "undici";
import type { z } from "zod";
import { systemClock, type Clock } from "../clock";
import {
  addDomainRequest,
  addOAuthProviderRequest,
  authProvider as authProviderSchema,
  createIntegrationRequest,
  createProjectRequest,
  createProjectResponse,
  createUserRequest,
  createUserResponse,
  deleteDomainsRequest,
  emailServer,
  errorBody,
  generateSdkKeysRequest,
  getOperationResponse,
  getProjectResponse,
  isLoopbackHost,
  keySet,
  listBranchesResponse,
  listDomainsResponse,
  listIntegrationsResponse,
  listOAuthProvidersResponse,
  oauthProvider,
  pathSegmentProblem,
  projectId as projectIdSchema,
  TERMINAL_OPERATION_STATUSES,
  transferOwnershipRequest,
  transferOwnershipResponse,
  updateEmailServerRequest,
  updateOAuthProviderRequest,
  type AddDomainRequest,
  type AddOAuthProviderRequest,
  type Branch,
  type CreateIntegrationRequest,
  type CreateProjectResponse,
  type CreateUserRequest,
  type DeleteDomainsRequest,
  type EmailServer,
  type GenerateSdkKeysRequest,
  type Integration,
  type KeySet,
  type OAuthProvider,
  type Operation,
  type Project,
  type TransferOwnershipRequest,
  type UpdateEmailServerRequest,
  type UpdateOAuthProviderRequest,
} from "../schemas";
import type { AnyEndpoint, BodyOf, ParamsOf, ResultOf } from "../schemas/endpoint";
import { hostingEndpoints } from "../schemas/endpointsProject";
import type { CreateBranchResponse } from "../schemas/projects";
import { BranchAuthClient } from "./branchAuth";
import {
  NeonApiError,
  NeonConfigError,
  NeonError,
  NeonNetworkError,
  NeonOperationError,
  NeonResponseError,
  NeonTimeoutError,
  type HttpMethod,
} from "./errors";
import { AttemptNetworkError, errorCode, sendAttempt, type AttemptResponse } from "./http";
import { resolvePacing, sharedLimiter, type PacingOptions, type RateLimiter } from "./pacing";
import { queryString } from "./query";
import { collectSecrets, redactText, rememberSecrets, serverText } from "./redact";
import {
  backoffDelay,
  DEFAULT_RETRY,
  CONNECT_ATTEMPTS,
  isConnectFailure,
  isNotActedStatus,
  isPermanentNetworkCode,
  isRetryableStatus,
  networkMayHaveActed,
  parseRetryAfter,
  shouldRetry,
  type RetryOptions,
} from "./retry";

export const DEFAULT_BASE_URL = "https://console.neon.tech/api/v2";

export interface AttemptTimeouts {
  /** Connecting a socket (only applies to the client's own dispatcher). Default 10_000 ms. */
  connect: number;
  /** Waiting for the response headers after sending. Default 30_000 ms. */
  headers: number;
  /** Gap between response body chunks. Default 30_000 ms. */
  body: number;
}

export interface ClientOptions {
  /** Neon API key (sent as `Authorization: Bearer`). Required. */
  apiKey: string;
  /** Default `https://console.neon.tech/api/v2`. */
  baseUrl?: string;
  /** Overall deadline of one call, all attempts and waits included. Default 120_000 ms. */
  deadlineMs?: number;
  /** Per-attempt timeouts. */
  attemptTimeoutMs?: Partial<AttemptTimeouts>;
  /** Attempts per call, including the first. Default 10. Answers 423 (project locked) do not count. */
  maxAttempts?: number;
  /**
   * How long one call keeps retrying while the project answers 423 (locked by another operation),
   * counted from the call's start. Default 120_000 ms. It may exceed `deadlineMs`, which bounds
   * the other failures.
   */
  lockTimeoutMs?: number;
  /** Backoff tuning (base 250 ms, cap 10 s, Retry-After honoured up to 30 s). */
  retry?: Partial<Omit<RetryOptions, "maxAttempts">>;
  /** Client-side rate limiting; `false` disables it. Default: the service's limits. */
  pacing?: false | PacingOptions;
  /** Bound on waiting for long-running operations. Default 300_000 ms. */
  operationTimeoutMs?: number;
  clock?: Clock;
  /** undici dispatcher (e.g. a MockAgent in tests). Default: a keep-alive Agent owned by the client. */
  dispatcher?: Dispatcher;
  /** Source of randomness for backoff jitter, in [0, 1). Default Math.random. */
  random?: () => number;
  /** Receives one line per attempt (never a secret). */
  logger?: { debug(msg: string): void };
  userAgent?: string;
  /**
   * How errors name the settings the key and the URL came from (the values are never shown),
   * e.g. `{ apiKey: "neon-auth:apiKey" }`. Default `apiKey` and `baseUrl`. With `baseUrl` given,
   * the errors a wrong URL can cause (a 404, a refused connection, an unknown host) also name the
   * URL in use and that setting.
   */
  settingNames?: { apiKey?: string; baseUrl?: string };
}

export interface WaitOptions {
  /** Bound on the whole wait. Default: the client's operationTimeoutMs (5 minutes). */
  timeoutMs?: number;
}

/** One typed method per endpoint (SPEC.md section 4, API-FACTS.md). */
export interface NeonClient {
  readonly baseUrl: string;

  // projects (only what hosts auth)
  /** `POST /projects`; waits for the operations the response carries. */
  createProject(body?: { name?: string }): Promise<CreateProjectResponse>;
  getProject(projectId: string): Promise<Project>;
  listBranches(projectId: string): Promise<Branch[]>;
  /** `POST /projects/{project_id}/branches`; waits for the operations the response carries. */
  createBranch(projectId: string, branch?: { name?: string; parent_id?: string }): Promise<CreateBranchResponse>;
  getBranch(projectId: string, branchId: string): Promise<Branch>;
  getOperation(projectId: string, operationId: string): Promise<Operation>;
  /** `GET /projects/{project_id}/connection_uri`: a database's connection string (a secret: it holds the password). */
  getConnectionUri(q: ParamsOf<typeof hostingEndpoints.getConnectionUri>): Promise<{ uri: string }>;
  /** Waits until every operation is finished/skipped/cancelled; throws NeonOperationError otherwise. */
  waitForOperations(operations: readonly Operation[], opts?: WaitOptions): Promise<void>;

  // integration
  createIntegration(req: CreateIntegrationRequest): Promise<KeySet>;
  listIntegrations(projectId: string): Promise<Integration[]>;
  deleteIntegration(projectId: string, authProvider: string): Promise<void>;
  generateSdkKeys(req: GenerateSdkKeysRequest): Promise<KeySet>;
  transferOwnership(req: TransferOwnershipRequest): Promise<{ url: string }>;

  // users
  createUser(req: CreateUserRequest): Promise<{ id: string }>;
  deleteUser(projectId: string, userId: string): Promise<void>;

  // OAuth providers
  listOAuthProviders(projectId: string): Promise<{ id: string; type: string }[]>;
  addOAuthProvider(projectId: string, body: AddOAuthProviderRequest): Promise<OAuthProvider>;
  updateOAuthProvider(projectId: string, providerId: string, body: UpdateOAuthProviderRequest): Promise<OAuthProvider>;
  deleteOAuthProvider(projectId: string, providerId: string): Promise<void>;

  // redirect domains
  listDomains(projectId: string): Promise<{ domain: string; auth_provider: string }[]>;
  addDomain(projectId: string, body: AddDomainRequest): Promise<void>;
  deleteDomains(projectId: string, body: DeleteDomainsRequest): Promise<void>;

  // email server
  getEmailServer(projectId: string): Promise<EmailServer>;
  updateEmailServer(projectId: string, body: UpdateEmailServerRequest): Promise<EmailServer>;

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

const VERSION: string = (() => {
  try {
    return (require("../../package.json") as { version?: string }).version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
})();

/** SHA-256 of the key, hex: the only form in which a key is used as a map key. */
export function hashKey(apiKey: string): string {
  return createHash("sha256").update(apiKey).digest("hex");
}

/**
 * The base URL, checked: `https:` everywhere but on loopback hosts, where traffic never leaves
 * the machine (the emulator). Errors name the setting and at most the origin: a value that does
 * not parse is never shown, as it may be a key pasted into the wrong setting.
 */
function normaliseBaseUrl(raw: unknown, setting = "baseUrl"): URL {
  if (typeof raw !== "string" || raw.trim() === "") {
    throw new NeonConfigError(`${setting} must be a URL such as ${DEFAULT_BASE_URL}`);
  }
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new NeonConfigError(
      `${setting} is not a valid URL (the value is not shown, in case it is a secret); expected a URL such as ${DEFAULT_BASE_URL}`,
    );
  }
  if (url.username || url.password) {
    throw new NeonConfigError(`${setting} must not carry credentials (user:password@host); the API key has a setting of its own`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new NeonConfigError(`${setting} must be an https URL such as ${DEFAULT_BASE_URL}`);
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    throw new NeonConfigError(
      `${setting} must use https: the API key would travel in clear to ${url.origin}. ` +
        "Plain http is accepted for loopback hosts only (127.0.0.0/8, localhost, [::1]), such as the local emulator",
    );
  }
  url.search = "";
  url.hash = "";
  url.pathname = url.pathname.replace(/\/+$/, "");
  return url;
}

/** `field.path: problem` for each issue; values are never echoed. */
export function formatIssues(error: z.ZodError): string[] {
  return error.issues.map((i) => `${i.path.length ? i.path.map(String).join(".") : "(root)"}: ${i.message}`);
}

interface CallSpec<T> {
  method: HttpMethod;
  /** Path template relative to the base URL, e.g. `/projects/{project_id}/auth/domains`. */
  route: string;
  params?: Record<string, string>;
  /** Query string (already validated), with its leading `?`. */
  query?: string;
  /** Request body (already validated). */
  body?: unknown;
  /** Response schema; absent for endpoints that answer with no body. */
  schema?: z.ZodType<T>;
  /** Overrides the client's per-call deadline (used by operation waits). */
  deadlineMs?: number;
  /** Success statuses of the endpoint; absent: any 2xx. */
  success?: readonly number[];
}

class DeadlineReached extends Error {
  override readonly name = "DeadlineReached";
}

class NeonHttpClient implements NeonClient {
  readonly baseUrl: string;
  readonly branchAuth = new BranchAuthClient((e, params, body) => this.request(e, params, body));
  readonly #apiKey: string;
  readonly #origin: string;
  readonly #prefix: string;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #logger: { debug(msg: string): void } | undefined;
  readonly #userAgent: string;
  readonly #deadlineMs: number;
  readonly #lockTimeoutMs: number;
  readonly #timeouts: AttemptTimeouts;
  readonly #retry: RetryOptions;
  readonly #limiter: RateLimiter | undefined;
  readonly #operationTimeoutMs: number;
  /** Appended to errors a wrong base URL can cause; empty when the caller did not say where it came from. */
  readonly #urlHint: string;

  readonly #settings: { apiKey: string; baseUrl: string };

  constructor(options: ClientOptions) {
    this.#apiKey = checkApiKey(options);
    this.#settings = settingNames(options);
    const url = normaliseBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL, this.#settings.baseUrl);
    this.baseUrl = url.origin + url.pathname;
    this.#origin = url.origin;
    this.#prefix = url.pathname;
    const named = options.settingNames?.baseUrl;
    this.#urlHint = !named
      ? ""
      : options.baseUrl === undefined
        ? `; Neon API at ${this.baseUrl} (the default base URL; ${named} sets another)`
        : `; Neon API at ${this.baseUrl} (base URL from ${named})`;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#logger = options.logger;
    this.#userAgent = options.userAgent ?? `pulumi-neon-auth/${VERSION} (node ${process.versions.node})`;
    this.#deadlineMs = positive("deadlineMs", options.deadlineMs ?? 120_000);
    this.#lockTimeoutMs = positive("lockTimeoutMs", options.lockTimeoutMs ?? 120_000);
    this.#operationTimeoutMs = positive("operationTimeoutMs", options.operationTimeoutMs ?? 300_000);
    this.#timeouts = {
      connect: positive("attemptTimeoutMs.connect", options.attemptTimeoutMs?.connect ?? 10_000),
      headers: positive("attemptTimeoutMs.headers", options.attemptTimeoutMs?.headers ?? 30_000),
      body: positive("attemptTimeoutMs.body", options.attemptTimeoutMs?.body ?? 30_000),
    };
    this.#retry = {
      ...DEFAULT_RETRY,
      ...Object.fromEntries(Object.entries(options.retry ?? {}).filter(([, v]) => v !== undefined)),
      maxAttempts: Math.max(1, Math.floor(options.maxAttempts ?? DEFAULT_RETRY.maxAttempts)),
    };
    if (options.dispatcher) {
      this.#dispatcher = options.dispatcher;
      this.#ownsDispatcher = false;
    } else {
      // undici is loaded here, not at import: a Pulumi program loads this package to declare
      // resources and never sends a request, so it should not pay undici's ~50 ms start-up.
      const { Agent } = require("undici") as typeof import("undici");
      this.#dispatcher = new Agent({
        connectTimeout: this.#timeouts.connect,
        headersTimeout: this.#timeouts.headers,
        bodyTimeout: this.#timeouts.body,
        keepAliveTimeout: 10_000,
        connections: 128,
      });
      this.#ownsDispatcher = true;
    }
    if (options.pacing !== false) {
      let limits;
      try {
        limits = resolvePacing(options.pacing);
      } catch (e) {
        throw new NeonConfigError((e as Error).message);
      }
      this.#limiter = sharedLimiter(this.baseUrl, hashKey(this.#apiKey), limits, this.#clock);
    }
  }

  // ---- projects -------------------------------------------------------------------------------

  async createProject(body?: { name?: string }): Promise<CreateProjectResponse> {
    const req = this.#validate("POST", "/projects", createProjectRequest, { project: body ?? {} });
    const res = await this.#call({ method: "POST", route: "/projects", body: req, schema: createProjectResponse });
    await this.waitForOperations(res.operations);
    return res;
  }

  getConnectionUri(q: ParamsOf<typeof hostingEndpoints.getConnectionUri>) { return this.request(hostingEndpoints.getConnectionUri, q); }

  async getProject(projectId: string): Promise<Project> {
    const r = await this.#call({
      method: "GET",
      route: "/projects/{project_id}",
      params: { project_id: this.#pid(projectId) },
      schema: getProjectResponse,
    });
    return r.project;
  }

  async listBranches(projectId: string): Promise<Branch[]> {
    const r = await this.#call({
      method: "GET",
      route: "/projects/{project_id}/branches",
      params: { project_id: this.#pid(projectId) },
      schema: listBranchesResponse,
    });
    return r.branches;
  }

  async createBranch(projectId: string, branch?: { name?: string; parent_id?: string }): Promise<CreateBranchResponse> {
    const res = await this.request(hostingEndpoints.createBranch, { project_id: projectId }, { branch: branch ?? {} });
    await this.waitForOperations(res.operations);
    return res;
  }

  async getBranch(projectId: string, branchId: string): Promise<Branch> {
    return (await this.request(hostingEndpoints.getBranch, { project_id: projectId, branch_id: branchId })).branch;
  }

  async getOperation(projectId: string, operationId: string, deadlineMs?: number): Promise<Operation> {
    const r = await this.#call({
      method: "GET",
      route: "/projects/{project_id}/operations/{operation_id}",
      params: { project_id: this.#pid(projectId), operation_id: nonEmptyParam("operationId", operationId) },
      schema: getOperationResponse,
      ...(deadlineMs === undefined ? {} : { deadlineMs }),
    });
    return r.operation;
  }

  async waitForOperations(operations: readonly Operation[], opts?: WaitOptions): Promise<void> {
    const timeoutMs = opts?.timeoutMs ?? this.#operationTimeoutMs;
    const started = this.#clock.now();
    const until = started + timeoutMs;
    // One after the other: the service runs a project's operations in order anyway.
    for (const first of operations) {
      let op = first;
      let delay = 250;
      for (;;) {
        if (TERMINAL_OPERATION_STATUSES.includes(op.status)) break;
        if (op.status === "error" || op.status === "failed") {
          throw new NeonOperationError({
            operationId: op.id,
            projectId: op.project_id,
            action: op.action,
            status: op.status,
            timedOut: false,
            ...(op.error ? { detail: redactText(serverText(op.error, 1000), [this.#apiKey]) } : {}),
          });
        }
        const left = until - this.#clock.now();
        if (left <= 0) {
          throw new NeonOperationError({
            operationId: op.id,
            projectId: op.project_id,
            action: op.action,
            status: op.status,
            timedOut: true,
            detail: `${timeoutMs} ms`,
          });
        }
        await this.#clock.sleep(Math.min(delay, left));
        delay = Math.min(delay * 2, 5_000);
        const remaining = until - this.#clock.now();
        if (remaining <= 0) continue; // reported as a timeout by the next turn
        try {
          op = await this.getOperation(op.project_id, op.id, Math.min(this.#deadlineMs, remaining));
        } catch (e) {
          if (e instanceof NeonTimeoutError) continue;
          throw e;
        }
      }
    }
  }

  // ---- integration ----------------------------------------------------------------------------

  async createIntegration(req: CreateIntegrationRequest): Promise<KeySet> {
    const route = "/projects/auth/create";
    const body = this.#validate("POST", route, createIntegrationRequest, req);
    return this.#call({ method: "POST", route, body, schema: keySet });
  }

  async listIntegrations(projectId: string): Promise<Integration[]> {
    const r = await this.#call({
      method: "GET",
      route: "/projects/{project_id}/auth/integrations",
      params: { project_id: this.#pid(projectId) },
      schema: listIntegrationsResponse,
    });
    return r.data;
  }

  async deleteIntegration(projectId: string, authProvider: string): Promise<void> {
    const route = "/projects/{project_id}/auth/integration/{auth_provider}";
    const provider = this.#validate("DELETE", route, authProviderSchema, authProvider);
    await this.#call({ method: "DELETE", route, params: { project_id: this.#pid(projectId), auth_provider: provider } });
  }

  async generateSdkKeys(req: GenerateSdkKeysRequest): Promise<KeySet> {
    const route = "/projects/auth/keys";
    const body = this.#validate("POST", route, generateSdkKeysRequest, req);
    return this.#call({ method: "POST", route, body, schema: keySet });
  }

  async transferOwnership(req: TransferOwnershipRequest): Promise<{ url: string }> {
    const route = "/projects/auth/transfer_ownership";
    const body = this.#validate("POST", route, transferOwnershipRequest, req);
    const res = await this.#call({ method: "POST", route, body, schema: transferOwnershipResponse });
    // The URL carries a one-time code: as secret as a password, though its field is not named so.
    rememberSecrets([res.url, ...new URL(res.url, "https://x.invalid").searchParams.values()]);
    return res;
  }

  // ---- users ----------------------------------------------------------------------------------

  async createUser(req: CreateUserRequest): Promise<{ id: string }> {
    const route = "/projects/auth/user";
    const body = this.#validate("POST", route, createUserRequest, req);
    return this.#call({ method: "POST", route, body, schema: createUserResponse });
  }

  async deleteUser(projectId: string, userId: string): Promise<void> {
    await this.#call({
      method: "DELETE",
      route: "/projects/{project_id}/auth/users/{auth_user_id}",
      params: { project_id: this.#pid(projectId), auth_user_id: nonEmptyParam("userId", userId) },
    });
  }

  // ---- OAuth providers ------------------------------------------------------------------------

  async listOAuthProviders(projectId: string): Promise<{ id: string; type: string }[]> {
    const r = await this.#call({
      method: "GET",
      route: "/projects/{project_id}/auth/oauth_providers",
      params: { project_id: this.#pid(projectId) },
      schema: listOAuthProvidersResponse,
    });
    return r.providers;
  }

  async addOAuthProvider(projectId: string, body: AddOAuthProviderRequest): Promise<OAuthProvider> {
    const route = "/projects/{project_id}/auth/oauth_providers";
    const b = this.#validate("POST", route, addOAuthProviderRequest, body);
    return this.#call({ method: "POST", route, params: { project_id: this.#pid(projectId) }, body: b, schema: oauthProvider });
  }

  async updateOAuthProvider(projectId: string, providerId: string, body: UpdateOAuthProviderRequest): Promise<OAuthProvider> {
    const route = "/projects/{project_id}/auth/oauth_providers/{oauth_provider_id}";
    const b = this.#validate("PATCH", route, updateOAuthProviderRequest, body);
    return this.#call({
      method: "PATCH",
      route,
      params: { project_id: this.#pid(projectId), oauth_provider_id: nonEmptyParam("providerId", providerId) },
      body: b,
      schema: oauthProvider,
    });
  }

  async deleteOAuthProvider(projectId: string, providerId: string): Promise<void> {
    await this.#call({
      method: "DELETE",
      route: "/projects/{project_id}/auth/oauth_providers/{oauth_provider_id}",
      params: { project_id: this.#pid(projectId), oauth_provider_id: nonEmptyParam("providerId", providerId) },
    });
  }

  // ---- redirect domains -----------------------------------------------------------------------

  async listDomains(projectId: string): Promise<{ domain: string; auth_provider: string }[]> {
    const r = await this.#call({
      method: "GET",
      route: "/projects/{project_id}/auth/domains",
      params: { project_id: this.#pid(projectId) },
      schema: listDomainsResponse,
    });
    return r.domains;
  }

  async addDomain(projectId: string, body: AddDomainRequest): Promise<void> {
    const route = "/projects/{project_id}/auth/domains";
    const b = this.#validate("POST", route, addDomainRequest, body);
    await this.#call({ method: "POST", route, params: { project_id: this.#pid(projectId) }, body: b });
  }

  async deleteDomains(projectId: string, body: DeleteDomainsRequest): Promise<void> {
    const route = "/projects/{project_id}/auth/domains";
    const b = this.#validate("DELETE", route, deleteDomainsRequest, body);
    await this.#call({ method: "DELETE", route, params: { project_id: this.#pid(projectId) }, body: b });
  }

  // ---- email server ---------------------------------------------------------------------------

  async getEmailServer(projectId: string): Promise<EmailServer> {
    return this.#call({
      method: "GET",
      route: "/projects/{project_id}/auth/email_server",
      params: { project_id: this.#pid(projectId) },
      schema: emailServer,
    });
  }

  async updateEmailServer(projectId: string, body: UpdateEmailServerRequest): Promise<EmailServer> {
    const route = "/projects/{project_id}/auth/email_server";
    const b = this.#validate("PATCH", route, updateEmailServerRequest, body);
    return this.#call({ method: "PATCH", route, params: { project_id: this.#pid(projectId) }, body: b, schema: emailServer });
  }

  async request<E extends AnyEndpoint>(endpoint: E, params: ParamsOf<E>, body?: BodyOf<E>): Promise<ResultOf<E>> {
    const given = params as Record<string, string>;
    const checked: Record<string, string> = {};
    for (const name of endpoint.pathParams) {
      const rule = (endpoint.params as Record<string, z.ZodType<string>>)[name] as z.ZodType<string>;
      const r = rule.safeParse(given?.[name]);
      if (!r.success) {
        throw new NeonConfigError(`invalid path parameter ${name} for ${endpoint.method} ${endpoint.path}: ${r.error.issues.map((i) => i.message).join("; ")}`);
      }
      checked[name] = r.data;
    }
    let sent: unknown;
    if (endpoint.request !== undefined) {
      // An all-optional body (disable auth) may be left out; it is then sent as {}.
      const input = body === undefined && endpoint.request.safeParse({}).success ? {} : body;
      sent = this.#validate(endpoint.method, endpoint.path, endpoint.request, input);
    }
    const query = queryString(endpoint, given);
    return this.#call({
      method: endpoint.method,
      route: endpoint.path,
      params: checked,
      ...(query === "" ? {} : { query }),
      ...(sent === undefined ? {} : { body: sent }),
      ...(endpoint.response === undefined ? {} : { schema: endpoint.response }),
      success: endpoint.success,
    }) as Promise<ResultOf<E>>;
  }

  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  /** Nothing about the key shows up when a client is logged or serialized. */
  toJSON(): Record<string, string> {
    return { baseUrl: this.baseUrl };
  }

  // ---- machinery ------------------------------------------------------------------------------

  #pid(projectId: string): string {
    const r = projectIdSchema.safeParse(projectId);
    if (!r.success) {
      throw new NeonConfigError(`invalid project id: ${formatIssues(r.error).map((s) => s.replace("(root): ", "")).join("; ")}`);
    }
    return r.data;
  }

  #validate<S extends z.ZodType>(method: HttpMethod, route: string, schema: S, value: unknown): z.output<S> {
    const r = schema.safeParse(value);
    if (!r.success) {
      throw new NeonConfigError(`invalid request for ${method} ${route}: ${formatIssues(r.error).join("; ")}`);
    }
    return r.data;
  }

  async #call<T>(spec: CallSpec<T>): Promise<T> {
    const clock = this.#clock;
    const method = spec.method;
    let path = spec.route.replace(/\{(\w+)\}/g, (_, name: string) => {
      const v = spec.params?.[name];
      if (v === undefined) throw new Error(`internal: missing path parameter ${name}`);
      return encodeURIComponent(pathParam(name, v));
    });
    if (path === "") path = "/";
    path += spec.query ?? "";
    const routeKey = `${method} ${spec.route}`;
    // One X-Request-ID per call, reused by every attempt of that call, so the service's logs tie the
    // retries of one call together. Errors report the service's own id when it sends one.
    const ourRequestId = randomUUID();
    const bodyText = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const secrets = [this.#apiKey, ...collectSecrets(spec.body)];
    rememberSecrets(secrets);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      accept: "application/json",
      "user-agent": this.#userAgent,
      "x-request-id": ourRequestId,
    };
    if (bodyText !== undefined) headers["content-type"] = "application/json";

    const started = clock.now();
    const deadlineMs = spec.deadlineMs ?? this.#deadlineMs;
    const deadlineAt = started + deadlineMs;
    // A locked project is waited for against its own time budget, not an attempt count (an
    // operation wait's own deadline bounds its polls, locked or not).
    const lockBudgetMs = spec.deadlineMs === undefined ? this.#lockTimeoutMs : deadlineMs;
    const lockedUntil = started + lockBudgetMs;
    const deadline = new AbortController();
    let stopTimer = new AbortController();
    const armDeadline = (at: number) => {
      stopTimer.abort();
      stopTimer = new AbortController();
      clock.sleep(at - clock.now(), stopTimer.signal).then(
        () => deadline.abort(new DeadlineReached("deadline")),
        () => undefined,
      );
    };
    armDeadline(deadlineAt);
    // Once the project answers 423, the call may live to the end of the lock budget; its last
    // attempt goes out as the budget ends and gets the time of one answer.
    let lockArmed = spec.deadlineMs !== undefined || lockBudgetMs < deadlineMs;

    let attempts = 0;
    /** Answers 423, which do not count against maxAttempts. */
    let locks = 0;
    let lastError: NeonError | undefined;
    let anyActed = false;
    // Time that runs out while the project answers 423 is reported as the lock it is.
    const timeout = (mayHaveActed: boolean, locked = lastError instanceof NeonApiError && lastError.status === 423) =>
      new NeonTimeoutError({
        method,
        path,
        attempts,
        deadlineMs,
        requestId: lastRequestId(lastError) ?? ourRequestId,
        mayHaveActed: anyActed || mayHaveActed,
        ...(lastError ? { lastError } : {}),
        ...(locked ? { locked: { waitedMs: clock.now() - started, budgetMs: lockBudgetMs } } : {}),
      });
    const log = (msg: string) => this.#logger?.debug(redactText(msg, secrets));

    try {
      for (;;) {
        const waitStart = clock.now();
        if (this.#limiter) {
          try {
            await this.#limiter.acquire(routeKey, deadline.signal);
          } catch {
            throw timeout(false);
          }
        }
        attempts++;
        const paced = clock.now() - waitStart;
        const t0 = clock.now();
        const tag = `${method} ${path} attempt ${attempts}/${this.#retry.maxAttempts} (request id ${ourRequestId}${paced > 0 ? `, paced ${paced} ms` : ""})`;

        let res: AttemptResponse;
        try {
          res = await sendAttempt(this.#dispatcher, {
            origin: this.#origin,
            path: this.#prefix + path,
            method,
            headers,
            ...(bodyText === undefined ? {} : { body: bodyText }),
            headersTimeoutMs: this.#timeouts.headers,
            bodyTimeoutMs: this.#timeouts.body,
            signal: deadline.signal,
          });
        } catch (e) {
          if (!(e instanceof AttemptNetworkError)) throw e;
          const code = errorCode(e.original);
          const acted = method !== "GET" && networkMayHaveActed(code, e.requestSent);
          if (e.aborted && deadline.signal.aborted) {
            log(`${tag}: deadline reached in flight after ${clock.now() - t0} ms`);
            throw timeout(acted);
          }
          anyActed ||= acted;
          const permanent = isPermanentNetworkCode(code);
          const cannotConnect = isConnectFailure(code);
          const detail = redactText(`${code ? `${code}: ` : ""}${serverText(e.message, 300)}`, secrets);
          const err = new NeonNetworkError({
            method,
            path,
            attempts,
            // A request that never left this machine has no id anyone could look up.
            ...(e.requestSent ? { requestId: ourRequestId } : {}),
            detail: permanent ? `${detail}; ${this.#remedy(code!)}` : cannotConnect ? `${detail}${this.#urlHint}` : detail,
            mayHaveActed: anyActed,
            retryable: !permanent,
            ...(code ? { errorCode: code } : {}),
            cause: redactedCause(e.original, secrets),
          });
          log(`${tag}: network error ${detail}${e.requestSent ? " after the request was sent" : " before the request was sent"}`);
          if (!shouldRetry(method, { kind: "network", mayHaveActed: acted, ...(code ? { code } : {}) })) throw err;
          if (cannotConnect && attempts >= CONNECT_ATTEMPTS) throw err;
          lastError = err;
          await this.#pause(attempts - locks, undefined, deadlineAt, deadline.signal, err, log, () => timeout(false));
          continue;
        }

        const requestId = cleanRequestId(headerValue(res.headers["x-neon-ret-request-id"]));
        if (res.status >= 200 && res.status < 300) {
          log(`${tag}: ${res.status} in ${clock.now() - t0} ms${requestId ? ` (server request id ${requestId})` : ""}`);
          if (spec.success !== undefined && !spec.success.includes(res.status)) {
            const issue = `(status): ${res.status} is not a success status of ${method} ${spec.route} (expected ${spec.success.join(" or ")})`;
            throw new NeonResponseError({ method, path, attempts, status: res.status, issues: [issue], requestId: requestId ?? ourRequestId });
          }
          if (!spec.schema) return undefined as T;
          const parsed = this.#parse(spec.schema, res, method, path, attempts, requestId ?? ourRequestId);
          rememberSecrets(collectSecrets(parsed));
          return parsed;
        }

        const err = this.#apiError(res, method, path, attempts, requestId, ourRequestId, secrets, anyActed);
        anyActed = err.mayHaveActed;
        log(`${tag}: ${res.status} in ${clock.now() - t0} ms${err.neonMessage ? ` (${err.neonMessage})` : ""}`);
        if (res.status === 429) this.#limiter?.drain(routeKey);
        if (!shouldRetry(method, { kind: "status", status: res.status })) throw err;
        lastError = err;
        const retryAfter = parseRetryAfter(res.headers["retry-after"], clock.now(), this.#retry.maxRetryAfterMs);
        if (res.status === 423) {
          locks++;
          if (!lockArmed) {
            lockArmed = true;
            armDeadline(lockedUntil + this.#timeouts.headers);
          }
          await this.#pause(undefined, retryAfter, lockedUntil, deadline.signal, err, log, () => timeout(false), attempts);
        } else {
          await this.#pause(attempts - locks, retryAfter, deadlineAt, deadline.signal, err, log, () => timeout(false));
        }
      }
    } finally {
      stopTimer.abort();
    }
  }

  /** What to do about a failure that no retry can heal (see isPermanentNetworkCode). */
  #remedy(code: string): string {
    if (/CERT|SSL|TLS/.test(code)) {
      return (
        `the TLS certificate of ${this.#origin} was not accepted, and retrying cannot change that: check the ${this.#settings.baseUrl} ` +
        "setting, or trust the certificate's authority with NODE_EXTRA_CA_CERTS"
      );
    }
    return `the request cannot be written as HTTP, and retrying cannot change that: check the ${this.#settings.apiKey} setting for stray characters`;
  }

  /**
   * Waits before the next attempt, or throws when attempts or time have run out. `counted` is the
   * number of attempts that count against maxAttempts (undefined: this failure does not count, as
   * for a lock); `backoffStep` the attempt number the backoff grows with.
   */
  async #pause(
    counted: number | undefined,
    retryAfterMs: number | undefined,
    until: number,
    signal: AbortSignal,
    lastError: NeonError,
    log: (m: string) => void,
    timeout: () => NeonTimeoutError,
    backoffStep = counted ?? 1,
  ): Promise<void> {
    if (counted !== undefined && counted >= this.#retry.maxAttempts) {
      log(`giving up after ${counted} attempts`);
      throw lastError;
    }
    let delay = retryAfterMs ?? backoffDelay(backoffStep, this.#random, this.#retry);
    if (counted === undefined) {
      // A lock is waited for to the end of its budget: the last attempt goes out when it ends.
      const left = until - this.#clock.now();
      if (left <= 0) {
        log("the lock budget is used up");
        throw timeout();
      }
      delay = Math.min(delay, left);
    } else if (this.#clock.now() + delay >= until) {
      log(`next attempt in ${delay} ms would pass the deadline`);
      throw timeout();
    }
    log(`retrying in ${delay} ms${retryAfterMs !== undefined ? " (Retry-After)" : ""}`);
    try {
      await this.#clock.sleep(delay, signal);
    } catch {
      throw timeout();
    }
  }

  #apiError(
    res: AttemptResponse,
    method: HttpMethod,
    path: string,
    attempts: number,
    headerRequestId: string | undefined,
    ourRequestId: string,
    secrets: string[],
    earlierActed: boolean,
  ): NeonApiError {
    let code = "";
    let neonMessage = "";
    let bodyRequestId: string | undefined;
    if (res.body.trim() !== "") {
      try {
        const parsed = errorBody.safeParse(JSON.parse(res.body));
        if (parsed.success) {
          code = parsed.data.code;
          neonMessage = parsed.data.message;
          bodyRequestId = parsed.data.request_id;
        }
      } catch {
        // Not JSON (a proxy's HTML page, say): fall back to the status text.
      }
    }
    const acted =
      earlierActed || (method !== "GET" && res.status >= 500 && !isNotActedStatus(res.status));
    return new NeonApiError({
      status: res.status,
      statusText: redactText(serverText(res.statusText, 100), secrets),
      code: redactText(serverText(code, 100), secrets),
      neonMessage: redactText(serverText(neonMessage, 1000), secrets),
      requestId: cleanRequestId(headerRequestId) ?? cleanRequestId(bodyRequestId) ?? ourRequestId,
      method,
      path,
      attempts,
      retryable: isRetryableStatus(res.status),
      mayHaveActed: acted,
      ...(res.status === 404 && this.#urlHint ? { hint: this.#urlHint } : {}),
    });
  }

  #parse<T>(schema: z.ZodType<T>, res: AttemptResponse, method: HttpMethod, path: string, attempts: number, requestId: string): T {
    const fail = (issues: string[]) => new NeonResponseError({ method, path, attempts, status: res.status, issues, requestId });
    if (res.body.trim() === "") throw fail(["(root): empty body, expected a JSON object"]);
    let json: unknown;
    try {
      json = JSON.parse(res.body);
    } catch {
      throw fail(["(root): body is not valid JSON"]);
    }
    const r = schema.safeParse(json);
    if (!r.success) throw fail(formatIssues(r.error));
    return r.data;
  }
}

function positive(name: string, v: number): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) throw new NeonConfigError(`${name} must be a positive number`);
  return v;
}

function nonEmptyParam(name: string, v: string): string {
  return pathParam(name, v);
}

/** A value that can stand as one path segment; `.` or `..` would send the request elsewhere. */
function pathParam(name: string, v: string): string {
  const problem = pathSegmentProblem(v);
  if (problem) throw new NeonConfigError(`${name} ${problem}; nothing was sent`);
  return v;
}

/** A request id fit for a message: visible ASCII only, at most 100 characters. */
function cleanRequestId(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const clean = v.replace(/[^\x21-\x7e]/g, "").slice(0, 100);
  return clean === "" ? undefined : clean;
}

function settingNames(options: ClientOptions): { apiKey: string; baseUrl: string } {
  return { apiKey: options.settingNames?.apiKey ?? "apiKey", baseUrl: options.settingNames?.baseUrl ?? "baseUrl" };
}

/**
 * The API key, trimmed, or a NeonConfigError naming its setting. A key that HTTP cannot carry
 * (CR, LF, NUL, spaces, non-ASCII) would fail every attempt the same way: it is refused here,
 * once, before anything is sent; the message never shows the key.
 */
function checkApiKey(options: ClientOptions): string {
  const setting = settingNames(options).apiKey;
  if (typeof options?.apiKey !== "string" || options.apiKey.trim() === "") {
    throw new NeonConfigError(
      `Neon API key is missing (${setting}): set the neon:apiKey stack config (pulumi config set --secret neon:apiKey ...) or the NEON_API_KEY environment variable`,
    );
  }
  const key = options.apiKey.trim();
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new NeonConfigError(
      `the Neon API key (${setting}) holds characters that cannot be sent in an HTTP header ` +
        "(control characters such as CR, LF or NUL, spaces, or non-ASCII letters); the value is not shown. Set it again, without them",
    );
  }
  rememberSecrets([key]);
  return key;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === "" ? undefined : s;
}

function lastRequestId(err: NeonError | undefined): string | undefined {
  return err && "requestId" in err ? (err as { requestId?: string }).requestId : undefined;
}

/** A plain Error carrying only the (redacted) message and code of a low-level failure. */
function redactedCause(original: unknown, secrets: string[]): Error {
  const msg = original instanceof Error ? original.message : String(original);
  const e = new Error(redactText(msg, secrets));
  const code = errorCode(original);
  if (code) (e as Error & { code?: string }).code = code;
  if (original instanceof Error) e.name = original.name;
  return e;
}

/** A new client (its own connection pool unless a dispatcher is given; the limiter is shared). */
export function createClient(options: ClientOptions): NeonClient {
  return new NeonHttpClient(options);
}

const shared = new Map<string, NeonClient>();

/**
 * The process-wide client for (baseUrl, apiKey): the same object, hence the same connection pool and
 * limiter, for every resource of a `pulumi up` run. The map is keyed by a hash of the key. Options
 * other than baseUrl and apiKey are taken from the first call.
 */
export function getClient(options: ClientOptions): NeonClient {
  const key = checkApiKey(options);
  const url = normaliseBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL, settingNames(options).baseUrl);
  const k = `${url.origin}${url.pathname}\u0000${hashKey(key)}`;
  let c = shared.get(k);
  if (!c) {
    c = createClient(options);
    shared.set(k, c);
  }
  return c;
}

/** Forgets (and closes) the shared clients; for tests. */
export async function resetSharedClients(): Promise<void> {
  const all = [...shared.values()];
  shared.clear();
  await Promise.all(all.map((c) => c.close()));
}
