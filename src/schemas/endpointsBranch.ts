/**
 * The branch-scoped (Better Auth) generation: the 36 endpoints, all
 * under `/projects/{project_id}/branches/{branch_id}/auth`.
 */
import * as s from "./branchAuth";
import { keySet, listDomainsResponse } from "./auth";
import { endpoint, LOCKED, type Endpoint, type HttpMethod } from "./endpoint";
import { dataApiEndpoints } from "./endpointsDataApi";
import type { z } from "zod";

const AUTH = "/projects/{project_id}/branches/{branch_id}/auth";
const NOT_ENABLED = "auth is not enabled on the branch, or the branch does not exist";

function branch<const P extends string, Req extends z.ZodType | undefined = undefined, Res extends z.ZodType | undefined = undefined>(
  name: string,
  method: HttpMethod,
  path: P,
  def: { request?: Req; response?: Res; success: number[]; errors?: Record<number, string>; deviations?: Parameters<typeof endpoint>[0]["deviations"] },
) {
  const locked: Record<number, string> = method === "GET" ? {} : LOCKED;
  return endpoint({ name, generation: "branch", method, path, ...def, errors: { 404: NOT_ENABLED, ...locked, ...def.errors } });
}

/** A setting's PATCH: it answers with the setting as it now is. */
function patch<const P extends string, Req extends z.ZodType, Res extends z.ZodType>(name: string, path: P, request: Req, response: Res) {
  return branch(name, "PATCH", path, { request, response, success: [200] });
}

/** A 404 of an object of the branch's auth, which a branch without auth answers too. */
const UNKNOWN_USER = { 404: "unknown user (or auth not enabled)" } as const;
const UNKNOWN_PROVIDER = { 404: "the provider is not configured (or auth not enabled)" } as const;
const UNKNOWN_CLIENT = { 404: "unknown client (or auth not enabled)" } as const;

const SMTP_TEST_MISSING = {
  kind: "not-in-document",
  why: "Neon's API reference (newer than 2.7.3) adds POST …/auth/email_provider/test",
} as const;

const OAUTH_SERVER_MISSING = {
  kind: "not-in-document",
  why: "Neon's API reference (newer than 2.7.3) adds GET and PATCH …/auth/plugins/oauth-provider, the OAuth-server plugin",
} as const;

const OAUTH_CLIENTS_MISSING = {
  kind: "not-in-document",
  why: "Neon's API reference (newer than 2.7.3) adds the OAuth server's clients: list, create, update, delete and rotate_secret under …/auth/oauth-provider/clients",
} as const;

