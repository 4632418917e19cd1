/**
 * Requests and responses of the branch-scoped (Better Auth) API generation, for the
 * client and the emulator alike. As in auth.ts, requests are strict and responses lenient.
 */
import { z } from "zod";
import { credentialsTogether, integration, oauthCredentials, oauthProvider, otherEmailServer, smtpFields, standardEmailServerResponse } from "./auth";
import { databaseName, email, oneOf, senderName, userName, wholeList } from "./common";
import { secretField, text, token } from "./fields";
import { trustedDomain, webhookUrl } from "./urls";

export * from "./oauthServer";

/** Providers of this generation: `stack` is deprecated here, `mock` is Neon's test provider. */
export const BRANCH_AUTH_PROVIDERS = ["better_auth", "stack", "mock"] as const;
export const branchAuthProvider = z.enum(BRANCH_AUTH_PROVIDERS, {
  message: 'must be one of "better_auth", "stack", "mock"',
});
export type BranchAuthProvider = z.infer<typeof branchAuthProvider>;

export const BRANCH_OAUTH_PROVIDER_IDS = ["google", "github", "microsoft", "vercel"] as const;
/**
 * The providers Neon offers shared credentials for on a branch (no client id and secret of your
 * own): Google only ("Set up OAuth", content/docs/auth/guides/setup-oauth.md of neondatabase/website).
 */
export const BRANCH_SHARED_OAUTH_PROVIDER_IDS: readonly (typeof BRANCH_OAUTH_PROVIDER_IDS)[number][] = ["google"];
export const branchOAuthProviderId = z.enum(BRANCH_OAUTH_PROVIDER_IDS, {
  message: oneOf(BRANCH_OAUTH_PROVIDER_IDS),
});
export type BranchOAuthProviderId = z.infer<typeof branchOAuthProviderId>;

// ---- integration ----------------------------------------------------------------------------

export const enableBranchAuthRequest = z.strictObject({
  auth_provider: branchAuthProvider,
  database_name: databaseName.optional(),
});
export type EnableBranchAuthRequest = z.input<typeof enableBranchAuthRequest>;

export const disableBranchAuthRequest = z.strictObject({ delete_data: z.boolean().optional() });
export type DisableBranchAuthRequest = z.input<typeof disableBranchAuthRequest>;

/** The project-level record plus what Better Auth adds (`base_url`, the app `name`). */
export const branchIntegration = integration.extend({ base_url: z.string().optional(), name: z.string().optional() });
export type BranchIntegration = z.infer<typeof branchIntegration>;

export const appNameRequest = z.strictObject({
  name: text(256),
});
export type AppNameRequest = z.input<typeof appNameRequest>;
export const appNameResponse = z.object({ name: z.string() });

// ---- trusted domains ------------------------------------------------------------------------

export const branchAddDomainRequest = z.strictObject({ domain: trustedDomain, auth_provider: branchAuthProvider });
export type BranchAddDomainRequest = z.input<typeof branchAddDomainRequest>;
export const branchDeleteDomainsRequest = z.strictObject({
  auth_provider: branchAuthProvider,
  domains: z.array(z.strictObject({ domain: z.string().min(1) })).min(1, { message: "must name at least one domain" }),
});
export type BranchDeleteDomainsRequest = z.input<typeof branchDeleteDomainsRequest>;

// ---- users ----------------------------------------------------------------------------------

export const branchCreateUserRequest = z.strictObject({ email, name: userName.optional() });
export type BranchCreateUserRequest = z.input<typeof branchCreateUserRequest>;
export const userIdResponse = z.object({ id: z.string() });
/**
 * A user's roles as a program names them. Better Auth keeps them in one text column, comma-joined
 * (`neon_auth."user".role`), which the package reads back split on commas: a role holding a comma
 * comes back as two, and a list with a repeat never equals what is read, so either would drift on
 * every refresh. Refused at preview rather than compared as stored: the program says what Neon holds.
 */
export const userRoles = z
  .array(token(64))
  .min(1, { message: "must name at least one role" })
  .superRefine((roles, ctx) => {
    if (roles.some((r) => r.includes(","))) {
      ctx.addIssue({ code: "custom", message: "must name each role on its own, without a comma: Neon Auth stores a user's roles comma-joined, so a role with a comma reads back as two" });
    } else if (new Set(roles).size !== roles.length) {
      ctx.addIssue({ code: "custom", message: "must not name a role twice: Neon Auth keeps a user's roles as one comma-joined list, so the repeat would show as a change on every refresh" });
    }
  });
export const setUserRolesRequest = z.strictObject({
  roles: z.array(token(64)).min(1, { message: "must name at least one role" }),
});
export type SetUserRolesRequest = z.input<typeof setUserRolesRequest>;

