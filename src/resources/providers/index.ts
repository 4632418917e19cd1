/**
 * The provider object of each kind (provider/kindNames.ts `KINDS`): its module, imported
 * statically. Its rules and handler are in src/kinds/, its class in classes.ts.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { Kind } from "../../provider/kindNames";
import AuthIntegration from "./AuthIntegration";
import AuthOwnershipTransfer from "./AuthOwnershipTransfer";
import AuthSdkKeys from "./AuthSdkKeys";
import AuthUser from "./AuthUser";
import EmailServer from "./EmailServer";
import NeonAuth from "./NeonAuth";
import OAuthClient from "./OAuthClient";
import OAuthProvider from "./OAuthProvider";
import RedirectDomain from "./RedirectDomain";
import DataApi from "./DataApi";
import ProjectJwks from "./ProjectJwks";

export const PROVIDERS: Readonly<Record<Kind, pulumi.dynamic.ResourceProvider>> = {
  DataApi,
  ProjectJwks,
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
