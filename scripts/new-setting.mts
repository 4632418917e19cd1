/**
 * `node scripts/new-setting.mts <name>`: the mechanical part of adding a NeonAuth setting area
 * (DEVELOPMENT.md, "Adding a NeonAuth setting area"), a Better Auth plugin that Neon's API reads in
 * the aggregate `GET …/auth/plugins` and writes with a PATCH of the fields given. It writes what a
 * person writes: the wire schemas (and the key in the aggregate read) in src/schemas/branchAuth.ts,
 * the endpoint and the row of `BRANCH_SETTINGS` in src/schemas/endpointsBranch.ts, with two fields
 * and values to replace by Neon's, and the fidelity probe's call of it (scripts/probe/steps.mts).
 * `npm run gen` then writes the published types and the docs rows; the probe records the answer's
 * shapes; the input rule, the write and read-back, the client's method, the emulator's route,
 * record and `project_config` row follow from the row. test/unit/drills.test.ts runs
 * it, as DEVELOPMENT.md says, in a copy, and counts the files each step touches.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { editor } from "./edit-source.mts";

const name = process.argv[2] ?? "";
if (!/^[a-z][A-Za-z0-9]{2,40}$/.test(name)) {
  console.error("usage: node scripts/new-setting.mts <name>   (camelCase, the NeonAuth property, e.g. passkey)");
  process.exit(2);
}
const repo = path.resolve(import.meta.dirname, "..");
const edit = editor(repo, "scripts/new-setting.mts");
const type = name.charAt(0).toUpperCase() + name.slice(1);
const key = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const segment = key.replace(/_/g, "-");
const endpoint = `updateBranch${type}Plugin`;
if (fs.readFileSync(path.join(repo, "src/schemas/endpointsBranch.ts"), "utf8").includes(`name: "${name}"`)) {
  console.error(`BRANCH_SETTINGS has ${name} already`);
  process.exit(1);
}

edit("src/schemas/branchAuth.ts", /\n\/\*\* The aggregate read: every singleton setting in one request\. \*\/\n/, (s) => `
/** The ${name} plugin (source: Neon's API reference page of its PATCH, once it has one). */
const ${name}Fields = {
  enabled: z.boolean().describe("Whether the ${name} plugin is on."),
  expires_in: int(5, 1440).describe("How long what it sends stays valid, in minutes (5 to 1440)."),
};
/** Answers keep the fields' types, not the requests' rules. */
export const ${name}Plugin = z.object({ ...${name}Fields, expires_in: z.number() });
export const update${type}PluginRequest = z.strictObject(${name}Fields).partial();
${s}`);
edit("src/schemas/branchAuth.ts", /\nexport const pluginConfigs = z\.object\(\{\n/, (s) => `${s}  ${key}: ${name}Plugin.optional(),\n`);

edit("src/schemas/endpointsBranch.ts", /\n {2}updateBranchAppName: /, (s) => `
  ${endpoint}: branch("${endpoint}", "PATCH", \`\${AUTH}/plugins/${segment}\`, {
    request: s.update${type}PluginRequest,
    response: s.${name}Plugin,
    success: [200],
    deviations: [{ kind: "not-in-document", why: "Neon's API reference (newer than 2.7.3) adds PATCH …/auth/plugins/${segment}" }],
  }),${s}`);
edit("src/schemas/endpointsBranch.ts", /\n\] as const satisfies readonly BranchSetting\[\];/, (s) => `
  {
    name: "${name}",
    type: "${type}",
    key: "${key}",
    aggregated: true,
    write: B.${endpoint},
    // Assumption until Neon's reference gives the values of a new integration.
    initial: { enabled: false, expires_in: 5 },
    doc: "The ${name} plugin: what it does, in one line (the README's table and the published type show it).",
  },${s}`);
edit("scripts/probe/steps.mts", /\n {2}\{ id: "getBranchWebhooks"/, (s) => `
  { id: "${endpoint}", method: "PATCH", path: \`\${AUTH}/plugins/${segment}\`, body: { enabled: true } },${s}`);
console.log(`wrote ${name}'s wire schemas (src/schemas/branchAuth.ts), its endpoint and row (src/schemas/endpointsBranch.ts), its probe call (scripts/probe/steps.mts). Now: npm run gen`);
