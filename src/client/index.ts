/**
 * HTTP client of the Neon API (the auth endpoints plus the project endpoints that host them).
 *
 * - `createClient(options)`: a new client (its own connection pool; clients of one key share one
 *   rate limiter). The resources make one per provider process (provider/context.ts).
 * - Errors: one hierarchy rooted at `NeonError` (errors.ts); `isNotFound`, `isConflict`,
 *   `mayHaveActed` answer the questions resources ask.
 */
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
  type WriteEvent,
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
