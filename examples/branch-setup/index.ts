import * as pulumi from "@pulumi/pulumi";
import { AuthUser, DataApi, EmailServer, NeonAuth, OAuthProvider, RedirectDomain } from "pulumi-neon-auth";

const cfg = new pulumi.Config();

// Neon Auth of one branch. Every setting below is optional: a setting (or a field of one) the
// program leaves out is left as Neon has it, and never shows as drift.
const auth = new NeonAuth("auth", {
  projectId: cfg.require("projectId"),
  branchId: cfg.require("branchId"),
  appName: cfg.get("appName") ?? "Acme",
  // Neon's production checklist: no sign-in from localhost.
  allowLocalhost: cfg.getBoolean("allowLocalhost") ?? false,
  emailAndPassword: {
    enabled: true,
    emailVerificationMethod: "link",
    requireEmailVerification: true,
    autoSignInAfterVerification: true,
    sendVerificationEmailOnSignUp: true,
    sendVerificationEmailOnSignIn: false,
    disableSignUp: false,
  },
  organization: { enabled: true, organizationLimit: 5, membershipLimit: 50, creatorRole: "owner", sendInvitationEmail: true },
  magicLink: { enabled: true, expiresIn: 15, disableSignUp: true },
  phoneNumber: { enabled: true, otpExpiresIn: 300 },
  // Replaced whole on every change: fields left out are reset by Neon (no URL, no events, 5 s).
  webhooks: pulumi.secret({
    enabled: true,
    webhookUrl: cfg.get("webhookUrl") ?? "https://hooks.example.com/neon-auth",
    enabledEvents: ["user.created", "send.otp", "send.magic_link"],
    timeoutSeconds: 5,
  }),
  // Destroy keeps the branch's users unless this is true.
  deleteDataOnDestroy: false,
});

// Everything below takes the branch's Neon Auth as `integration`: created after it, replaced with it.

// Google through Neon's shared keys; Microsoft through our own app, limited to one tenant.
new OAuthProvider("google", { integration: auth, providerId: "google" });
new OAuthProvider("microsoft", {
  integration: auth,
  providerId: "microsoft",
  clientId: cfg.get("microsoftClientId") ?? "example-microsoft-client-id",
  clientSecret: cfg.requireSecret("microsoftClientSecret"),
  microsoftTenantId: cfg.get("microsoftTenantId") ?? "example-tenant-id",
});

// Origins users may be sent back to after sign-in ("trusted domains" in Neon's console).
const domains = cfg.getObject<string[]>("domains") ?? ["https://app.example.com", "https://admin.example.com"];
for (const domain of domains) new RedirectDomain(`domain-${new URL(domain).host}`, { integration: auth, domain });

// Verification, magic-link and invitation mail through our own SMTP server. `testRecipient` makes
// every change of the SMTP settings send a test mail first, and fails the update if it bounces.
new EmailServer("email", {
  integration: auth,
  type: "standard",
  host: cfg.get("smtpHost") ?? "smtp.example.com",
  port: cfg.getNumber("smtpPort") ?? 587,
  username: cfg.get("smtpUsername") ?? "apikey",
  password: cfg.requireSecret("smtpPassword"),
  senderEmail: cfg.get("senderEmail") ?? "auth@example.com",
  senderName: cfg.get("senderName") ?? "Acme",
  testRecipient: cfg.get("smtpTestRecipient") ?? "ops@example.com",
});

// People who must exist from day one, with their roles (a role change is an in-place update).
const users = cfg.getObject<{ email: string; name?: string; roles?: string[] }[]>("users") ?? [
  { email: "ada@example.com", name: "Ada Lovelace", roles: ["admin"] },
  { email: "grace@example.com", name: "Grace Hopper", roles: ["user"] },
];
const created = users.map((u) => new AuthUser(`user-${u.email}`, { integration: auth, ...u }));

// The Data API: REST over the branch's database, trusting this Neon Auth's tokens. Each request
// runs as the database role its token names at `jwtRoleClaimKey`: `.role` is where a user's roles
// above go, so Ada's requests run as `admin` and Grace's as `user` (roles your database defines).
const dataApi = new DataApi("data-api", {
  integration: auth,
  dbSchemas: ["public"],
  jwtRoleClaimKey: ".role",
  dbMaxRows: cfg.getNumber("dataApiMaxRows") ?? 500,
});

export const jwksUrl = auth.jwksUrl;
// What the app needs: Neon's Next.js guide reads the auth URL from NEON_AUTH_BASE_URL.
export const NEON_AUTH_BASE_URL = auth.baseUrl;
export const userIds = created.map((u) => u.userId);
// Where the app sends its REST queries, with the signed-in user's token.
export const DATA_API_URL = dataApi.url;