// ---- OAuth providers ------------------------------------------------------------------------

// The branch's provider record has exactly the project-level one's fields: one schema for both.
export const branchOAuthProvider = oauthProvider;
export type BranchOAuthProvider = z.infer<typeof branchOAuthProvider>;
export const branchListOAuthProvidersResponse = wholeList({ providers: z.array(branchOAuthProvider) });

export const branchAddOAuthProviderRequest = z
  .strictObject({ id: branchOAuthProviderId, ...oauthCredentials, microsoft_tenant_id: token(256).optional() })
  .refine(...credentialsTogether)
  .refine((b) => b.microsoft_tenant_id === undefined || b.id === "microsoft", {
    message: 'is only accepted for the "microsoft" provider',
    path: ["microsoft_tenant_id"],
  });
export type BranchAddOAuthProviderRequest = z.input<typeof branchAddOAuthProviderRequest>;

export const branchUpdateOAuthProviderRequest = z.strictObject({ ...oauthCredentials, microsoft_tenant_id: token(256).optional() });
export type BranchUpdateOAuthProviderRequest = z.input<typeof branchUpdateOAuthProviderRequest>;

// ---- email provider -------------------------------------------------------------------------

export const SMTP_FIELDS = Object.keys(smtpFields) as (keyof typeof smtpFields)[];

/**
 * Better Auth merges a partial `standard` update into the saved settings (as the live service does), so
 * every SMTP field is optional here; a `stack` integration still needs all six (the emulator says so).
 */
export const updateEmailProviderRequest = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("standard"), ...z.strictObject(smtpFields).partial().shape }),
    z.strictObject({ type: z.literal("shared"), sender_email: email.optional(), sender_name: senderName.optional() }),
  ],
  { message: 'must be "shared" or "standard"' },
);
export type UpdateEmailProviderRequest = z.input<typeof updateEmailProviderRequest>;

/** The password always comes back empty (write-only); a type this package does not know is `other`. */
export const emailProvider = z.union([
  standardEmailServerResponse,
  z.object({ type: z.literal("shared"), sender_email: z.string().optional(), sender_name: z.string().optional() }),
  otherEmailServer,
]);
export type EmailProvider = z.infer<typeof emailProvider>;

export const testEmailProviderRequest = z.strictObject({ recipient_email: email });
export type TestEmailProviderRequest = z.input<typeof testEmailProviderRequest>;
export const emailTestResult = z.object({ success: z.boolean().optional(), error_message: z.string().optional() });
export type EmailTestResult = z.infer<typeof emailTestResult>;

export const sendTestEmailRequest = z.strictObject({ ...smtpFields, recipient_email: email });
export type SendTestEmailRequest = z.input<typeof sendTestEmailRequest>;

// ---- singleton settings ---------------------------------------------------------------------

// Each setting's fields are described here, where their rules are: the published types, the plugin's
// schema and the functions' results take the words from these rules.
const emailAndPasswordFields = {
  enabled: z.boolean().describe("Whether users may sign up and sign in with an email address and a password."),
  email_verification_method: z.enum(["link", "otp"], { message: 'must be "link" or "otp"' }).describe("How an address is verified: `link` (a link by email) or `otp` (a one-time code by email)."),
  require_email_verification: z.boolean().describe("Whether a user must verify the address before signing in."),
  auto_sign_in_after_verification: z.boolean().describe("Whether verifying the address signs the user in."),
  send_verification_email_on_sign_up: z.boolean().describe("Whether a verification email is sent when a user signs up."),
  send_verification_email_on_sign_in: z.boolean().describe("Whether a verification email is sent when a user whose address is not verified signs in."),
  disable_sign_up: z.boolean().describe("Whether signing up is refused: only existing users sign in with a password."),
};
/**
 * Answers keep the fields' types, not the requests' rules: a value Neon adds (a third verification
 * method, another creator role, a longer expiry) is drift that refresh shows, never a failed read.
 */
export const emailAndPassword = z.object({ ...emailAndPasswordFields, email_verification_method: z.string() });
export type EmailAndPassword = z.infer<typeof emailAndPassword>;
export const updateEmailAndPasswordRequest = z.strictObject(emailAndPasswordFields).partial();
export type UpdateEmailAndPasswordRequest = z.input<typeof updateEmailAndPasswordRequest>;

export const allowLocalhost = z.object({ allow_localhost: z.boolean() });
export const updateAllowLocalhostRequest = z.strictObject({ allow_localhost: z.boolean() });
export type UpdateAllowLocalhostRequest = z.input<typeof updateAllowLocalhostRequest>;

