/** What a running emulator holds, shared by the API pipeline and the control routes. */
import type { Clock } from "../clock";
import type { Faults } from "./faults";
import type { EmulatorConfig } from "./http";
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
  router: Router;
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
