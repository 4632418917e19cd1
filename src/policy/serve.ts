/**
 * The policy pack the package ships: `pulumi preview --policy-pack node_modules/pulumi-neon-auth/policy`
 * runs policy/index.js, which loads this. @pulumi/policy reads the pack's version from the
 * package.json of the folder it runs in (policy/package.json, kept at the package's version by
 * `npm run gen`).
 */
import { PolicyPack } from "@pulumi/policy";
import { assertNodeVersion } from "../nodeVersion";
import { neonAuthPolicies } from "./pack";

assertNodeVersion("pulumi-neon-auth/policy");

export const PACK_NAME = "neon-auth";

new PolicyPack(PACK_NAME, { policies: neonAuthPolicies() });
