/**
 * The stack of `npm run bench`: one integration and `count` redirect domains in it, of either API
 * generation. `generation: project` is an AuthIntegration (project-level, Stack Auth);
 * `generation: branch` is a branch's NeonAuth (Better Auth) with a few settings, so that its
 * refresh reads settings too. bench/noop-stack has the same shape with a provider doing nothing.
 */
import * as pulumi from "@pulumi/pulumi";
import * as neon from "pulumi-neon-auth";

const cfg = new pulumi.Config();
const generation = cfg.require("generation");
const count = cfg.requireNumber("count");
const projectId = cfg.require("projectId");
const branchId = cfg.require("branchId");

const integration =
  generation === "branch"
    ? new neon.NeonAuth("auth", {
        projectId,
        branchId,
        appName: "Bench",
        allowLocalhost: false,
        emailAndPassword: { enabled: true, requireEmailVerification: true },
        magicLink: { enabled: true, expiresIn: 15 },
      })
    : new neon.AuthIntegration("auth", { projectId, branchId });

for (let i = 0; i < count; i++) {
  new neon.RedirectDomain(`domain-${i}`, { integration, domain: `https://app-${i}.example.com` });
}

export const domains = count;
