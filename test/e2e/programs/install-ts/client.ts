// The client subpath's types, checked with tsconfig.client.json (esModuleInterop, see README).
import { createClient, NeonApiError, type NeonClient } from "pulumi-neon-auth/client";

export function client(baseUrl: string, apiKey: string): NeonClient {
  return createClient({ baseUrl, apiKey });
}
export const isApiError = (e: unknown): e is NeonApiError => e instanceof NeonApiError;
