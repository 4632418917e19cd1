/** What a running emulator holds, shared by the API pipeline and the control routes; and what each auth generation brings to it. */
import type { Clock } from "../../clock";
import type { TableSet } from "./database";
import type { Faults } from "./faults";
import type { ApiRoute, EmulatorConfig, Reply } from "./http";
import type { RequestLog } from "./log";
import type { RequestThrottle } from "./ratelimit";
import type { Router } from "./router";
import type { ProjectRec, Store } from "./store";

/** Everything a running emulator holds; shared by the API pipeline and the control routes. */
export interface EmulatorCore {
  store: Store;
  clock: Clock;
  limiter: RequestThrottle;
  faults: Faults;
  log: RequestLog;
  config: EmulatorConfig;
  /** Labels of the accepted API keys, by key. */
  keys: Map<string, string>;
  /** The auth generations the emulator was assembled from (generations.ts; see Generation below). */
  generations: readonly Generation[];
  /** The API routes under /api/v2 and the control routes under /_emulator. */
  router: Router<Route>;
  validateResponses: boolean;
  /** Re-creates the seeded projects (start and reset). */
  seed(): void;
  /** Port the server listens on (set once listening): the only port a Host header may name. */
  port: number;
  /** `host[:port]` values accepted in Host besides loopback names with `port` (lower case). */
  allowedHosts: ReadonlySet<string>;
  /** Bearer token that unlocks secrets on the control routes (as does any API key). */
  controlToken: string;
}

/** What a handler of a control route (under /_emulator) gets. */
export interface ControlContext {
  core: EmulatorCore;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body (undefined when the request had none). */
  body: unknown;
  /** The caller holds the control token or an API key: secrets may be shown. */
  secretsAllowed: boolean;
}

export interface ControlRoute {
  method: string;
  /** Path template relative to /_emulator. */
  template: string;
  control: (ctx: ControlContext) => Reply | Promise<Reply>;
}

export type Route = ApiRoute | ControlRoute;

/*
 * What an auth generation (project/, branch/) adds to the emulator, declared here so that core
 * imports neither: each generation describes itself in one `Generation` value, and the emulator is
 * assembled from the list of them (generations.ts). Core reaches a generation only through it.
 */

/** A change to a user made outside the API (in Neon's console, or the auth provider's dashboard). */
export interface UserChange {
  /** null: no name. */
  name?: string | null | undefined;
  email?: string | undefined;
}

/** Path parameters naming one user: `project_id` and `user_id`. */
export type UserParams = Record<string, string>;

export interface Generation {
  /** Its API routes (under /api/v2), matched after the hosting slice's. */
  routes: readonly ApiRoute[];
  /** What stands in for the world outside its API (under /_emulator). */
  controlRoutes: readonly ControlRoute[];
  /** Its tables in the `neon_auth` schema of a branch database, written in this order. */
  tables: readonly TableSet[];
  /** Called after every change to the state (after the databases have followed it). */
  onChange?(store: Store): void;
  /** Its part of one project in the state dump; secrets redacted unless `secrets`. */
  projectDump?(p: ProjectRec, secrets: boolean): Record<string, unknown>;
  /** Its part of the state dump beside the projects; secrets redacted unless `secrets`. */
  stateDump?(store: Store, secrets: boolean): Record<string, unknown>;
  /** Applies an outside change to one of its users; false when the user is not one of its own. */
  changeUser?(store: Store, params: UserParams, change: UserChange): Promise<boolean>;
  /** Deletes one of its users from outside the API; false when the user is not one of its own. */
  removeUser?(store: Store, params: UserParams): Promise<boolean>;
}
