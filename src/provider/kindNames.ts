/**
 * The resource kinds, by name: the last part of each type token (`pulumi-nodejs:dynamic/neon-auth:<Kind>`,
 * `neon-auth:index:<Kind>`). Alone in its module so that published types naming a kind (the policy
 * pack's) reach nothing else.
 */
export const KINDS = ["AuthIntegration", "AuthOwnershipTransfer", "AuthSdkKeys", "AuthUser", "EmailServer", "NeonAuth", "OAuthClient", "OAuthProvider", "RedirectDomain", "DataApi", "ProjectJwks"] as const;
export type Kind = (typeof KINDS)[number];
