import * as pulumi from "@pulumi/pulumi";
import { AuthIntegration, RedirectDomain } from "pulumi-neon-auth";
import { startEmulator } from "pulumi-neon-auth/emulator";

const cfg = new pulumi.Config();
const projectId = cfg.require("projectId");
const auth = new AuthIntegration("auth", { projectId, branchId: cfg.require("branchId") });
const app = new RedirectDomain("app", { integration: auth, domain: "https://app.example.com" });

export const origin = app.domain;
export const ownedBy = auth.ownedBy;
export const envVarNames = pulumi.unsecret(auth.envVars).apply((env) => Object.keys(env).sort());
export const subpath = typeof startEmulator;