export const branchEndpoints = {
  getBranchAuth: branch("getBranchAuth", "GET", AUTH, { response: s.branchIntegration, success: [200] }),
  enableBranchAuth: branch("enableBranchAuth", "POST", AUTH, {
    request: s.enableBranchAuthRequest,
    response: keySet,
    success: [201],
    errors: { 404: "unknown branch", 409: "auth is already enabled on the branch" },
  }),
  disableBranchAuth: branch("disableBranchAuth", "DELETE", AUTH, { request: s.disableBranchAuthRequest, success: [200, 204] }),

  listBranchDomains: branch("listBranchDomains", "GET", `${AUTH}/domains`, { response: listDomainsResponse, success: [200] }),
  addBranchDomain: branch("addBranchDomain", "POST", `${AUTH}/domains`, { request: s.branchAddDomainRequest, success: [201, 200, 204] }),
  deleteBranchDomains: branch("deleteBranchDomains", "DELETE", `${AUTH}/domains`, {
    request: s.branchDeleteDomainsRequest,
    success: [200, 204],
  }),

  createBranchUser: branch("createBranchUser", "POST", `${AUTH}/users`, {
    request: s.branchCreateUserRequest,
    response: s.userIdResponse,
    success: [201],
    errors: { 409: "a user with this email exists on the branch" },
  }),
  deleteBranchUser: branch("deleteBranchUser", "DELETE", `${AUTH}/users/{auth_user_id}`, { success: [204, 200], errors: UNKNOWN_USER }),
  setBranchUserRoles: branch("setBranchUserRoles", "PUT", `${AUTH}/users/{auth_user_id}/role`, {
    request: s.setUserRolesRequest,
    response: s.userIdResponse,
    success: [200],
    errors: UNKNOWN_USER,
  }),

  listBranchOAuthProviders: branch("listBranchOAuthProviders", "GET", `${AUTH}/oauth_providers`, {
    response: s.branchListOAuthProvidersResponse,
    success: [200],
  }),
  addBranchOAuthProvider: branch("addBranchOAuthProvider", "POST", `${AUTH}/oauth_providers`, {
    request: s.branchAddOAuthProviderRequest,
    response: s.branchOAuthProvider,
    success: [200, 201],
    errors: {
      400: "INVALID_SHARED_OAUTH_PROVIDER: a provider without credentials that Neon cannot share",
      409: "the provider is already configured",
    },
  }),
  updateBranchOAuthProvider: branch("updateBranchOAuthProvider", "PATCH", `${AUTH}/oauth_providers/{oauth_provider_id}`, {
    request: s.branchUpdateOAuthProviderRequest,
    response: s.branchOAuthProvider,
    success: [200],
    errors: UNKNOWN_PROVIDER,
  }),
  deleteBranchOAuthProvider: branch("deleteBranchOAuthProvider", "DELETE", `${AUTH}/oauth_providers/{oauth_provider_id}`, { success: [200, 204], errors: UNKNOWN_PROVIDER }),

  getBranchEmailProvider: branch("getBranchEmailProvider", "GET", `${AUTH}/email_provider`, { response: s.emailProvider, success: [200] }),
  updateBranchEmailProvider: branch("updateBranchEmailProvider", "PATCH", `${AUTH}/email_provider`, {
    request: s.updateEmailProviderRequest,
    response: s.emailProvider,
    success: [200],
    errors: { 400: "a stack integration, or a switch from shared, given fewer than all six SMTP fields" },
    deviations: [
      {
        kind: "request-optional",
        fields: s.SMTP_FIELDS,
        why: "Better Auth merges a partial standard update into the saved settings",
      },
    ],
  }),
  testBranchEmailProvider: branch("testBranchEmailProvider", "POST", `${AUTH}/email_provider/test`, {
    request: s.testEmailProviderRequest,
    response: s.emailTestResult,
    success: [200],
    errors: { 400: "the saved provider is not standard SMTP, or the integration is not Better Auth" },
    deviations: [SMTP_TEST_MISSING],
  }),
  sendBranchTestEmail: branch("sendBranchTestEmail", "POST", `${AUTH}/send_test_email`, {
    request: s.sendTestEmailRequest,
    response: s.emailTestResult,
    success: [200],
  }),

  getBranchEmailAndPassword: branch("getBranchEmailAndPassword", "GET", `${AUTH}/email_and_password`, { response: s.emailAndPassword, success: [200] }),
  updateBranchEmailAndPassword: patch("updateBranchEmailAndPassword", `${AUTH}/email_and_password`, s.updateEmailAndPasswordRequest, s.emailAndPassword),
  getBranchAllowLocalhost: branch("getBranchAllowLocalhost", "GET", `${AUTH}/allow_localhost`, { response: s.allowLocalhost, success: [200] }),
  updateBranchAllowLocalhost: patch("updateBranchAllowLocalhost", `${AUTH}/allow_localhost`, s.updateAllowLocalhostRequest, s.allowLocalhost),
  getBranchPlugins: branch("getBranchPlugins", "GET", `${AUTH}/plugins`, { response: s.pluginConfigs, success: [200] }),
  updateBranchOrganizationPlugin: patch("updateBranchOrganizationPlugin", `${AUTH}/plugins/organization`, s.updateOrganizationPluginRequest, s.organizationPlugin),
  updateBranchMagicLinkPlugin: patch("updateBranchMagicLinkPlugin", `${AUTH}/plugins/magic-link`, s.updateMagicLinkPluginRequest, s.magicLinkPlugin),
  getBranchPhoneNumberPlugin: branch("getBranchPhoneNumberPlugin", "GET", `${AUTH}/plugins/phone-number`, { response: s.phoneNumberPlugin, success: [200] }),
  updateBranchPhoneNumberPlugin: patch("updateBranchPhoneNumberPlugin", `${AUTH}/plugins/phone-number`, s.updatePhoneNumberPluginRequest, s.phoneNumberPlugin),
  getBranchWebhooks: branch("getBranchWebhooks", "GET", `${AUTH}/webhooks`, { response: s.webhooks, success: [200] }),
  putBranchWebhooks: branch("putBranchWebhooks", "PUT", `${AUTH}/webhooks`, {
    request: s.putWebhooksRequest,
    response: s.webhooks,
    success: [200],
    errors: { 400: "enabled without a webhook_url" },
  }),
  getBranchOAuthServerPlugin: branch("getBranchOAuthServerPlugin", "GET", `${AUTH}/plugins/oauth-provider`, {
    response: s.oauthServerPlugin,
    success: [200],
    deviations: [OAUTH_SERVER_MISSING],
  }),
  updateBranchOAuthServerPlugin: branch("updateBranchOAuthServerPlugin", "PATCH", `${AUTH}/plugins/oauth-provider`, {
    request: s.updateOAuthServerPluginRequest,
    response: s.oauthServerPlugin,
    success: [200],
    errors: { 400: "enabled on a branch other than the project's root branch" },
    deviations: [OAUTH_SERVER_MISSING],
  }),
  listBranchOAuthClients: branch("listBranchOAuthClients", "GET", `${AUTH}/oauth-provider/clients`, {
    response: s.listOAuthClientsResponse,
    success: [200],
    deviations: [OAUTH_CLIENTS_MISSING],
  }),
  createBranchOAuthClient: branch("createBranchOAuthClient", "POST", `${AUTH}/oauth-provider/clients`, {
    request: s.createOAuthClientRequest,
    response: s.createdOAuthClient,
    success: [201],
    errors: { 400: "a resource not on the plugin, or a redirect URI that is not https (or loopback http with localhost allowed)" },
    deviations: [OAUTH_CLIENTS_MISSING],
  }),
  updateBranchOAuthClient: branch("updateBranchOAuthClient", "PATCH", `${AUTH}/oauth-provider/clients/{client_id}`, {
    request: s.updateOAuthClientRequest,
    response: s.oauthClient,
    success: [200],
    errors: { 400: "a resource not on the plugin, or a redirect URI that is not https (or loopback http with localhost allowed)", ...UNKNOWN_CLIENT },
    deviations: [OAUTH_CLIENTS_MISSING],
  }),
  deleteBranchOAuthClient: branch("deleteBranchOAuthClient", "DELETE", `${AUTH}/oauth-provider/clients/{client_id}`, {
    success: [200, 204],
    errors: UNKNOWN_CLIENT,
    deviations: [OAUTH_CLIENTS_MISSING],
  }),
  rotateBranchOAuthClientSecret: branch("rotateBranchOAuthClientSecret", "POST", `${AUTH}/oauth-provider/clients/{client_id}/rotate_secret`, {
    response: s.rotatedOAuthClientSecret,
    success: [200],
    errors: { 400: "a public client has no secret", ...UNKNOWN_CLIENT },
    deviations: [OAUTH_CLIENTS_MISSING],
  }),
  updateBranchAppName: patch("updateBranchAppName", `${AUTH}/config`, s.appNameRequest, s.appNameResponse),
  ...dataApiEndpoints,
};

