#!/usr/bin/env node
/**
 * neon-auth-import: prints the import file of a branch's Neon Auth (`branchImportFile`), so that
 * adopting an existing branch is two commands in any language:
 *
 *   npx -p pulumi-neon-auth neon-auth-import --project p-123 --branch br-main --stack dev > import.json
 *   pulumi import --file import.json --out imported.go
 *   npx -p pulumi-neon-auth neon-auth-import --program imported.go
 *
 * The last step makes the written program read its secrets from the stack's configuration.
 */
import { exitUnlessNodeVersion } from "../nodeVersion";
// Before anything else loads: on an old Node our dependencies fail with messages that never say why.
exitUnlessNodeVersion("neon-auth-import");
import * as fs from "node:fs";
import * as util from "node:util";
import { movedToPlugin, type StackExport } from "./migrate";
import { branchImportFile } from "./importFile";
import { configLines, languageOf, programWithConfig } from "./importProgram";

const USAGE = `Usage: neon-auth-import --project ID --branch ID [--stack NAME] [--for plugin|dynamic]
       neon-auth-import --program FILE
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

--program FILE rewrites the program \`pulumi import --file … --out FILE\` wrote (.ts, .go or .yaml)
so that it reads each secret from the stack's configuration, and prints the
\`pulumi config set --secret\` lines that give them (no request to Neon).

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
      program: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return void process.stdout.write(`${USAGE}\n`);
  const exported = values["move-to-plugin"];
  if (exported !== undefined) {
    const moved = movedToPlugin(JSON.parse(fs.readFileSync(exported, "utf8")) as StackExport);
    return void process.stdout.write(`${JSON.stringify(moved, null, 2)}\n`);
  }
  if (values.program !== undefined) {
    const file = values.program;
    const { code, keys } = programWithConfig(fs.readFileSync(file, "utf8"), languageOf(file));
    fs.writeFileSync(file, code);
    if (keys.length === 0) return void process.stdout.write(`# ${file} reads no secret: nothing to set\n`);
    // The values are the user's: the tool never prints one (a webhook URL it could read included).
    process.stdout.write(`# ${file} now reads ${keys.length} secret(s) from the stack's configuration; set each, then \`pulumi preview\`:\n`);
    return void process.stdout.write(`${configLines(keys).join("\n")}\n`);
  }
  if (!values.project || !values.branch || (values.for !== undefined && values.for !== "plugin" && values.for !== "dynamic")) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  const file = await branchImportFile(values.project, values.branch, {
    ...(values.stack === undefined ? {} : { stack: values.stack }),
    for: (values.for ?? "plugin") as "plugin" | "dynamic",
    leftOut: (note) => process.stderr.write(`neon-auth-import: ${note}\n`),
  });
  process.stdout.write(`${JSON.stringify(file, null, 2)}\n`);
  if (values.for !== "dynamic") {
    process.stderr.write(
      "neon-auth-import: next: `pulumi import --file <this file> --out <program>`, then `neon-auth-import --program <program>`, " +
        "which makes the program read its secrets from the stack's configuration and prints the `pulumi config set --secret` lines to run\n",
    );
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`neon-auth-import: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
