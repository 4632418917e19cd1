/**
 * The plugin's face of the bench: bench/domains-stack as a Pulumi YAML program on the provider
 * plugin (pulumi-resource-neon-auth, found on PATH as after `npm install`, run by Pulumi YAML's
 * language host), the same resources with the same inputs. YAML has no loop: the program is
 * written out for each generation and N.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { yamlLanguageHost } from "../sdk.mts";

/** The integration's inputs, as bench/domains-stack gives them (the branch's settings make its refresh read settings too). */
function integrationYaml(generation: string): string[] {
  const place = ["      projectId: ${projectId}", "      branchId: ${branchId}"];
  if (generation !== "branch") return ["    type: neon-auth:index:AuthIntegration", "    properties:", ...place];
  return [
    "    type: neon-auth:index:NeonAuth",
    "    properties:",
    ...place,
    "      appName: Bench",
    "      allowLocalhost: false",
    "      emailAndPassword:",
    "        enabled: true",
    "        requireEmailVerification: true",
    "      magicLink:",
    "        enabled: true",
    "        expiresIn: 15",
  ];
}

/** Writes the YAML program of one integration of `generation` and `count` trusted domains into a new folder under `parent`. */
export function writePluginProgram(parent: string, generation: string, count: number): string {
  const dir = fs.mkdtempSync(path.join(parent, `plugin-stack-${generation}-${count}-`));
  const lines = [
    "name: neon-auth-bench-plugin",
    "runtime: yaml",
    "description: The bench's stack on the neon-auth provider plugin (scripts/bench/plugin.mts).",
    "config:",
    "  projectId:",
    "    type: string",
    "  branchId:",
    "    type: string",
    "resources:",
    "  auth:",
    ...integrationYaml(generation),
  ];
  for (let i = 0; i < count; i++) {
    lines.push(`  domain-${i}:`, "    type: neon-auth:index:RedirectDomain", "    properties:", "      integration: ${auth.ref}", `      domain: https://app-${i}.example.com`);
  }
  lines.push("outputs:", `  domains: ${count}`, "");
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), lines.join("\n"));
  return dir;
}

/** PATH for a plugin stack: the workspace's installed commands (the plugin), then Pulumi YAML's language host. */
export function pluginPath(workspace: string): string {
  return [path.join(workspace, "node_modules", ".bin"), yamlLanguageHost(), process.env.PATH].join(path.delimiter);
}
