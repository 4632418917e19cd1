// A branch's Neon Auth with every setting, Google (Neon's keys) and GitHub (own app), two trusted
// domains, the OAuth server with a client and two users with roles; a project-level integration
// with a provider and a domain. The reads of all this are another stack's (functions-reader).
import * as pulumi from "@pulumi/pulumi";
import { AuthIntegration, AuthUser, getNeonAuthOutput, NeonAuth, type NeonAuthArgs, OAuthClient, OAuthProvider, RedirectDomain } from "pulumi-neon-auth";

const cfg = new pulumi.Config();
const projectId = cfg.require("projectId");
const app = "https://app.example.com";

const auth = new NeonAuth("auth", {
  projectId,
  branchId: cfg.require("branchId"),
  // The singleton settings (the app's name, localhost, sign-in methods), as the test states them.
  ...cfg.requireObject<Omit<NeonAuthArgs, "projectId" | "branchId">>("settings"),
  webhooks: cfg.requireSecret("webhookUrl").apply((webhookUrl) => ({ enabled: true, webhookUrl, enabledEvents: ["user.created" as const], timeoutSeconds: 5 })),
  oauthServer: { enabled: true, loginPage: `${app}/sign-in`, consentPage: `${app}/consent`, resources: ["https://api.example.com"] },
});
new RedirectDomain("app", { integration: auth, domain: app });
new RedirectDomain("previews", { integration: auth, domain: "https://*.preview.example.com" });
new OAuthProvider("google", { integration: auth, providerId: "google" });
new OAuthProvider("github", { integration: auth, providerId: "github", clientId: "gh-app-id", clientSecret: cfg.requireSecret("githubSecret") });
const client = new OAuthClient("gateway", { integration: auth, name: "Gateway", type: "confidential", redirectUris: [`${app}/oauth/callback`], resources: ["https://api.example.com"] });
new AuthUser("ada", { integration: auth, email: "ada@example.com", name: "Ada", roles: ["admin", "user"] });
new AuthUser("bob", { integration: auth, email: "bob@example.com", name: "Bob", roles: ["user"] });

const project = new AuthIntegration("project", { projectId: cfg.require("projectLevelProject"), branchId: cfg.require("projectLevelBranch") });
new OAuthProvider("project-github", { integration: project, providerId: "github", clientId: "gh-project-id", clientSecret: cfg.requireSecret("githubSecret") });
new RedirectDomain("project-app", { integration: project, domain: "https://project.example.com" });

// An output-form function fed by this program's own NeonAuth: unknown at the first preview,
// read once the NeonAuth exists.
export const fedBaseUrl = getNeonAuthOutput({ projectId: auth.projectId, branchId: auth.branchId }, { dependsOn: [auth] }).baseUrl;
export const baseUrl = auth.baseUrl;
export const issuer = auth.oauthServerIssuer;
export const discoveryUrl = auth.oauthServerDiscoveryUrl;
export const clientId = client.clientId;
export const clientSecret = client.clientSecret;
