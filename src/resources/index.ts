export { AuthIntegration, type AuthIntegrationArgs } from "./authIntegration";
export { AuthSdkKeys, type AuthSdkKeysArgs } from "./authSdkKeys";
export { AuthOwnershipTransfer, type AuthOwnershipTransferArgs } from "./authOwnershipTransfer";
export { AuthUser, type AuthUserArgs } from "./authUser";
export { OAuthProvider, type OAuthProviderArgs } from "./oauthProvider";
export { RedirectDomain, type RedirectDomainArgs } from "./redirectDomain";
export { EmailServer, type EmailServerArgs } from "./emailServer";
export type { IntegrationIdentity, ParentIntegration } from "./parent";
