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

const auth = new AuthIntegration("auth", { projectId, branchId });
const inAuth = { dependsOn: [auth] };

for (const domain of domains) {
  new RedirectDomain(`domain-${new URL(domain).host}`, { projectId, domain }, inAuth);
}

for (const p of providers) {
  new OAuthProvider(
    p.id,
    p.clientId === undefined
      ? { projectId, providerId: p.id }
      : { projectId, providerId: p.id, clientId: p.clientId, clientSecret: cfg.requireSecret(`${p.id}ClientSecret`) },
    inAuth,
  );
}

new EmailServer(
  "email",
  smtp === undefined
    ? { projectId, type: "shared" }
    : { projectId, type: "standard", ...smtp, password: cfg.requireSecret("smtpPassword") },
  inAuth,
);

export const environment = pulumi.getStack();
export const jwksUrl = auth.jwksUrl;
export const appEnv = auth.envVars;
