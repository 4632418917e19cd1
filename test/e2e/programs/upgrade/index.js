// JavaScript, not TypeScript: the repository type-checks its programs against the current
// package, which no longer accepts `projectId` on children.
const pulumi = require("@pulumi/pulumi");
const { AuthIntegration, AuthSdkKeys, AuthUser, EmailServer, OAuthProvider, RedirectDomain } = require("pulumi-neon-auth");

const cfg = new pulumi.Config();
const projectId = cfg.require("projectId");
const branchId = cfg.require("branchId");

const auth = new AuthIntegration("auth", { projectId, branchId });
const inAuth = { dependsOn: [auth] };

new AuthSdkKeys("keys", { projectId, rotationTrigger: "r1" }, inAuth);
new OAuthProvider(
  "github",
  { projectId, providerId: "github", clientId: "gh-client-id", clientSecret: cfg.requireSecret("clientSecret") },
  inAuth,
);
new RedirectDomain("app", { projectId, domain: "https://app.example.com" }, inAuth);
// The SMTP server (config `smtp`): the same one after the upgrade (upgrade-next).
new EmailServer("email", { projectId, ...cfg.requireObject("smtp"), password: cfg.requireSecret("smtpPassword") }, inAuth);
new AuthUser("ada", { projectId, email: "ada@example.com", name: "Ada" }, inAuth);

exports.authProviderProjectId = auth.authProviderProjectId;
