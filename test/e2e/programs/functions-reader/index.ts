// Reads a branch's Neon Auth and a project-level integration with every function, and manages
// nothing. `fail` asks for one read that must fail (the e2e's error cases).
import * as pulumi from "@pulumi/pulumi";
import * as neon from "pulumi-neon-auth";

const cfg = new pulumi.Config();
const projectId = cfg.require("projectId");
const branchId = cfg.require("branchId");
const where = { projectId, branchId };

const fail = cfg.get("fail");
export const failing =
  fail === "providersOnBare" ? neon.getOAuthProviders({ projectId, branchId: cfg.require("bareBranch") }) : fail === "missingProject" ? neon.getAuthIntegration({ projectId: "p-nowhere" }) : undefined;

export const neonAuth = neon.getNeonAuth(where);
export const providers = neon.getOAuthProviders(where);
export const domains = neon.getTrustedDomains(where);
export const oauthServer = neon.getOAuthServer(where);
export const users = neon.getNeonAuthUsers(where);
export const ada = neon.getNeonAuthUsersOutput({ ...where, email: pulumi.output("ADA@example.com") }).users;
export const integration = neon.getAuthIntegration({ projectId: cfg.require("projectLevelProject") });
export const bare = neon.getNeonAuthOutput({ projectId, branchId: cfg.require("bareBranch") });
