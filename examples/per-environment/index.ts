import * as pulumi from "@pulumi/pulumi";
import { AuthUser, EmailServer, NeonAuth, OAuthProvider, RedirectDomain, type OAuthProviderId } from "pulumi-neon-auth";

interface ProviderConfig {
  id: OAuthProviderId;
  /** Omit for Neon's shared keys (Google only); set for your own OAuth app (secret: `<id>ClientSecret`). */
  clientId?: string;
  /** Microsoft only: the tenant of your app. */
  microsoftTenantId?: string;
}
interface SmtpConfig {
  host: string;
  port: number;
  username: string;
  senderEmail: string;
  senderName: string;
}

const cfg = new pulumi.Config();
const projectId = cfg.require("projectId");
const branchId = cfg.require("branchId");
const domains = cfg.requireObject<string[]>("domains");
const providers = cfg.requireObject<ProviderConfig[]>("oauthProviders");
const smtp = cfg.getObject<SmtpConfig>("smtp");
const admins = cfg.getObject<string[]>("admins") ?? [];

// Neon Auth on the environment's branch, with the settings that differ per environment.
const auth = new NeonAuth(
  "auth",
  {
    projectId,
    branchId,
    appName: cfg.require("appName"),
    // Only where developers sign in from their machines; Neon's production checklist turns it off.
    allowLocalhost: cfg.getBoolean("allowLocalhost") ?? false,
    emailAndPassword: { enabled: true, requireEmailVerification: cfg.getBoolean("requireEmailVerification") ?? true, emailVerificationMethod: "link" },
  },
  // Where deleting it would delete the environment's users' sign-in: production (the policy pack asks for it there).
  { protect: cfg.getBoolean("protect") ?? false },
);

// Everything below takes the NeonAuth as `integration`, so the engine creates it first and
// replaces it with the NeonAuth.
for (const domain of domains) {
  new RedirectDomain(`domain-${new URL(domain).host}`, { integration: auth, domain });
}

for (const p of providers) {
  new OAuthProvider(
    p.id,
    p.clientId === undefined
      ? { integration: auth, providerId: p.id }
      : {
          integration: auth,
          providerId: p.id,
          clientId: p.clientId,
          clientSecret: cfg.requireSecret(`${p.id}ClientSecret`),
          ...(p.microsoftTenantId === undefined ? {} : { microsoftTenantId: p.microsoftTenantId }),
        },
  );
}

new EmailServer(
  "email",
  smtp === undefined
    ? { integration: auth, type: "shared" }
    : { integration: auth, type: "standard", ...smtp, password: cfg.requireSecret("smtpPassword") },
);

for (const email of admins) {
  new AuthUser(`admin-${email}`, { integration: auth, email, roles: ["admin"] });
}

export const environment = pulumi.getStack();
export const jwksUrl = auth.jwksUrl;
// What the app needs: Neon's Next.js guide reads the auth URL from NEON_AUTH_BASE_URL.
export const NEON_AUTH_BASE_URL = auth.baseUrl;
