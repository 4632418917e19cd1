/**
 * Field rules shared by what we send, what the emulator accepts and what `check` validates.
 * One definition each, so a rule cannot drift between the three.
 */
import { z } from "zod";

/** Project and branch ids as Neon issues them (API-FACTS.md). */
export const ID_PATTERN = /^[a-z0-9-]{1,60}$/;

export const projectId = z
  .string()
  .regex(ID_PATTERN, { message: "must match ^[a-z0-9-]{1,60}$ (lowercase letters, digits and '-', 1 to 60 characters)" });

export const branchId = projectId;

/** The one auth provider of this API generation. */
export const AUTH_PROVIDERS = ["stack"] as const;
export const authProvider = z.enum(AUTH_PROVIDERS, { message: 'must be "stack", the only auth provider of this API generation' });
export type AuthProvider = z.infer<typeof authProvider>;

export const OAUTH_PROVIDER_IDS = ["google", "github", "microsoft"] as const;
export const oauthProviderId = z.enum(OAUTH_PROVIDER_IDS, { message: 'must be one of "google", "github", "microsoft"' });
export type OAuthProviderId = z.infer<typeof oauthProviderId>;

export const email = z
  .string()
  .min(1, { message: "must not be empty" })
  .max(256, { message: "must be at most 256 characters" })
  .pipe(z.email({ message: "must be a valid email address" }));

export const userName = z
  .string()
  .min(1, { message: "must be 1 to 255 characters" })
  .max(255, { message: "must be 1 to 255 characters" });

/** An origin: scheme, host and optional port; no path, query, fragment or trailing slash. */
const ORIGIN_PATTERN = /^https?:\/\/(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::(\d{1,5}))?$/i;

export function isOrigin(value: string): boolean {
  const m = ORIGIN_PATTERN.exec(value);
  if (!m) return false;
  const port = m[1] === undefined ? undefined : Number(m[1]);
  return port === undefined || (port >= 1 && port <= 65535);
}

export const domain = z
  .string()
  .refine(isOrigin, { message: "must be an origin of the form http(s)://host[:port], with no path and no trailing slash" });

export const port = z
  .number({ message: "must be a number" })
  .int({ message: "must be a whole number" })
  .min(1, { message: "must be between 1 and 65535" })
  .max(65535, { message: "must be between 1 and 65535" });

export const nonEmpty = z.string().min(1, { message: "must not be empty" });

/** Neon's error envelope: `code` is a free string, often empty. */
export const errorBody = z.object({
  code: z.string().optional().default(""),
  message: z.string().optional().default(""),
  request_id: z.string().optional(),
});
export type ErrorBody = z.infer<typeof errorBody>;
