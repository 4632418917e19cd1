/**
 * Provider-side state of one dynamic-provider process: the settings from `configure`, the one
 * shared client, and list results shared between the resources of a run.
 */
import type * as pulumi from "@pulumi/pulumi";
import { systemClock } from "../clock";
import { getClient, type BatchOptions, type ClientOptions, type NeonClient } from "../client";
import { keySource, resolveSettings, type Settings } from "./settings";
import { onWait } from "./waits";
import type { Integration, KeySet } from "../schemas";

let settings: Settings | Error | undefined;

/**
 * Called by the engine with the stack configuration once per serialized provider, before its
 * first check. The engine calls it only once even when it throws, so a problem is kept and
 * reported by every check (`settingsReady`): a missing key or settings that disagree fail
 * `preview` for each resource, before any request.
 */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  try {
    settings = resolveSettings((name) => req.config.get(name), process.env);
  } catch (err) {
    settings = err as Error;
  }
}

/** The settings of this run; throws the configuration problem, if there is one. */
export function settingsReady(): Settings {
  // Without a configure call (a handler used directly, as unit tests do) the environment decides.
  settings ??= resolveSettings(() => undefined, process.env);
  if (settings instanceof Error) throw settings;
  return settings;
}

/** The client for this run (settings.ts says where the key and URL come from). */
export function api(): NeonClient {
  const s = settingsReady();
  // Switching client-side pacing or delete batching off is for measuring their worth (npm run
  // bench), not for use.
  const pacing = process.env.PULUMI_NEON_AUTH_PACING === "off" ? false : undefined;
  const batch = batchSetting(process.env.PULUMI_NEON_AUTH_BATCH);
  return getClient({
    apiKey: s.apiKey,
    ...(s.apiUrl === undefined ? {} : { baseUrl: s.apiUrl }),
    settingNames: { apiKey: s.apiKeyFrom, baseUrl: s.apiUrlFrom },
    keySource: keySource(s),
    ...(s.lockTimeoutMs === undefined ? {} : { lockTimeoutMs: s.lockTimeoutMs }),
    ...(s.rateLimitTimeoutMs === undefined ? {} : { rateLimitTimeoutMs: s.rateLimitTimeoutMs }),
    onWait,
    ...(pacing === false ? { pacing } : {}),
    ...(batch === undefined ? {} : { batch }),
  });
}

/** `off`, or a JSON object of BatchOptions (the e2e tests widen the wait to count requests exactly). */
function batchSetting(v: string | undefined): ClientOptions["batch"] {
  if (v === undefined || v === "") return undefined;
  if (v === "off") return false;
  return JSON.parse(v) as Partial<BatchOptions>;
}

/**
 * List calls shared by the resources of a run: concurrent reads of one project's list (say,
 * a refresh of 100 redirect domains) make one request, and a result is reused for a moment.
 * Every write through `afterWrite` forgets the project's lists, so a read never misses our own
 * change. A create only adds its own object (`afterCreate`): the lists are then read again for
 * everyone but a create's read-before of another object, which the addition does not concern (300
 * domains made in one run read their list a few times, not 300).
 */
const LIST_TTL_MS = 2_000;
const lists = new Map<string, { at: number; value: Promise<unknown>; added?: boolean }>();

/**
 * The key of a child's shared reads: the project, or project and branch for the branch-scoped
 * generation, so that a write on one branch forgets only that branch's reads.
 */
export function scopeOf(s: { projectId: string; branchId?: string | undefined }): string {
  return s.branchId === undefined ? s.projectId : `${s.projectId}/${s.branchId}`;
}

export function sharedList<T>(scope: string, area: string, load: () => Promise<T>, use: "read" | "beforeCreate" = "read"): Promise<T> {
  const key = `${scope}\u0000${area}`;
  const hit = lists.get(key);
  if (hit && systemClock.now() - hit.at < LIST_TTL_MS && (!hit.added || use === "beforeCreate")) return hit.value as Promise<T>;
  const value = load();
  lists.set(key, { at: systemClock.now(), value });
  value.catch(() => lists.delete(key));
  return value;
}

export function afterWrite(scope: string): void {
  for (const key of lists.keys()) if (key.startsWith(`${scope}\u0000`)) lists.delete(key);
}

/** After a create whose object is the only change: see `sharedList`. */
export function afterCreate(scope: string): void {
  for (const [key, hit] of lists) if (key.startsWith(`${scope}\u0000`)) hit.added = true;
}

/**
 * A branch's aggregate settings (`GET …/auth/plugins`), one request per branch for a whole
 * refresh: NeonAuth, its OAuth providers and its email provider all read from it.
 */
export function branchPlugins(s: { projectId: string; branchId?: string | undefined }) {
  return sharedList(scopeOf(s), "plugins", () => api().branchAuth.getBranchPlugins({ project_id: s.projectId, branch_id: s.branchId! }));
}

/** The project's integration of this auth provider, from the shared list; undefined if none. */
export async function findIntegration(projectId: string, provider: string): Promise<Integration | undefined> {
  return (await projectIntegrations(projectId)).find((i) => i.auth_provider === provider);
}

/** The project's integrations, read once per run (until a write); a 404 if the key cannot see it. */
export function projectIntegrations(projectId: string): Promise<Integration[]> {
  return sharedList(projectId, "integrations", () => api().listIntegrations(projectId));
}

/** The environment variables a Stack Auth app needs, from a key set. */
export function appEnv(keys: Pick<KeySet, "auth_provider_project_id" | "pub_client_key" | "secret_server_key">) {
  return {
    NEXT_PUBLIC_STACK_PROJECT_ID: keys.auth_provider_project_id,
    NEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY: keys.pub_client_key,
    STACK_SECRET_SERVER_KEY: keys.secret_server_key,
  };
}
