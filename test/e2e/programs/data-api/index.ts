import * as pulumi from "@pulumi/pulumi";
import { DataApi, NeonAuth } from "pulumi-neon-auth";

interface Args {
  projectId: string;
  branchId: string;
  /** The Data API's settings (DataApi inputs), and, to bind it to another provider than the NeonAuth, `external`. */
  api?: { settings: Record<string, unknown>; external?: { jwksUrl: string; providerName?: string; jwtAudience?: string } };
}

const args = new pulumi.Config().requireObject<Args>("args");
const auth = new NeonAuth("auth", { projectId: args.projectId, branchId: args.branchId });
const api =
  args.api &&
  new DataApi(
    "api",
    args.api.external === undefined
      ? { integration: auth, ...args.api.settings }
      : { projectId: args.projectId, branchId: args.branchId, ...args.api.external, ...args.api.settings },
  );

export const url = api?.url;
export const availableSchemas = api?.availableSchemas;
