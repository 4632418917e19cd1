/**
 * The bases of the classes that check more in the program than their registration does, before any
 * provider call; classes.ts (generated from the table of kinds) gives each its name and its doc.
 * Only classes with behaviour of their own are written here.
 */
import type * as pulumi from "@pulumi/pulumi";
import { neonAuthKind } from "../kinds/neonAuth";
import { SETTINGS } from "../kinds/neonAuthSettings";
import { oauthClientKind } from "../kinds/oauthClient";
import { redirectDomainKind } from "../kinds/redirectDomain";
import { ADOPTS_CHILDREN, childRegistration } from "./children";
import { lookupClass } from "./kindClass";
import { checkClientResources, declareOAuthServer, noteTrustedDomain } from "./oauthServerChecks";
import type { NeonAuthArgs, NeonAuthOutputs, OAuthClientArgs, OAuthClientOutputs, RedirectDomainArgs, RedirectDomainOutputs } from "./types";

/** NeonAuth: its settings and what its children read of it registered, and its OAuth server noted for its clients. */
export class NeonAuthBase extends lookupClass<NeonAuthArgs, NeonAuthOutputs>(neonAuthKind) {
  constructor(name: string, args: NeonAuthArgs, opts?: pulumi.CustomResourceOptions) {
    // Registered even when left out, as children read them: `deleteDataOnDestroy` tells them their
    // parent is a NeonAuth (children.ts), `authProvider` is sent with their requests.
    // Every setting is registered, given or not, so that each input is also an output.
    const settings = Object.fromEntries(SETTINGS.map((k) => [k, undefined]));
    super(name, { databaseName: undefined, deleteDataOnDestroy: undefined, authProvider: undefined, ...settings, ...args }, opts);
    (this as { [ADOPTS_CHILDREN]?: pulumi.Input<boolean> })[ADOPTS_CHILDREN] = args.adopt;
    declareOAuthServer(this, name, args.oauthServer);
  }
}

/** OAuthClient: its resources checked against its NeonAuth's OAuth server. */
export class OAuthClientBase extends lookupClass<OAuthClientArgs, OAuthClientOutputs>(oauthClientKind, childRegistration) {
  constructor(name: string, args: OAuthClientArgs, opts?: pulumi.CustomResourceOptions) {
    if (opts?.id === undefined) checkClientResources(name, args);
    super(name, args, opts);
  }
}

/** RedirectDomain: its origin noted as trusted for the OAuth server's checks. */
export class RedirectDomainBase extends lookupClass<RedirectDomainArgs, RedirectDomainOutputs>(redirectDomainKind, childRegistration) {
  constructor(name: string, args: RedirectDomainArgs, opts?: pulumi.CustomResourceOptions) {
    if (opts?.id === undefined) noteTrustedDomain(args.integration, args.domain);
    super(name, args, opts);
  }
}
