// programs/upgrade/index.js after the CHANGELOG's upgrade notes: each child takes
// `integration: auth` in place of `projectId` and its `dependsOn`; nothing else changes.
import * as pulumi from "@pulumi/pulumi";
import { AuthIntegration, AuthSdkKeys, AuthUser, EmailServer, OAuthProvider, RedirectDomain } from "pulumi-neon-auth";

const cfg = new pulumi.Config();
const projectId = cfg.require("projectId");
const branchId = cfg.require("branchId");

const auth = new AuthIntegration("auth", { projectId, branchId });

new AuthSdkKeys("keys", { integration: auth, rotationTrigger: "r1" });
new OAuthProvider("github", {
  integration: auth,
  providerId: "github",
  clientId: "gh-client-id",
  clientSecret: cfg.requireSecret("clientSecret"),
});
new RedirectDomain("app", { integration: auth, domain: "https://app.example.com" });
new EmailServer("email", {
  integration: auth,
  type: "standard",
  host: "smtp.example.com",
  port: 587,
  username: "apikey",
  password: cfg.requireSecret("smtpPassword"),
  senderEmail: "auth@example.com",
  senderName: "Example Auth",
});
new AuthUser("ada", { integration: auth, email: "ada@example.com", name: "Ada" });

export const authProviderProjectId = auth.authProviderProjectId;
