import * as pulumi from "@pulumi/pulumi";
import { NeonAuth, ProjectJwks } from "pulumi-neon-auth";

const cfg = new pulumi.Config();
const projectId = cfg.require("projectId");
const branchId = cfg.require("branchId");
const entry = {
  projectId,
  providerName: "Clerk",
  jwksUrl: "https://clerk.example.com/.well-known/jwks.json",
  jwtAudience: "api://app",
  adopt: cfg.getBoolean("adopt") ?? false,
};

new NeonAuth("auth", { projectId, branchId });
// Another identity provider's tokens, trusted on every branch of the project.
const clerk = new ProjectJwks("clerk", entry);
// The same entry declared twice: refused before any request.
if (cfg.getBoolean("twice")) new ProjectJwks("clerk-again", entry);
export const jwksId = clerk.jwksId;
