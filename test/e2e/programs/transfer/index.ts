import * as pulumi from "@pulumi/pulumi";
import { AuthIntegration, AuthOwnershipTransfer, AuthSdkKeys } from "pulumi-neon-auth";

const cfg = new pulumi.Config();
const projectId = cfg.require("projectId");
const auth = new AuthIntegration("auth", { projectId, branchId: cfg.require("branchId") });
const keys = new AuthSdkKeys("keys", { integration: auth, rotationTrigger: cfg.get("rotation") ?? "one" });
const transfer = new AuthOwnershipTransfer("transfer", { integration: auth });

export const ownedBy = auth.ownedBy;
export const transferOwnedBy = transfer.ownedBy;
export const transferStatus = transfer.transferStatus;
export const transferUrl = transfer.url;
export const pubClientKey = keys.pubClientKey;
