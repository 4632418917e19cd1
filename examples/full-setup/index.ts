import * as pulumi from "@pulumi/pulumi";
import { AuthIntegration, AuthSdkKeys, AuthUser, EmailServer, OAuthProvider, RedirectDomain } from "pulumi-neon-auth";

const cfg = new pulumi.Config();
const projectId = cfg.require("projectId");
const branchId = cfg.require("branchId");

// Everything else lives inside the integration and takes it as an input: the engine creates it
// first, and replacing it visibly replaces everything in it.
const auth = new AuthIntegration("auth", { projectId, branchId });

// A key set for the backend, rotated by changing `keysRotation`.
const keys = new AuthSdkKeys("backend-keys", { integration: auth, rotationTrigger: cfg.get("keysRotation") ?? "initial" });

// Google with Neon's shared keys (development), GitHub with our own OAuth app (production).
new OAuthProvider("google", { integration: auth, providerId: "google" });
new OAuthProvider("github", {
  integration: auth,
  providerId: (cfg.get("githubProviderId") as "github" | "microsoft" | undefined) ?? "github",
  clientId: cfg.get("githubClientId") ?? "example-github-client-id",
  clientSecret: cfg.requireSecret("githubClientSecret"),
});

// Origins users may be sent back to after sign-in: the app's own, then any others.
// `extraDomains` adds app-N origins to try the stack at scale.
new RedirectDomain("app-domain", { integration: auth, domain: cfg.get("appDomain") ?? "https://app.example.com" });
const domains = cfg.getObject<string[]>("domains") ?? ["https://staging.example.com", "http://localhost:3000"];
const extra = cfg.getNumber("extraDomains") ?? 0;
for (let i = 1; i <= extra; i++) domains.push(`https://app-${i}.example.com`);
for (const domain of domains) {
  new RedirectDomain(`domain-${new URL(domain).host}`, { integration: auth, domain });
}

// Verification and password-reset mail through our own SMTP server.
const emailType = cfg.get("emailType") === "shared" ? "shared" : "standard";
new EmailServer(
  "email",
  emailType === "shared"
    ? { integration: auth, type: "shared" }
    : {
        integration: auth,
        type: "standard",
        host: cfg.get("smtpHost") ?? "smtp.example.com",
        port: cfg.getNumber("smtpPort") ?? 587,
        username: cfg.get("smtpUsername") ?? "apikey",
        password: cfg.requireSecret("smtpPassword"),
        senderEmail: cfg.get("senderEmail") ?? "auth@example.com",
        senderName: cfg.get("senderName") ?? "Example Auth",
      },
);

// People who must exist from day one (e.g. the first administrators). A new email or name is
// refused at preview (it would delete the account) unless the entry says `recreateOnChange: true`.
const users = cfg.getObject<{ email: string; name?: string; recreateOnChange?: boolean }[]>("users") ?? [
  { email: "ada@example.com", name: "Ada Lovelace" },
  { email: "grace@example.com", name: "Grace Hopper" },
];
const created = users.map((u) => new AuthUser(`user-${u.email}`, { integration: auth, ...u }));

export const authProviderProjectId = auth.authProviderProjectId;
export const jwksUrl = auth.jwksUrl;
export const ownedBy = auth.ownedBy;
/** What the app's deployment needs (secret): NEXT_PUBLIC_STACK_PROJECT_ID and the two keys. */
export const appEnv = keys.envVars;
export const domainCount = domains.length + 1;
export const userIds = created.map((u) => u.userId);
