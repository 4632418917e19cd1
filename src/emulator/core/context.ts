/** What a running emulator holds, shared by the API pipeline and the control routes. */
import type { Clock } from "../../clock";
import type { Faults } from "./faults";
import type { ApiRoute, EmulatorConfig, Reply } from "./http";
import type { RequestLog } from "./log";
import type { RequestThrottle } from "./ratelimit";
import type { Router } from "./router";
import type { Store } from "./store";

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
