import * as pulumi from "@pulumi/pulumi";
import { AuthIntegration, RedirectDomain, type RedirectDomainArgs } from "pulumi-neon-auth";

const cfg = new pulumi.Config();
const projectId = cfg.require("projectId");
const auth = new AuthIntegration("auth", { projectId, branchId: cfg.require("branchId") });
const args: RedirectDomainArgs = { integration: auth, domain: "https://app.example.com" };
const app = new RedirectDomain("app", args);

export const origin: pulumi.Output<string> = app.domain;
export const ownedBy: pulumi.Output<string> = auth.ownedBy;
export const envVarNames = pulumi.unsecret(auth.envVars).apply((env) => Object.keys(env).sort());
