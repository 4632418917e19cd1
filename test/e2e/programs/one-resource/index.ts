import * as pulumi from "@pulumi/pulumi";
import * as neon from "pulumi-neon-auth";

const cfg = new pulumi.Config();
const kind = cfg.require("kind") as keyof typeof neon;
const args = cfg.requireObject<Record<string, unknown>>("args");
const Resource = neon[kind] as unknown as new (name: string, args: unknown) => pulumi.CustomResource;
new Resource("subject", args);
