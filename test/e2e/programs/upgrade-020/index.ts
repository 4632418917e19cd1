// Every child kind of 0.2.0 in both generations, written as its README shows (`integration: auth`);
// the same program runs on 0.2.0 and on this version.
import * as pulumi from "@pulumi/pulumi";
import { AuthIntegration, AuthOwnershipTransfer, AuthSdkKeys, AuthUser, EmailServer, NeonAuth, OAuthClient, OAuthProvider, RedirectDomain } from "pulumi-neon-auth";

const cfg = new pulumi.Config();

const project = new AuthIntegration("project", { projectId: cfg.require("projectId"), branchId: cfg.require("branchId") });
new AuthSdkKeys("keys", { integration: project, rotationTrigger: "r1" });
new AuthOwnershipTransfer("transfer", { integration: project });
new RedirectDomain("project-app", { integration: project, domain: "https://app.example.com" });
new AuthUser("project-ada", { integration: project, email: "ada@example.com", name: "Ada" });
new OAuthProvider("project-github", { integration: project, providerId: "github", clientId: "gh-id", clientSecret: cfg.requireSecret("clientSecret") });
new EmailServer("project-email", { integration: project, type: "shared" });

// (Not `adopt: true`: 0.2.0's classes passed it on to the OAuthClient too, which refused it.)
const branch = new NeonAuth("branch", { projectId: cfg.require("branchProjectId"), branchId: cfg.require("branchBranchId") });
new RedirectDomain("branch-app", { integration: branch, domain: "https://*.preview.example.com" });
new AuthUser("branch-ada", { integration: branch, email: "ada@example.com", name: "Ada", roles: ["admin"] });
new OAuthProvider("branch-github", { integration: branch, providerId: "github", clientId: "gh-id", clientSecret: cfg.requireSecret("clientSecret") });
new EmailServer("branch-email", { integration: branch, type: "shared" });
new OAuthClient("partner", { integration: branch, name: "partner", redirectUris: ["https://partner.example.com/cb"], type: "public" });
