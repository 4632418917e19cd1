import * as pulumi from "@pulumi/pulumi";
import * as neon from "pulumi-neon-auth";

const cfg = new pulumi.Config();
const kind = cfg.require("kind") as keyof typeof neon;
const args = cfg.requireObject<Record<string, unknown>>("args");
const Resource = neon[kind] as unknown as new (name: string, args: unknown) => pulumi.CustomResource;
/** An integration made outside the stack (`<projectId>/<provider>`): looked up and passed as `integration`. */
const integrationId = cfg.get("integrationId");
const integration = integrationId === undefined ? undefined : neon.AuthIntegration.get("auth", integrationId);
new Resource("subject", integration === undefined ? args : { ...args, integration });
