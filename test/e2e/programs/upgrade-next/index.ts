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
new EmailServer("email", { integration: auth, ...cfg.requireObject<{ type: "standard"; host: string; port: number; username: string; senderEmail: string; senderName: string }>("smtp"), password: cfg.requireSecret("smtpPassword") });
new AuthUser("ada", { integration: auth, email: "ada@example.com", name: "Ada" });

export const authProviderProjectId = auth.authProviderProjectId;
