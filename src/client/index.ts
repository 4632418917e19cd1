/**
 * HTTP client of the Neon API (the auth endpoints plus the project endpoints that host them).
 *
 * - `createClient(options)`: a new client.
 * - `getClient(options)`: the process-wide client for (baseUrl, apiKey); use this from resources so
 *   that one limiter and one connection pool serve a whole `pulumi up`.
 * - Errors: one hierarchy rooted at `NeonError` (errors.ts); `isNotFound`, `isConflict`,
 *   `mayHaveActed` answer the questions resources ask.
 */
export { getClient, resetSharedClients } from "./shared";
export {
  createClient,
  hashKey,
  formatIssues,
  DEFAULT_BASE_URL,
  type ClientOptions,
  type NeonClient,
  type AttemptTimeouts,
  type WaitOptions,
  type WaitEvent,
  type WaitKind,
} from "./client";
export {
  NeonError,
  NeonApiError,
  NeonNetworkError,
  NeonTimeoutError,
  NeonResponseError,
  NeonOperationError,
  NeonConfigError,
  isNotFound,
  isConflict,
  mayHaveActed,
  type HttpMethod,
} from "./errors";
export { DEFAULT_RETRY, type RetryOptions } from "./retry";
export { DEFAULT_BATCH, type BatchOptions } from "./batch";
export { DEFAULT_PACING, RateLimiter, TokenBucket, sharedLimiter, type PacingOptions } from "./pacing";
export { redactValue, redactText, collectSecrets, leaves, rememberSecrets, SECRET_FIELDS, REDACTED } from "./redact";
export type {
  AddDomainRequest,
  AddOAuthProviderRequest,
  Branch,
  CreateIntegrationRequest,
  CreateProjectResponse,
  CreateUserRequest,
  DeleteDomainsRequest,
  EmailServer,
  GenerateSdkKeysRequest,
  Integration,
  KeySet,
  OAuthProvider,
  Operation,
  Project,
  TransferOwnershipRequest,
  UpdateEmailServerRequest,
  UpdateOAuthProviderRequest,
} from "../schemas";
