/**
 * Provider-side state of one dynamic-provider process: the settings from `configure`, the one
 * shared client, and list results shared between the resources of a run.
 */
import type * as pulumi from "@pulumi/pulumi";
import { getClient, NeonConfigError, type NeonClient } from "../client";
import type { Integration, KeySet } from "../schemas";

interface Settings {
  apiKey?: string;
  apiUrl?: string;
  /** How long one request keeps retrying a locked project (423); the client's default when unset. */
  lockTimeoutMs?: number;
}

let settings: Settings = {};

/** Called by the engine once per serialized provider with the full stack configuration. */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  settings = {
    apiKey: req.config.get("neon:apiKey") || settings.apiKey,
    apiUrl: req.config.get("neon:apiUrl") || settings.apiUrl,
    lockTimeoutMs: lockTimeoutMs(req.config.get("neon-auth:lockTimeoutSeconds")) ?? settings.lockTimeoutMs,
  };
}

/** `neon-auth:lockTimeoutSeconds`, a positive number of seconds, in ms. */
function lockTimeoutMs(value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new NeonConfigError(`neon-auth:lockTimeoutSeconds must be a positive number of seconds, got ${JSON.stringify(value)}`);
  }
  return Math.round(seconds * 1000);
}

/** The client for this run: stack config first, then NEON_API_KEY / NEON_API_URL. */
export function api(): NeonClient {
  const apiKey = settings.apiKey || process.env.NEON_API_KEY;
  if (!apiKey) {
    throw new NeonConfigError(
      "no Neon API key is configured: run `pulumi config set --secret neon:apiKey <key>` or set NEON_API_KEY",
    );
  }
  const baseUrl = settings.apiUrl || process.env.NEON_API_URL || undefined;
  // Switching client-side pacing off is for measuring its worth (npm run bench), not for use.
  const pacing = process.env.PULUMI_NEON_AUTH_PACING === "off" ? false : undefined;
  const lock = settings.lockTimeoutMs === undefined ? {} : { lockTimeoutMs: settings.lockTimeoutMs };
  return getClient({ apiKey, ...(baseUrl ? { baseUrl } : {}), ...(pacing === false ? { pacing } : {}), ...lock });
}

/**
 * List calls shared by the resources of a run: concurrent reads of one project's list (say,
 * a refresh of 100 redirect domains) make one request, and a result is reused for a moment.
 * Every write through `afterWrite` forgets the project's lists, so a read never misses our own
 * change.
 */
const LIST_TTL_MS = 2_000;
const lists = new Map<string, { at: number; value: Promise<unknown> }>();

export function sharedList<T>(projectId: string, area: string, load: () => Promise<T>): Promise<T> {
  const key = `${projectId}\u0000${area}`;
  const hit = lists.get(key);
  if (hit && Date.now() - hit.at < LIST_TTL_MS) return hit.value as Promise<T>;
  const value = load();
  lists.set(key, { at: Date.now(), value });
  value.catch(() => lists.delete(key));
  return value;
}

export function afterWrite(projectId: string): void {
  for (const key of lists.keys()) if (key.startsWith(`${projectId}\u0000`)) lists.delete(key);
}

/** The project's integration of this auth provider, from the shared list; undefined if none. */
export async function findIntegration(projectId: string, provider: string): Promise<Integration | undefined> {
  const list = await sharedList(projectId, "integrations", () => api().listIntegrations(projectId));
  return list.find((i) => i.auth_provider === provider);
}

/** The environment variables a Stack Auth app needs, from a key set. */
export function appEnv(keys: Pick<KeySet, "auth_provider_project_id" | "pub_client_key" | "secret_server_key">) {
  return {
    NEXT_PUBLIC_STACK_PROJECT_ID: keys.auth_provider_project_id,
    NEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY: keys.pub_client_key,
    STACK_SECRET_SERVER_KEY: keys.secret_server_key,
  };
}
