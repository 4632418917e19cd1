import * as pulumi from "@pulumi/pulumi";
import { NeonAuth } from "pulumi-neon-auth";

const args = new pulumi.Config().requireObject<Record<string, any>>("args");
// The webhook URL may carry a token: it enters the engine as a secret.
const auth = new NeonAuth("auth", { ...args, ...(args.webhooks ? { webhooks: pulumi.secret(args.webhooks) } : {}) } as any);
export const id = auth.id;
export const createdAt = auth.createdAt;
