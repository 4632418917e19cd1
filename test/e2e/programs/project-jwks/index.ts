import * as pulumi from "@pulumi/pulumi";
import { NeonAuth, ProjectJwks } from "pulumi-neon-auth";

const cfg = new pulumi.Config();
const projectId = cfg.require("projectId");
const branchId = cfg.require("branchId");

new NeonAuth("auth", { projectId, branchId });
// Another identity provider's tokens, trusted on every branch of the project.
const clerk = new ProjectJwks("clerk", {
  projectId,
  providerName: "Clerk",
  jwksUrl: "https://clerk.example.com/.well-known/jwks.json",
  jwtAudience: "api://app",
});
export const jwksId = clerk.jwksId;
