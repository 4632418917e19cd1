/**
 * The class of each kind, made from its declaration (src/kinds/), with the checks a program can
 * make before any provider call. Their types are written out here, so that the published
 * declaration files name them rather than spell out Pulumi's base class, whose private members an
 * anonymous class type may not carry.
 */
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { authIntegrationKind } from "../kinds/authIntegration";
import { authOwnershipTransferKind } from "../kinds/authOwnershipTransfer";
import { authSdkKeysKind } from "../kinds/authSdkKeys";
import { authUserKind } from "../kinds/authUser";
import { emailServerKind } from "../kinds/emailServer";
import { neonAuthKind } from "../kinds/neonAuth";
import { SETTINGS } from "../kinds/neonAuthSettings";
import { oauthClientKind } from "../kinds/oauthClient";
import { oauthProviderKind } from "../kinds/oauthProvider";
import { redirectDomainKind } from "../kinds/redirectDomain";
import type { KindDeclaration, Props } from "../provider/kit";
import { ADOPTS_CHILDREN, childRegistration } from "./children";
import { checkClientResources, declareOAuthServer, noteTrustedDomain } from "./oauthServerChecks";
import { dataApiKind } from "../kinds/dataApi";
import { projectJwksKind } from "../kinds/projectJwks";
import { declareOnce, notePlainOutputs, registration } from "./registration";
import type { AuthIntegrationArgs, AuthIntegrationOutputs, AuthOwnershipTransferArgs, AuthOwnershipTransferOutputs, AuthSdkKeysArgs, AuthSdkKeysOutputs, AuthUserArgs, AuthUserOutputs, EmailServerArgs, EmailServerOutputs, NeonAuthArgs, NeonAuthOutputs, OAuthClientArgs, OAuthClientOutputs, OAuthProviderArgs, OAuthProviderOutputs, RedirectDomainArgs, RedirectDomainOutputs, DataApiArgs, DataApiOutputs, ProjectJwksArgs, ProjectJwksOutputs } from "./types";

type Options = pulumi.CustomResourceOptions;

/** A kind's class: `new Kind(name, args, opts)`. */
export interface KindClass<A> {
  new (name: string, args: A, opts?: Options): pulumi.dynamic.Resource;
}

/** A kind's class with `get`, which reads an existing object by id without managing it. */
export interface LookupClass<A> extends KindClass<A> {
  /**
   * Looks up an existing object by its id (each kind's page in docs/ gives it), without managing it:
   * the engine reads it on every `up` and `refresh`, and `destroy` only forgets it.
   */
  get<T>(this: new (name: string, args: A, opts?: Options) => T, name: string, id: pulumi.Input<pulumi.ID>, opts?: Options): T;
}

/** How a class turns its Args into what it passes to `super` (a child's: children.ts `childRegistration`). */
type Registers = (decl: KindDeclaration, name: string, args: Props, opts: Options | undefined) => ReturnType<typeof registration>;

/** @internal The class of a kind: its constructor registers the resource. */
export function kindClass<A extends object>(decl: KindDeclaration, registers: Registers = registration): KindClass<A> {
  return class extends pulumi.dynamic.Resource {
    constructor(name: string, args: A, opts?: Options) {
      const registered = registers(decl, name, args, opts);
      super(...registered);
      declareOnce(decl, this.urn, registered[2], opts);
      // What its children take from it is then known plain when it is (registration.ts plainOutputs).
      notePlainOutputs(this, registered[2], registered[3].additionalSecretOutputs);
    }
  };
}

/**
 * @internal
 * The class of a kind whose objects can be looked up. A lookup's args name every input with no
 * value: the engine gives a resource only the outputs whose names its args carry.
 */
export function lookupClass<A extends object>(decl: KindDeclaration, registers: Registers = registration): LookupClass<A> {
  return class extends kindClass<A>(decl, registers) {
    static get<T>(this: new (name: string, args: A, opts?: Options) => T, name: string, id: pulumi.Input<pulumi.ID>, opts?: Options): T {
      const none = Object.fromEntries(Object.keys((decl.schema as z.ZodObject).shape).map((k) => [k, undefined]));
      return new this(name, none as A, { ...opts, id });
    }
  };
}

