/**
 * Where the provider's API key and base URL come from. Our own config namespace `neon-auth:` is
 * first, because the Pulumi Registry's `neon` provider owns `neon:` and refuses keys it does not
 * know there; `neon:apiKey` is still read, last, so one key can serve both packages.
 *
 * A key is only ever sent to a URL from the same place as the key: a URL from the environment
 * must not redirect a key kept in encrypted stack config (a pipeline step's environment is easier
 * to change than a reviewed stack file), nor the reverse.
 */
import { NeonConfigError } from "../client";

/** Each setting a user can write, by the name they write it under. */
export const SETTING = {
  stackKey: "neon-auth:apiKey",
  stackUrl: "neon-auth:apiUrl",
  envKey: "NEON_API_KEY",
  envUrl: "NEON_API_URL",
  registryKey: "neon:apiKey",
  lockTimeout: "neon-auth:lockTimeoutSeconds",
  rateLimitTimeout: "neon-auth:rateLimitTimeoutSeconds",
  readUsers: "neon-auth:readUsersFromDatabase",
  /** Read by 0.1.0; refused now, so that a stack that had it never silently talks to the default. */
  oldUrl: "neon:apiUrl",
} as const;

export interface Settings {
  apiKey: string;
  /** Which setting the key came from (a name from SETTING, never the value). */
  apiKeyFrom: string;
  /** Undefined: the client's default (Neon's console API). */
  apiUrl: string | undefined;
  /** The setting that gives the URL, in the same place as the key (set or not). */
  apiUrlFrom: string;
  /** `neon-auth:lockTimeoutSeconds` in ms: how long one request waits out a locked project (423). */
  lockTimeoutMs?: number;
  /** `neon-auth:rateLimitTimeoutSeconds` in ms: how long one request waits for the rate limit (pacing, 429). */
  rateLimitTimeoutMs?: number;
  /** `neon-auth:readUsersFromDatabase` (default true): AuthUser reads users back from neon_auth.users_sync. */
  readUsersFromDatabase: boolean;
}

const MISSING_KEY =
  `no Neon API key is configured: run \`pulumi config set --secret ${SETTING.stackKey} <key>\` ` +
  `or set the ${SETTING.envKey} environment variable`;

/**
 * Resolves the settings from stack config (`config(name)`) and the environment; throws a
 * NeonConfigError naming the settings involved (never a value) when they are missing or disagree.
 */
export function resolveSettings(config: (name: string) => string | undefined, env: NodeJS.ProcessEnv): Settings {
  const get = (v: string | undefined) => (v === undefined || v.trim() === "" ? undefined : v);
  if (get(config(SETTING.oldUrl)) !== undefined) {
    throw new NeonConfigError(
      `${SETTING.oldUrl} is no longer read: that namespace belongs to the Pulumi Registry's neon provider. ` +
        `Rename it: \`pulumi config rm ${SETTING.oldUrl}\` and \`pulumi config set ${SETTING.stackUrl} <url>\``,
    );
  }
  const stack = { key: get(config(SETTING.stackKey)), url: get(config(SETTING.stackUrl)) };
  const environment = { key: get(env[SETTING.envKey]), url: get(env[SETTING.envUrl]) };
  const registryKey = get(config(SETTING.registryKey));

  let key: { value: string; from: string; place: "stack" | "environment" } | undefined;
  if (stack.key) key = { value: stack.key, from: SETTING.stackKey, place: "stack" };
  else if (environment.key) key = { value: environment.key, from: SETTING.envKey, place: "environment" };
  else if (registryKey) key = { value: registryKey, from: SETTING.registryKey, place: "stack" };
  if (!key) throw new NeonConfigError(MISSING_KEY);

  const own = key.place === "stack" ? { url: stack.url, from: SETTING.stackUrl } : { url: environment.url, from: SETTING.envUrl };
  const other = key.place === "stack" ? { url: environment.url, from: SETTING.envUrl } : { url: stack.url, from: SETTING.stackUrl };
  if (own.url === undefined && other.url !== undefined) {
    throw new NeonConfigError(
      `the Neon API key comes from ${key.from} but the API URL from ${other.from}; a key is only sent to a URL set ` +
        `in the same place. Set ${own.from} as well (or instead), or take the key from ` +
        `${key.place === "stack" ? SETTING.envKey : SETTING.stackKey}`,
    );
  }
  const lock = seconds(SETTING.lockTimeout, config(SETTING.lockTimeout));
  const rate = seconds(SETTING.rateLimitTimeout, config(SETTING.rateLimitTimeout));
  return {
    readUsersFromDatabase: flag(SETTING.readUsers, config(SETTING.readUsers), true),
    ...(lock === undefined ? {} : { lockTimeoutMs: lock }),
    ...(rate === undefined ? {} : { rateLimitTimeoutMs: rate }),
    apiKey: key.value,
    apiKeyFrom: key.from,
    apiUrl: own.url,
    apiUrlFrom: own.from,
  };
}

/**
 * Where the key came from, for a refused key. The provider process is not told the stack's name
 * (the dynamic-provider host hands it only the configuration), so "this stack".
 */
export function keySource(s: Pick<Settings, "apiKeyFrom">): string {
  if (s.apiKeyFrom === SETTING.envKey) return `${SETTING.envKey} from the environment of this run`;
  return (
    `${s.apiKeyFrom} of this stack's configuration (\`pulumi refresh\` and \`pulumi destroy\` use the value ` +
    "recorded by the last `pulumi up`, unless given --run-program)"
  );
}

/** A positive number of seconds, in ms; undefined when unset (the client's default applies). */
function seconds(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) {
    throw new NeonConfigError(`${name} must be a positive number of seconds, got ${JSON.stringify(value.slice(0, 40))}`);
  }
  return Math.round(n * 1000);
}

/** `true` or `false` (any case); the default when unset. */
function flag(name: string, value: string | undefined, byDefault: boolean): boolean {
  if (value === undefined || value.trim() === "") return byDefault;
  const v = value.trim().toLowerCase();
  if (v === "true" || v === "false") return v === "true";
  throw new NeonConfigError(`${name} must be true or false, got ${JSON.stringify(value.slice(0, 40))}`);
}
