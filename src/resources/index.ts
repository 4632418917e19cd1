export { AuthIntegration } from "./authIntegration";
export { AuthSdkKeys } from "./authSdkKeys";
export { AuthOwnershipTransfer } from "./authOwnershipTransfer";
export { AuthUser } from "./authUser";
export { OAuthProvider } from "./oauthProvider";
export { OAuthClient } from "./oauthClient";
export { RedirectDomain } from "./redirectDomain";
export { EmailServer } from "./emailServer";
export { NeonAuth } from "./neonAuth";
// Each kind's Args, outputs and value types, generated from its declaration (kinds.ts).
export type * from "./types";
export type * from "./settingTypes";
export type { AuthProviderOutput, ChildOutputs, EitherChildOutputs, NeonAuthChildOutputs, IntegrationIdentity, ParentIntegration, ProjectIntegration, NeonAuthIntegration } from "./parent";