/**
 * Neon Auth on a project: provisions a managed auth project at the provider and the
 * `neon_auth.users_sync` table. Any input change replaces it (delete first: one per provider).
 * Refresh reads it from the project's integration list.
 *
 * @example
 * ```ts
 * const auth = new AuthIntegration("auth", { projectId: "p-123", branchId: "br-main-1" });
 * export const env = auth.envVars; // secret
 * ```
 */
export class AuthIntegration extends lookupClass<AuthIntegrationArgs>(authIntegrationKind) {}

export interface AuthIntegration extends AuthIntegrationOutputs {}

/**
 * Step one of moving the managed auth project to your own Stack Auth account: requests a
 * transfer URL (secret: it carries a one-time code). Step two happens outside Pulumi: open the
 * URL in a browser and confirm the receiving account. Refresh then shows `ownedBy: "user"` on
 * this resource and on the AuthIntegration.
 *
 * @example
 * ```ts
 * const transfer = new AuthOwnershipTransfer("transfer", { integration: auth });
 * export const transferUrl = transfer.url; // secret: `pulumi stack output transferUrl --show-secrets`
 * ```
 */
export class AuthOwnershipTransfer extends kindClass<AuthOwnershipTransferArgs>(authOwnershipTransferKind, childRegistration) {}

export interface AuthOwnershipTransfer extends AuthOwnershipTransferOutputs {}

/**
 * A freshly generated SDK key set for an existing integration. Changing `rotationTrigger`
 * generates a new set (the old one is not revoked: the API cannot do that).
 *
 * @example
 * ```ts
 * const keys = new AuthSdkKeys("keys", { integration: auth, rotationTrigger: "2026-11" });
 * ```
 */
export class AuthSdkKeys extends kindClass<AuthSdkKeysArgs>(authSdkKeysKind, childRegistration) {}

export interface AuthSdkKeys extends AuthSdkKeysOutputs {}

/**
 * A user of the project's auth. The API can create and delete users but not read or update
 * them: a new email or name is refused at preview unless `recreateOnChange` is set (then the
 * account is deleted and created anew). Users are read back from the database (setting
 * `neon-auth:readUsersFromDatabase`, default true): `neon_auth."user"` on a NeonAuth (with roles
 * and bans), `neon_auth.users_sync` at project level. A create whose answer was lost converges,
 * and refresh sees a user deleted, renamed or given other roles elsewhere.
 *
 * @example
 * ```ts
 * const ada = new AuthUser("ada", { integration: auth, email: "ada@example.com", name: "Ada" });
 * export const adaId = ada.userId;
 * ```
 */
export class AuthUser extends lookupClass<AuthUserArgs>(authUserKind, childRegistration) {}

export interface AuthUser extends AuthUserOutputs {}

/**
 * The email server that sends verification and password-reset mail. `standard` uses your SMTP
 * server; `shared` uses Neon's. Create and update set the configuration; delete sets it back
 * to shared. Id (for `get` and `importFile`):
 * `<projectId>/email-server`.
 *
 * @example
 * ```ts
 * const cfg = new pulumi.Config();
 * new EmailServer("smtp", { integration: auth, type: "standard", host: "smtp.example.com", port: 587,
 *   username: "apikey", password: cfg.requireSecret("smtpPassword"),
 *   senderEmail: "auth@example.com", senderName: "Example" });
 * ```
 */
export class EmailServer extends lookupClass<EmailServerArgs>(emailServerKind, childRegistration) {}

export interface EmailServer extends EmailServerOutputs {}

/**
 * Neon Auth on one branch (the branch-scoped API generation, Better Auth). The id is
 * `<projectId>/<branchId>`. Settings given are applied after enabling and compared on refresh;
 * settings and fields left out are left as the service has them.
 *
 * @example
 * ```ts
 * const auth = new NeonAuth("auth", { projectId: "p-123", branchId: "br-main-1", allowLocalhost: false });
 * ```
 */
