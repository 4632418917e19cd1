/**
 * The registry of resource kinds: each kind's provider module, imported statically. `Kind` is
 * read from here, and the runtime's handler table (runtime.ts) must name the same kinds. A kind's
 * class and handler live in the resource file its provider module is named after.
 */
import AuthIntegration from "./AuthIntegration";
import AuthOwnershipTransfer from "./AuthOwnershipTransfer";
import AuthSdkKeys from "./AuthSdkKeys";
import AuthUser from "./AuthUser";
import EmailServer from "./EmailServer";
import NeonAuth from "./NeonAuth";
import OAuthClient from "./OAuthClient";
import OAuthProvider from "./OAuthProvider";
import RedirectDomain from "./RedirectDomain";

export const PROVIDERS = {
  AuthIntegration,
  AuthOwnershipTransfer,
  AuthSdkKeys,
  AuthUser,
  EmailServer,
  NeonAuth,
  OAuthClient,
  OAuthProvider,
  RedirectDomain,
};

/** The resource kinds; also the last part of each type token `pulumi-nodejs:dynamic/neon-auth:<Kind>`. */
export type Kind = keyof typeof PROVIDERS;
