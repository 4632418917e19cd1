export { AuthIntegration, type AuthIntegrationArgs } from "./authIntegration";
export { AuthSdkKeys, type AuthSdkKeysArgs } from "./authSdkKeys";
export { AuthOwnershipTransfer, type AuthOwnershipTransferArgs } from "./authOwnershipTransfer";
export { AuthUser, type AuthUserArgs, type ProjectAuthUserArgs, type NeonAuthUserArgs } from "./authUser";
export { OAuthProvider, type OAuthProviderArgs, type OAuthProviderId, type OAuthProviderType, type ProjectOAuthProviderArgs, type NeonAuthOAuthProviderArgs } from "./oauthProvider";
export { RedirectDomain, type RedirectDomainArgs } from "./redirectDomain";
export { EmailServer, type EmailServerArgs, type ProjectEmailServerArgs, type NeonAuthEmailServerArgs } from "./emailServer";
export {
  NeonAuth,
  type NeonAuthArgs,
  type EmailAndPasswordSettings,
  type OrganizationSettings,
  type MagicLinkSettings,
  type PhoneNumberSettings,
  type WebhookSettings,
  type WebhookEvent,
  type EmailAndPasswordFields,
  type OrganizationFields,
  type MagicLinkFields,
  type PhoneNumberFields,
  type WebhookFields,
} from "./neonAuth";
export type { IntegrationIdentity, ParentIntegration, ProjectIntegration, NeonAuthIntegration } from "./parent";