export class NeonAuth extends lookupClass<NeonAuthArgs>(neonAuthKind) {
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

// Its outputs, the settings' among them, generated from the declaration (types/).
export interface NeonAuth extends NeonAuthOutputs {}

/**
 * A client of a branch's OAuth server (`NeonAuth.oauthServer`, beta): an app or MCP client that
 * signs its users in with the branch's Neon Auth. A confidential client's `clientSecret` is
 * returned once, at create (or rotation), and kept as a secret output; Neon never shows it again.
 * Id (for `get` and `importFile`): `<projectId>/<branchId>/<clientId>`.
 *
 * @example
 * ```ts
 * new OAuthClient("dashboard", {
 *   integration: auth,
 *   name: "Dashboard",
 *   type: "confidential",
 *   redirectUris: ["https://app.example.com/oauth/callback"],
 *   resources: ["https://api.example.com"],
 * });
 * ```
 */
export class OAuthClient extends lookupClass<OAuthClientArgs>(oauthClientKind, childRegistration) {
  constructor(name: string, args: OAuthClientArgs, opts?: pulumi.CustomResourceOptions) {
    if (opts?.id === undefined) checkClientResources(name, args);
    super(name, args, opts);
  }
}

export interface OAuthClient extends OAuthClientOutputs {}

/**
 * An OAuth sign-in provider. Without credentials it uses Neon's shared keys (`type: "shared"`,
 * fine for development); with `clientId` and `clientSecret` it uses your own app
 * (`type: "standard"`, recommended for production). Credential changes update in place;
 * a new `providerId` or dropping the credentials replaces it.
 *
 * @example
 * ```ts
 * const cfg = new pulumi.Config();
 * new OAuthProvider("github", { integration: auth, providerId: "github",
 *   clientId: cfg.require("githubClientId"), clientSecret: cfg.requireSecret("githubClientSecret") });
 * ```
 */
export class OAuthProvider extends lookupClass<OAuthProviderArgs>(oauthProviderKind, childRegistration) {}

export interface OAuthProvider extends OAuthProviderOutputs {}

/**
 * One origin on the redirect-URI whitelist (a "trusted domain" of a NeonAuth). Changing it
 * replaces the entry. Id (for `get` and `importFile`): `<projectId>/<origin>`, e.g.
 * `p-123/https://app.example.com`; on a NeonAuth `<projectId>/<branchId>/<origin>`.
 *
 * @example
 * ```ts
 * new RedirectDomain("app", { integration: auth, domain: "https://app.example.com" });
 * ```
 */
export class RedirectDomain extends lookupClass<RedirectDomainArgs>(redirectDomainKind, childRegistration) {
  constructor(name: string, args: RedirectDomainArgs, opts?: pulumi.CustomResourceOptions) {
    if (opts?.id === undefined) noteTrustedDomain(args.integration, args.domain);
    super(name, args, opts);
  }
}

export interface RedirectDomain extends RedirectDomainOutputs {}

/**
 * Neon's Data API on one database of a branch: a REST interface over it that accepts the tokens of
 * the branch's Neon Auth (`integration`) or of another identity provider (`jwksUrl`, with
 * `projectId` and `branchId`). Authentication is fixed at creation (a change replaces it); the
 * settings change in place, and those left out are left as Neon has them. The role of a request is
 * read from its token at `jwtRoleClaimKey` (`.role`: an `AuthUser`'s roles). Id (for `get` and
 * `importFile`): `<projectId>/<branchId>/<database>`.
 *
 * @example
 * ```ts
 * const api = new DataApi("api", { integration: auth, dbSchemas: ["api"], jwtRoleClaimKey: ".role" });
 * export const dataApiUrl = api.url;
 * ```
 */
export class DataApi extends lookupClass<DataApiArgs>(dataApiKind, childRegistration) {}

export interface DataApi extends DataApiOutputs {}

/**
 * One JWKS URL of a project: Neon then accepts tokens signed by that identity provider (Clerk,
 * Auth0, Cognito…) on the Data API and on Postgres connections, for every branch or for the one
 * `branchId` names. Neon cannot change an entry: any input but `adopt` replaces it. Id (for `get`
 * and `importFile`): `<projectId>/<jwksId>`.
 *
 * @example
 * ```ts
 * new ProjectJwks("clerk", { projectId: "p-123", providerName: "Clerk",
 *   jwksUrl: "https://example.clerk.accounts.dev/.well-known/jwks.json", jwtAudience: "api://app" });
 * ```
 */
export class ProjectJwks extends lookupClass<ProjectJwksArgs>(projectJwksKind) {}

export interface ProjectJwks extends ProjectJwksOutputs {}
