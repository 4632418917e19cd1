/**
 * Requests and responses of the project-level auth endpoints.
 * Requests are strict (we never send a field the API does not know); responses are lenient
 * (unknown fields are dropped, missing required fields fail with the field's name).
 */
import { z } from "zod";
import { authProvider, branchId, domain, wholeList, email, databaseName, NEON_DEFAULTS, oauthClientId, oauthClientSecret, roleName, senderName, smtpHost, smtpPassword, smtpUsername, oauthProviderId, projectId, userName } from "./common";
import { secretField } from "./fields";
import { port } from "./urls";

// ---- integration ----------------------------------------------------------------------------

export const createIntegrationRequest = z.strictObject({
  auth_provider: authProvider,
  project_id: projectId,
  branch_id: branchId,
  database_name: databaseName.default(NEON_DEFAULTS.database),
  role_name: roleName.default(NEON_DEFAULTS.role),
});
export type CreateIntegrationRequest = z.input<typeof createIntegrationRequest>;

/**
 * The auth project at the provider, as every answer about an integration names it. What only
 * describes it (the JWKS URL, the database, the owner) may be left out by Neon: not set, never a
 * failed read; the kinds keep what they recorded (neonAuth.ts, authIntegration.ts).
 */
const authProject = { auth_provider: z.string(), auth_provider_project_id: z.string(), jwks_url: z.string().optional() };

/** Response of create integration and of generate SDK keys. */
export const keySet = z.object({
  ...authProject,
  pub_client_key: secretField(z.string()),
  secret_server_key: secretField(z.string()),
  schema_name: z.string(),
  table_name: z.string(),
  base_url: z.string().optional(),
});
export type KeySet = z.infer<typeof keySet>;

export const integration = z.object({
  ...authProject,
  branch_id: z.string(),
  db_name: z.string().optional(),
  created_at: z.string(),
  owned_by: z.string().optional(),
  transfer_status: z.string().optional(),
});
export type Integration = z.infer<typeof integration>;

export const listIntegrationsResponse = wholeList({ data: z.array(integration) });

export const generateSdkKeysRequest = z.strictObject({ project_id: projectId, auth_provider: authProvider });
export type GenerateSdkKeysRequest = z.input<typeof generateSdkKeysRequest>;

export const transferOwnershipRequest = generateSdkKeysRequest;
export type TransferOwnershipRequest = GenerateSdkKeysRequest;
/** The URL carries a one-time code: whoever opens it takes the project's auth. */
export const transferOwnershipResponse = z.object({ url: secretField(z.string()) });

// ---- users ----------------------------------------------------------------------------------

export const createUserRequest = z.strictObject({
  project_id: projectId,
  auth_provider: authProvider,
  email,
  name: userName.optional(),
});
export type CreateUserRequest = z.input<typeof createUserRequest>;
export const createUserResponse = z.object({ id: z.string() });

// ---- OAuth providers ------------------------------------------------------------------------

export const oauthProviderSummary = z.object({ id: z.string(), type: z.string() });
export const listOAuthProvidersResponse = wholeList({ providers: z.array(oauthProviderSummary) });

export const oauthProvider = z.object({
  id: z.string(),
  type: z.string(),
  client_id: z.string().optional(),
  client_secret: secretField(z.string()).optional(),
});
export type OAuthProvider = z.infer<typeof oauthProvider>;

/** An OAuth app's credentials, as both generations take them. */
export const oauthCredentials = { client_id: oauthClientId.optional(), client_secret: oauthClientSecret.optional() };

/** Both credentials or neither: with neither, Neon's shared keys are used. */
export const credentialsTogether: [
  (b: { client_id?: string | undefined; client_secret?: string | undefined }) => boolean,
  { message: string; path: string[] },
] = [
  (b) => (b.client_id === undefined) === (b.client_secret === undefined),
  { message: "client_id and client_secret must be given together (both for standard, neither for shared)", path: ["client_secret"] },
];

export const addOAuthProviderRequest = z.strictObject({ id: oauthProviderId, ...oauthCredentials }).refine(...credentialsTogether);
export type AddOAuthProviderRequest = z.input<typeof addOAuthProviderRequest>;

export const updateOAuthProviderRequest = z.strictObject(oauthCredentials);
export type UpdateOAuthProviderRequest = z.input<typeof updateOAuthProviderRequest>;

// ---- redirect domains -----------------------------------------------------------------------

export const domainEntry = z.object({ domain: z.string(), auth_provider: z.string() });
export const listDomainsResponse = wholeList({ domains: z.array(domainEntry) });

export const addDomainRequest = z.strictObject({ domain, auth_provider: authProvider });
export type AddDomainRequest = z.input<typeof addDomainRequest>;

export const deleteDomainsRequest = z.strictObject({
  auth_provider: authProvider,
  domains: z.array(z.strictObject({ domain: z.string().min(1) })).min(1, { message: "must name at least one domain" }),
});
export type DeleteDomainsRequest = z.input<typeof deleteDomainsRequest>;

// ---- email server ---------------------------------------------------------------------------

export const sharedEmailServer = z.strictObject({ type: z.literal("shared") });
/** The SMTP fields, as both generations' requests name them. */
export const smtpFields = { host: smtpHost, port, username: smtpUsername, password: smtpPassword, sender_email: email, sender_name: senderName };
export const standardEmailServer = z.strictObject({ type: z.literal("standard"), ...smtpFields });
export const updateEmailServerRequest = z.discriminatedUnion("type", [sharedEmailServer, standardEmailServer], {
  message: 'must be "shared" or "standard"',
});
export type UpdateEmailServerRequest = z.input<typeof updateEmailServerRequest>;

/** A standard (SMTP) email server as the service returns it: `password` may be omitted or empty. */
export const standardEmailServerResponse = z.object({
  type: z.literal("standard"),
  host: z.string(),
  port: z.number(),
  username: z.string(),
  password: secretField(z.string()).optional(),
  sender_email: z.string(),
  sender_name: z.string(),
});

/**
 * An email server of a type this package does not know (Neon adds providers, `resend` say): read
 * as `other` with Neon's name for it, so that a stack that does not manage it never fails, and
 * one that does shows it as drift with that name.
 */
export const otherEmailServer = z
  .object({ type: z.string().refine((t) => t !== "shared" && t !== "standard", { message: "a known type must have its fields" }) })
  .transform((v) => ({ type: "other" as const, name: v.type }));

/** What the service returns: unknown fields are dropped, an unknown type is `other`. */
export const emailServer = z.union([z.object({ type: z.literal("shared") }), standardEmailServerResponse, otherEmailServer]);
export type EmailServer = z.infer<typeof emailServer>;
