/**
 * Entry point of the `neon-auth` provider plugin (the executable `pulumi-resource-neon-auth`): the
 * engine starts it with its own address and reads the plugin's port from the first line it prints.
 */
import { exitUnlessNodeVersion } from "../nodeVersion";

// First, before anything else loads: on an old Node the dependencies fail at load without saying
// why, and a throw here would have Node print the line it came from (in the release's bundle, the
// whole minified program on one line). The sentence alone goes to stderr, which the engine shows.
exitUnlessNodeVersion("pulumi-resource-neon-auth");

// Required, not imported: an import would be hoisted above the check (the bundle keeps ES order).
const { serve } = require("./server") as typeof import("./server");

serve().catch((e: unknown) => {
  process.stderr.write(`pulumi-resource-neon-auth: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