/**
 * The settings of a branch's Neon Auth that a `NeonAuth` manages as properties, one row each.
 * Everything else derives from the row: the property's input rule and published type
 * (`npm run gen`), its write and read-back, and the emulator's route, aggregate view and values
 * of a new integration. `write` PATCHes the fields it is given, or PUTs the setting whole.
 */
export interface BranchSetting {
  /** The NeonAuth property: the wire key in camelCase. */
  readonly name: string;
  /** The stem of its published types (`<type>Fields`, `<type>Settings`). */
  readonly type: string;
  /** The wire key: in `GET …/auth/plugins` when `aggregated`, and in the emulator's record. */
  readonly key: string;
  readonly aggregated: boolean;
  /** Its own GET, if it has one (a setting the aggregate read lacks must). */
  readonly read?: Endpoint<any, undefined, z.ZodObject>;
  readonly write: Endpoint<any, z.ZodObject, z.ZodObject>;
  /**
   * Neon's values on a new integration (the example answer of "Retrieve Neon Auth plugin
   * configurations", https://neon.com/docs/reference/api/auth/get-neon-auth-plugin-configs; the
   * webhook timeout: assumption, the PUT's documented default).
   */
  readonly initial: Readonly<Record<string, unknown>>;
  /** What the README and the published type say of it, beside its fields. */
  readonly doc: string;
  /**
   * Objects of the setting that a write replaces whole (a PATCH with `mcp` drops every `mcp` field
   * it leaves out): written back with the fields the program does not name as Neon has them.
   */
  readonly replacedWhole?: readonly string[];
}

