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
/** Kinds to leave out (deletes): any of keys, transfer, user, oauth, domain, email. */
const without = new Set(cfg.getObject<string[]>("without") ?? []);
/** Take over what already exists: the integration and every child. */
const adopt = cfg.getBoolean("adopt") ?? false;

/** An integration made outside the stack (`<projectId>/<provider>`): looked up, not created. */
const integrationId = cfg.get("integrationId");

// Everything else lives inside the integration and takes it as an input: no dependsOn.
const auth =
  integrationId === undefined
    ? new AuthIntegration("auth", { projectId, branchId, adopt: cfg.getBoolean("adoptIntegration") ?? adopt, databaseName: cfg.get("databaseName") })
    : AuthIntegration.get("auth", integrationId);

const keys = without.has("keys")
  ? undefined
  : new AuthSdkKeys("keys", { integration: auth, rotationTrigger: cfg.get("rotation") ?? "r1" });
const transfer = without.has("transfer") ? undefined : new AuthOwnershipTransfer("transfer", { integration: auth });
if (!without.has("user")) {
  new AuthUser("user", {
    integration: auth,
    email: cfg.get("userEmail") ?? "ada@example.com",
    name: cfg.get("userName") ?? "Ada",
    recreateOnChange: cfg.getBoolean("recreateUser"),
    ...(adopt ? { adopt } : {}),
  });
}
if (!without.has("oauth")) {
  new OAuthProvider("github", {
    integration: auth,
    providerId: "github",
    clientId: "gh-client-id",
    clientSecret: cfg.requireSecret("clientSecret"),
    adopt,
  });
}
if (!without.has("domain")) {
  new RedirectDomain("domain", { integration: auth, domain: cfg.get("domain") ?? "https://app.example.com", ...(adopt ? { adopt } : {}) });
  for (const domain of cfg.getObject<string[]>("moreDomains") ?? []) {
    new RedirectDomain(`domain-${new URL(domain).host}`, { integration: auth, domain });
  }
}
if (!without.has("email")) {
  new EmailServer("email", {
    integration: auth,
    type: "standard",
    host: "smtp.example.com",
    port: cfg.getNumber("smtpPort") ?? 587,
    username: "apikey",
    password: cfg.requireSecret("smtpPassword"),
    senderEmail: "auth@example.com",
    senderName: "Example",
    ...(adopt ? { adopt } : {}),
  });
}

export const pubClientKey = auth.pubClientKey;
export const envVars = keys?.envVars;
export const transferUrl = transfer?.url;

/** A user made outside the stack, looked up by `<projectId>/<email>` (read from users_sync). */
const lookupUser = cfg.get("lookupUser");
const found = lookupUser === undefined ? undefined : AuthUser.get("found", `${projectId}/${lookupUser}`, { dependsOn: [auth] });
export const foundUser = found && pulumi.all([found.userId, found.email, found.name]).apply(([id, email, name]) => ({ id, email, name }));
