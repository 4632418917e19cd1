import * as pulumi from "@pulumi/pulumi";
import { AuthIntegration, EmailServer, OAuthProvider, RedirectDomain } from "pulumi-neon-auth";

type ProviderId = "google" | "github" | "microsoft";
interface ProviderConfig {
  id: ProviderId;
  /** Omit for Neon's shared keys; set for your own OAuth app (secret: `<id>ClientSecret`). */
  clientId?: string;
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

// Everything below takes the integration as an input, so the engine creates it first and
// replaces it with the integration.
const auth = new AuthIntegration("auth", { projectId, branchId });

for (const domain of domains) {
  new RedirectDomain(`domain-${new URL(domain).host}`, { integration: auth, domain });
}

for (const p of providers) {
  new OAuthProvider(
    p.id,
    p.clientId === undefined
      ? { integration: auth, providerId: p.id }
      : { integration: auth, providerId: p.id, clientId: p.clientId, clientSecret: cfg.requireSecret(`${p.id}ClientSecret`) },
  );
}

new EmailServer(
  "email",
  smtp === undefined
    ? { integration: auth, type: "shared" }
    : { integration: auth, type: "standard", ...smtp, password: cfg.requireSecret("smtpPassword") },
);

export const environment = pulumi.getStack();
export const jwksUrl = auth.jwksUrl;
export const appEnv = auth.envVars;
