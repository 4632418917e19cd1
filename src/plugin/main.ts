/**
 * Entry point of the `neon-auth` provider plugin (the executable `pulumi-resource-neon-auth`): the
 * engine starts it with its own address and reads the plugin's port from the first line it prints.
 */
import { assertNodeVersion } from "../nodeVersion";
// First, before the rest loads: on an old Node our dependencies fail without saying why.
assertNodeVersion("pulumi-resource-neon-auth");
import { serve } from "./server";

serve().catch((e: unknown) => {
  process.stderr.write(`pulumi-resource-neon-auth: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
