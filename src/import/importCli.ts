#!/usr/bin/env node
/**
 * neon-auth-import: prints the import file of a branch's Neon Auth (`branchImportFile`), so that
 * adopting an existing branch is two commands in any language:
 *
 *   npx -p pulumi-neon-auth neon-auth-import --project p-123 --branch br-main --stack dev > import.json
 *   pulumi import --file import.json
 */
import { exitUnlessNodeVersion } from "../nodeVersion";
// Before anything else loads: on an old Node our dependencies fail with messages that never say why.
exitUnlessNodeVersion("neon-auth-import");
import * as fs from "node:fs";
import * as util from "node:util";
import { movedToPlugin, type StackExport } from "./migrate";
import { branchImportFile } from "./importFile";

const USAGE = `Usage: neon-auth-import --project ID --branch ID [--stack NAME] [--for plugin|dynamic]
       neon-auth-import --move-to-plugin EXPORT.json

Prints, as JSON, the import file of everything the branch's Neon Auth holds that can be imported
(the NeonAuth with every setting, trusted domains, OAuth providers, the email server, OAuth
clients), for \`pulumi import --file\`. GET requests only.

  --project ID        the Neon project
  --branch ID         the branch whose Neon Auth to list
  --stack NAME        read the key and URL from this stack's configuration (neon-auth:apiKey,
                      neon-auth:apiUrl; run in its project folder), else NEON_API_KEY, NEON_API_URL
  --for plugin        entries for the neon-auth provider plugin (default): type, name and id
  --for dynamic       entries for the package's dynamic resources, with their state

--move-to-plugin prints the \`pulumi stack export\` in EXPORT.json with the package's dynamic
resources moved onto the neon-auth provider plugin, for \`pulumi stack import\` (no request to Neon).`;

async function main(): Promise<void> {
  const { values } = util.parseArgs({
    options: {
      project: { type: "string" },
      branch: { type: "string" },
      stack: { type: "string" },
      for: { type: "string" },
      "move-to-plugin": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return void process.stdout.write(`${USAGE}\n`);
  const exported = values["move-to-plugin"];
  if (exported !== undefined) {
    const moved = movedToPlugin(JSON.parse(fs.readFileSync(exported, "utf8")) as StackExport);
    return void process.stdout.write(`${JSON.stringify(moved, null, 2)}\n`);
  }
  if (!values.project || !values.branch || (values.for !== undefined && values.for !== "plugin" && values.for !== "dynamic")) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const file = await branchImportFile(values.project, values.branch, {
    ...(values.stack === undefined ? {} : { stack: values.stack }),
    for: (values.for ?? "plugin") as "plugin" | "dynamic",
  });
  process.stdout.write(`${JSON.stringify(file, null, 2)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`neon-auth-import: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
