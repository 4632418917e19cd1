/**
 * The table of kinds: each kind's declaration (declaration.ts), by the name the registry gives it
 * (providers/index.ts), so that the two cannot disagree. The runtime dispatches on it, the import
 * helper asks it, and `npm run gen` writes the published types and the README's reference tables
 * from it.
 */
import type { Kind, KindDeclaration } from "./kit";
import { authIntegrationKind } from "./authIntegration";
import { authOwnershipTransferKind } from "./authOwnershipTransfer";
import { authSdkKeysKind } from "./authSdkKeys";
import { authUserKind } from "./authUser";
import { emailServerKind } from "./emailServer";
import { neonAuthKind } from "./neonAuth";
import { oauthClientKind } from "./oauthClient";
import { oauthProviderKind } from "./oauthProvider";
import { redirectDomainKind } from "./redirectDomain";

export const DECLARATIONS: Readonly<Record<Kind, KindDeclaration>> = {
  NeonAuth: neonAuthKind,
  AuthIntegration: authIntegrationKind,
  AuthSdkKeys: authSdkKeysKind,
  AuthOwnershipTransfer: authOwnershipTransferKind,
  AuthUser: authUserKind,
  OAuthProvider: oauthProviderKind,
  RedirectDomain: redirectDomainKind,
  EmailServer: emailServerKind,
  OAuthClient: oauthClientKind,
};
