// A verdaccio npm registry on 127.0.0.1 (a port the OS picks), started by test/e2e/registry.ts:
// argv[2] is the folder verdaccio is installed in, argv[3] the registry's storage folder, argv[4]
// the registry its other packages come from. Prints its URL on the first line of stdout.
import { createRequire } from "node:module";
import * as path from "node:path";

const [installDir, storage, upstream] = process.argv.slice(2);
const { runServer } = createRequire(path.join(installDir, "package.json"))("verdaccio");
const app = await runServer({
  storage,
  self_path: path.join(storage, "config.yaml"),
  // Other packages (@pulumi/pulumi, the package's dependencies) come from the real registry,
  // uncached: the registry keeps only what the test publishes to it.
  uplinks: { upstream: { url: upstream, cache: false, timeout: "60s" } },
  packages: {
    // Published by the test with a token verdaccio does not check: no user, no password file.
    "pulumi-neon-auth": { access: "$all", publish: "$all", unpublish: "$all" },
    "@*/*": { access: "$all", proxy: "upstream" },
    "**": { access: "$all", proxy: "upstream" },
  },
  web: { enable: false },
  log: { type: "stdout", format: "pretty", level: "warn" },
});
app.listen(0, "127.0.0.1", () => process.stdout.write(`http://127.0.0.1:${app.address().port}/\n`));
