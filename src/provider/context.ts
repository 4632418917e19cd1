/**
 * What every provider call of one dynamic-provider process works with, built once from the stack
 * configuration: the client, the reads the resources of a run share (which the client's own writes
 * make it forget), and the clock. Handlers are given it; nothing reaches for a global client.
 */
import { systemClock, type Clock } from "../clock";
import { createClient, type BatchOptions, type ClientOptions, type NeonClient, type WriteEvent } from "../client";
import { SERVICE_RATE_LIMIT } from "../schemas/limits";
import { keySource, resolveSettings, type Settings } from "./settings";
import { onWait } from "./waits";
import { beforeWrite, tieToEngine } from "./engine";

export interface Context {
  readonly settings: Settings;
  readonly client: NeonClient;
  readonly reads: Reads;
  readonly clock: Clock;
}

let settings: Settings | Error | undefined;
let built: Context | undefined;

/**
 * Called by the dynamic resources' configure (resources/runtime.ts) with a reader of the stack
 * configuration, once per serialized provider, before its first check. The engine calls it only
 * once even when it throws, so a problem is kept and reported by every check (`settingsReady`): a
 * missing key or settings that disagree fail `preview` for each resource, before any request.
 */
export function configureProcess(config: (name: string) => string | undefined): void {
  // Only the engine configures: this is a provider process, which writes nothing once it is gone.
  tieToEngine("pulumi-neon-auth (dynamic provider)");
  try {
    settings = resolveSettings(config, process.env);
  } catch (err) {
    settings = err as Error;
  }
}

/** The settings of this run; throws the configuration problem, if there is one. */
function settingsReady(): Settings {
  // Without a configure call (a handler used directly, as unit tests do) the environment decides.
  settings ??= resolveSettings(() => undefined, process.env);
  if (settings instanceof Error) throw settings;
  return settings;
}

/**
 * The context of this process (runtime.ts hands it to every handler call). The engine configures
 * each kind's provider apart, with the same stack configuration: one context serves them all, so
 * that the resources of every kind share one client and one set of reads.
 */
export function processContext(): Context {
  const now = settingsReady();
  if (built === undefined || JSON.stringify(built.settings) !== JSON.stringify(now)) built = contextOf(now);
  return built;
}

/** A context from settings: its client's writes make its reads forget (see `Reads`). */
export function contextOf(s: Settings, clock: Clock = systemClock): Context {
  const reads = new Reads(clock);
  // Switching client-side pacing or delete batching off is for measuring their worth (npm run
  // bench), not for use.
  const pacing = process.env.PULUMI_NEON_AUTH_PACING === "off" ? false : undefined;
  const batch = batchSetting(process.env.PULUMI_NEON_AUTH_BATCH);
  const client = createClient({
    apiKey: s.apiKey,
    ...(s.apiUrl === undefined ? {} : { baseUrl: s.apiUrl }),
    settingNames: { apiKey: s.apiKeyFrom, baseUrl: s.apiUrlFrom },
    keySource: keySource(s),
    ...(s.lockTimeoutMs === undefined ? {} : { lockTimeoutMs: s.lockTimeoutMs }),
    ...(s.rateLimitTimeoutMs === undefined ? {} : { rateLimitTimeoutMs: s.rateLimitTimeoutMs }),
    onWait,
    onWrite: (w) => reads.written(w),
    beforeWrite,
    ...(pacing === false ? { pacing } : {}),
    ...(batch === undefined ? {} : { batch }),
  });
  return { settings: s, client, reads, clock };
}

/** `off`, or a JSON object of BatchOptions (the e2e tests widen the wait to count requests exactly). */
function batchSetting(v: string | undefined): ClientOptions["batch"] {
  if (v === undefined || v === "") return undefined;
  if (v === "off") return false;
  return JSON.parse(v) as Partial<BatchOptions>;
}

/**
 * The key of a scope's shared reads: the project, or project and branch for the branch-scoped
 * generation, so that a write on one branch forgets only that branch's reads.
 */
export function scopeKey(s: { projectId: string; branchId?: string | undefined }): string {
  return s.branchId === undefined ? s.projectId : `${s.projectId}/${s.branchId}`;
}

/**
 * Reads shared by the resources of a run: concurrent reads of one list (say, a refresh of 100
 * redirect domains) make one request, and a result is reused for a moment. Every write the client
 * sends in a scope forgets that scope's reads when it settles, so a read never misses our own
 * change; a create that answered only adds its own object, so its lists are read again for
 * everyone but another object's read-before-create, which the addition does not concern (300
 * domains made in one run read their list a few times, not 300).
 */
export class Reads {
  static readonly TTL_MS = 2_000;
  /**
   * How long a list serves the reads before creates. Such a read is one more request in a run
   * whose creates the rate limit paces, so it is repeated once per 100 requests' time at Neon's
   * rate (8.6 s): at most 1 % more requests. At 2 s (the TTL) 300 domains read their list 12
   * times, 4 % of the run. The price is the window in which an origin someone else adds at that
   * moment is taken over (Neon answers 201 to an origin already listed, so the POST cannot tell):
   * no longer than this.
   */
  static readonly BEFORE_CREATE_TTL_MS = Math.round((100 * 60_000) / SERVICE_RATE_LIMIT.perMinute);
  readonly #lists = new Map<string, { at: number; value: Promise<unknown>; added?: boolean }>();

  constructor(private readonly clock: Clock) {}

  get<T>(scope: string, area: string, load: () => Promise<T>, use: "read" | "beforeCreate" = "read"): Promise<T> {
    const key = `${scope}\u0000${area}`;
    const hit = this.#lists.get(key);
    const age = hit === undefined ? Infinity : this.clock.now() - hit.at;
    const serves = use === "beforeCreate" ? age < Reads.BEFORE_CREATE_TTL_MS : age < Reads.TTL_MS && !hit!.added;
    if (serves) return hit!.value as Promise<T>;
    const value = load();
    this.#lists.set(key, { at: this.clock.now(), value });
    value.catch(() => this.#lists.delete(key));
    return value;
  }

  /** The client's report of a write (ClientOptions.onWrite). */
  written(w: WriteEvent): void {
    if (w.projectId === undefined) return;
    const prefix = `${scopeKey({ projectId: w.projectId, branchId: w.branchId })}\u0000`;
    for (const [key, hit] of this.#lists) {
      if (!key.startsWith(prefix)) continue;
      if (w.created) hit.added = true;
      else this.#lists.delete(key);
    }
  }
}
