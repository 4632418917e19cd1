/**
 * Entry point of the dynamic-provider process: the serialized provider methods (kit.ts) load
 * this module by package name and dispatch to the handler of their resource kind.
 */
import "../nodeVersion";
import type { Handler, Kind } from "./kit";
import { integrationHandler } from "./authIntegration";
import { sdkKeysHandler } from "./authSdkKeys";
import { ownershipTransferHandler } from "./authOwnershipTransfer";
import { userHandler } from "./authUser";
import { oauthProviderHandler } from "./oauthProvider";
import { redirectDomainHandler } from "./redirectDomain";
import { emailServerHandler } from "./emailServer";

import { settingsReady } from "./context";

export { configure } from "./context";

const handlers: Record<Kind, Handler> = {
  AuthIntegration: integrationHandler,
  AuthSdkKeys: sdkKeysHandler,
  AuthOwnershipTransfer: ownershipTransferHandler,
  AuthUser: userHandler,
  OAuthProvider: oauthProviderHandler,
  RedirectDomain: redirectDomainHandler,
  EmailServer: emailServerHandler,
};

export function handler(kind: Kind): Handler {
  const h = handlers[kind];
  if (!h) throw new Error(`pulumi-neon-auth has no resource kind ${kind}; is the installed package older than the stack?`);
  // Every call, check included, first needs settings that make sense: so preview already says
  // what is missing, for each resource, without sending anything.
  settingsReady();
  return h;
}
