/**
 * The process-wide clients: the same object, hence the same connection pool and limiter, for every
 * resource of a `pulumi up` run.
 */
import { createClient, type NeonClient } from "./client";
import { checkApiKey, DEFAULT_BASE_URL, hashKey, normaliseBaseUrl, settingNames, type ClientOptions } from "./options";

const shared = new Map<string, NeonClient>();

/**
 * The process-wide client for (baseUrl, apiKey). The map is keyed by a hash of the key. Options
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