const int = (min: number, max?: number) => {
  const range = max === undefined ? `at least ${min}` : `between ${min} and ${max}`;
  const base = z.number({ message: "must be a number" }).int({ message: "must be a whole number" }).min(min, { message: `must be ${range}` });
  return max === undefined ? base : base.max(max, { message: `must be ${range}` });
};

const organizationFields = {
  enabled: z.boolean().describe("Whether users may create and join organizations."),
  organization_limit: int(1).describe("The most organizations one user may create (at least 1)."),
  membership_limit: int(1).describe("The most members one organization may have (at least 1)."),
  creator_role: z.enum(["admin", "owner"], { message: 'must be "admin" or "owner"' }).describe("The role the user who creates an organization gets in it: `owner` or `admin`."),
  send_invitation_email: z.boolean().describe("Whether an invitation to an organization is sent by email."),
};
export const organizationPlugin = z.object({ ...organizationFields, organization_limit: z.number(), membership_limit: z.number(), creator_role: z.string() });
export type OrganizationPlugin = z.infer<typeof organizationPlugin>;
export const updateOrganizationPluginRequest = z.strictObject(organizationFields).partial();
export type UpdateOrganizationPluginRequest = z.input<typeof updateOrganizationPluginRequest>;

const magicLinkFields = {
  enabled: z.boolean().describe("Whether users may sign in with a link sent by email."),
  expires_in: int(5, 1440).describe("How long a link stays valid, in minutes (5 to 1440)."),
  disable_sign_up: z.boolean().describe("Whether a link signs in existing users only, never creating one."),
};
export const magicLinkPlugin = z.object({ ...magicLinkFields, expires_in: z.number() });
export type MagicLinkPlugin = z.infer<typeof magicLinkPlugin>;
export const updateMagicLinkPluginRequest = z.strictObject(magicLinkFields).partial();
export type UpdateMagicLinkPluginRequest = z.input<typeof updateMagicLinkPluginRequest>;

export const phoneNumberPlugin = z.object({ enabled: z.boolean(), otp_expires_in: z.number().optional() });
export type PhoneNumberPlugin = z.infer<typeof phoneNumberPlugin>;
export const updatePhoneNumberPluginRequest = z
  .strictObject({
    enabled: z.boolean().describe("Whether users may sign in with a code sent by SMS (through the `send.otp` webhook)."),
    otp_expires_in: int(60, 600).describe("How long a code stays valid, in seconds (60 to 600)."),
  })
  .partial();
export type UpdatePhoneNumberPluginRequest = z.input<typeof updatePhoneNumberPluginRequest>;


/** The aggregate read: every singleton setting in one request. */
export const pluginConfigs = z.object({
  organization: organizationPlugin.optional(),
  magic_link: magicLinkPlugin.optional(),
  phone_number: phoneNumberPlugin.optional(),
  email_provider: emailProvider.optional(),
  email_and_password: emailAndPassword.optional(),
  oauth_providers: z.array(branchOAuthProvider).optional().default([]),
  allow_localhost: z.boolean().optional(),
});
export type PluginConfigs = z.infer<typeof pluginConfigs>;

export const WEBHOOK_EVENTS = [
  "user.before_create",
  "user.created",
  "send.otp",
  "send.magic_link",
  "organization.invitation.created",
  "organization.invitation.accepted",
  "phone_number.verified",
] as const;

/** PUT replaces the whole configuration: an omitted field is reset, not kept. */
export const putWebhooksRequest = z.strictObject({
  enabled: z.boolean({ message: "is required (true or false)" }).describe("Whether events are sent to `webhookUrl`."),
  // Described after `.optional()`: the secret mark is on the rule itself, and `.describe()` makes a copy.
  webhook_url: webhookUrl.optional().describe("The endpoint the events are sent to (https, or http on a loopback host); required when `enabled`. A secret: it may carry a token."),
  enabled_events: z.array(z.enum(WEBHOOK_EVENTS, { message: `must be one of ${WEBHOOK_EVENTS.join(", ")}` })).optional().describe("The events that are sent, each one of Neon's (`WebhookEvent`)."),
  timeout_seconds: int(1, 10).optional().describe("How long Neon waits for the endpoint to answer, in seconds (1 to 10)."),
});
export type PutWebhooksRequest = z.input<typeof putWebhooksRequest>;
export const webhooks = z.object({
  enabled: z.boolean(),
  webhook_url: secretField(z.string()).optional(),
  enabled_events: z.array(z.string()).optional().default([]),
  timeout_seconds: z.number().optional(),
});
export type Webhooks = z.infer<typeof webhooks>;
