"use strict";
const pulumi = require("@pulumi/pulumi");
const { AuthIntegration, RedirectDomain } = require("pulumi-neon-auth");
const { createClient } = require("pulumi-neon-auth/client");

const cfg = new pulumi.Config();
const projectId = cfg.require("projectId");
const auth = new AuthIntegration("auth", { projectId, branchId: cfg.require("branchId") });
const app = new RedirectDomain("app", { integration: auth, domain: "https://app.example.com" });

exports.origin = app.domain;
exports.ownedBy = auth.ownedBy;
exports.envVarNames = pulumi.unsecret(auth.envVars).apply((env) => Object.keys(env).sort());
exports.subpath = typeof createClient;
