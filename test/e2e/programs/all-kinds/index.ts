import * as pulumi from "@pulumi/pulumi";
import {
  AuthIntegration,
  AuthOwnershipTransfer,
  AuthSdkKeys,
  AuthUser,
  EmailServer,
  OAuthProvider,
  RedirectDomain,
} from "pulumi-neon-auth";

const cfg = new pulumi.Config();
const projectId = cfg.require("projectId");
const branchId = cfg.get("branchId") ?? "br-unused";
/**
 * Kinds to leave out (deletes): any of integration, keys, transfer, user, oauth, domain, email.
 * Without the integration the others do not wait for it (they then run side by side).
 */
const without = new Set(cfg.getObject<string[]>("without") ?? []);
/** Take over an integration and an OAuth provider that already exist. */
const adopt = cfg.getBoolean("adopt") ?? false;

const auth = without.has("integration") ? undefined : new AuthIntegration("auth", { projectId, branchId, adopt });
const opts = { dependsOn: auth ? [auth] : [] };

const keys = without.has("keys")
  ? undefined
  : new AuthSdkKeys("keys", { projectId, rotationTrigger: cfg.get("rotation") ?? "r1" }, opts);
const transfer = without.has("transfer") ? undefined : new AuthOwnershipTransfer("transfer", { projectId }, opts);
if (!without.has("user")) {
  new AuthUser("user", { projectId, email: cfg.get("userEmail") ?? "ada@example.com", name: cfg.get("userName") ?? "Ada" }, opts);
}
if (!without.has("oauth")) {
  new OAuthProvider(
    "github",
    { projectId, providerId: "github", clientId: "gh-client-id", clientSecret: cfg.requireSecret("clientSecret"), adopt },
    opts,
  );
}
if (!without.has("domain")) {
  new RedirectDomain("domain", { projectId, domain: cfg.get("domain") ?? "https://app.example.com" }, opts);
}
if (!without.has("email")) {
  new EmailServer(
    "email",
    {
      projectId,
      type: "standard",
      host: "smtp.example.com",
      port: cfg.getNumber("smtpPort") ?? 587,
      username: "apikey",
      password: cfg.requireSecret("smtpPassword"),
      senderEmail: "auth@example.com",
      senderName: "Example",
    },
    opts,
  );
}

export const pubClientKey = auth?.pubClientKey;
export const envVars = keys?.envVars;
export const transferUrl = transfer?.url;
