/**
 * The table of kinds: each kind's declaration (provider/declaration.ts), by its name. Both faces
 * dispatch on it (the dynamic resources by name, through `calls`; the plugin by type token), the
 * import tools ask it, and `npm run gen` writes the published types, the plugin's schema and the
 * README's reference tables from it.
 */
import type { Context } from "../provider/context";
import type { Kind, KindDeclaration } from "../provider/kit";
import { guardedCalls, type Provided } from "../provider/runtime";
import { authIntegrationKind } from "./authIntegration";
import { authOwnershipTransferKind } from "./authOwnershipTransfer";
import { authSdkKeysKind } from "./authSdkKeys";
import { authUserKind } from "./authUser";
import { emailServerKind } from "./emailServer";
import { neonAuthKind } from "./neonAuth";
import { oauthClientKind } from "./oauthClient";
import { oauthProviderKind } from "./oauthProvider";
import { redirectDomainKind } from "./redirectDomain";
import { dataApiKind } from "./dataApi";
import { projectJwksKind } from "./projectJwks";

export const DECLARATIONS: Readonly<Record<Kind, KindDeclaration>> = {
  DataApi: dataApiKind,
  NeonAuth: neonAuthKind,
  AuthIntegration: authIntegrationKind,
  AuthSdkKeys: authSdkKeysKind,
  AuthOwnershipTransfer: authOwnershipTransferKind,
  AuthUser: authUserKind,
  OAuthProvider: oauthProviderKind,
  RedirectDomain: redirectDomainKind,
  EmailServer: emailServerKind,
  OAuthClient: oauthClientKind,
  ProjectJwks: projectJwksKind,
};

/** The calls of a kind on a context (the provider plugin's, or the process's unless given). */
export function calls(kind: Kind, ctx?: Context): Provided {
  const decl = DECLARATIONS[kind];
  if (!decl) throw new Error(`pulumi-neon-auth has no resource kind ${kind}; is the installed package older than the stack?`);
  return guardedCalls(decl, ctx);
}