const B = branchEndpoints;

export const BRANCH_SETTINGS = [
  {
    name: "emailAndPassword",
    type: "EmailAndPassword",
    key: "email_and_password",
    aggregated: true,
    read: B.getBranchEmailAndPassword,
    write: B.updateBranchEmailAndPassword,
    initial: {
      enabled: true,
      email_verification_method: "otp",
      require_email_verification: false,
      auto_sign_in_after_verification: true,
      send_verification_email_on_sign_up: false,
      send_verification_email_on_sign_in: false,
      disable_sign_up: false,
    },
    doc: "Sign-in with email and password.",
  },
  {
    name: "organization",
    type: "Organization",
    key: "organization",
    aggregated: true,
    write: B.updateBranchOrganizationPlugin,
    initial: { enabled: true, organization_limit: 10, membership_limit: 100, creator_role: "owner", send_invitation_email: false },
    doc: "The organization plugin.",
  },
  {
    name: "magicLink",
    type: "MagicLink",
    key: "magic_link",
    aggregated: true,
    write: B.updateBranchMagicLinkPlugin,
    initial: { enabled: false, expires_in: 5, disable_sign_up: false },
    doc: "Sign-in links by email (`expiresIn` in minutes).",
  },
  {
    name: "phoneNumber",
    type: "PhoneNumber",
    key: "phone_number",
    aggregated: true,
    read: B.getBranchPhoneNumberPlugin,
    write: B.updateBranchPhoneNumberPlugin,
    initial: { enabled: false, otp_expires_in: 300 },
    doc: "Sign-in with a code by SMS, sent through the `send.otp` webhook (`otpExpiresIn` in seconds).",
  },
  {
    name: "webhooks",
    type: "Webhook",
    key: "webhooks",
    aggregated: false,
    read: B.getBranchWebhooks,
    write: B.putBranchWebhooks,
    initial: { enabled: false, enabled_events: [], timeout_seconds: 5 },
    doc: "Auth events sent to your endpoint (`timeoutSeconds` in seconds); `webhookUrl` is required when `enabled` is true, as Neon refuses it otherwise. A secret: the URL may carry a token.",
  },
  {
    name: "oauthServer",
    type: "OAuthServer",
    key: "oauth_server",
    aggregated: false,
    read: B.getBranchOAuthServerPlugin,
    write: B.updateBranchOAuthServerPlugin,
    // "Default: false" (getNeonAuthOAuthProviderPlugin); the other fields start unset (assumption).
    initial: { enabled: false },
    replacedWhole: ["mcp"],
    doc: "Neon Auth as an OAuth 2.1 server for your apps and MCP servers (beta), on the project's root branch only: `loginPage` and `consentPage` are pages you host, on one of the branch's trusted domains.",
  },
] as const satisfies readonly BranchSetting[];

export type BranchSettingName = (typeof BRANCH_SETTINGS)[number]["name"];
export type BranchSettingKey = (typeof BRANCH_SETTINGS)[number]["key"];
