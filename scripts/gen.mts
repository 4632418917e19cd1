/**
 * `npm run gen`: writes what derives from the declarations and is checked in (scripts/gen/):
 * the published types of the NeonAuth settings and of every kind, each kind's page in docs/ (its
 * reference tables and its example in four languages; a page for a kind that has none), the provider plugin's pages per resource (docs/plugin/), and from the policy pack's rules
 * the rule table of docs/policy.md and the pack folder's package.json; the Pulumi Registry's pages
 * (docs/_index.md, docs/installation-configuration.md). A unit test (test/unit/generated.test.ts)
 * fails when any is stale.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { KIND_TYPES_DIR, renderKindTypes } from "./gen/kinds.mts";
import { docsInputs, renderDocsPages } from "./gen/docs-pages.mts";
import { PLUGIN_DOCS_DIR, renderPluginDocs } from "./gen/plugin-docs.mts";
import { REGISTRY_DOCS_DIR, renderRegistryDocs } from "./gen/registry-docs.mts";
import { POLICY_PACKAGE_FILE, renderPolicyPackage } from "./gen/policy.mts";
import { renderSettingTypes, TYPES_FILE } from "./gen/settings.mts";
import { withGenerated } from "./gen/readme.mts";
import { exampleSource, renderExamplePages, starterExample } from "./gen/examples.mts";
import { FUNCTIONS_DIR, FUNCTIONS_MARKERS, FUNCTIONS_PAGE, renderFunctionFiles, renderFunctionsReference } from "./gen/functions.mts";
import { CLASSES_FILE, KIND_NAMES_FILE, PROVIDERS_DIR, renderClasses, renderKindNames, renderProviderModules } from "./gen/kind-modules.mts";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// What is generated is read from the compiled declarations. A new kind's class names the Args
// this script writes, so its first build cannot type-check: compile what there is (tsc writes
// its output despite type errors), generate, and leave the judging to the build that follows.
fs.rmSync(path.join(repo, "dist"), { recursive: true, force: true });
spawnSync(path.join(repo, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.build.json"], { cwd: repo, stdio: "ignore" });
const schemas = (await import(path.join(repo, "dist/schemas/index.js"))) as typeof import("../src/schemas/index.ts");
const fields = (await import(path.join(repo, "dist/schemas/fields.js"))) as typeof import("../src/schemas/fields.ts");
const { DECLARATIONS } = (await import(path.join(repo, "dist/kinds/index.js"))) as typeof import("../src/kinds/index.ts");
const { packageSchema } = (await import(path.join(repo, "dist/plugin/schema.js"))) as typeof import("../src/plugin/schema.ts");
const { RULES, CHECKLIST } = (await import(path.join(repo, "dist/policy/index.js"))) as typeof import("../src/policy/index.ts");

// The lists of kinds: their names, provider modules and classes, from the table.
const kinds = Object.values(DECLARATIONS);
const own = Object.keys(await import(path.join(repo, "dist/resources/ownClasses.js"))).flatMap((k) => (k.endsWith("Base") ? [k.slice(0, -4)] : []));
fs.writeFileSync(path.join(repo, KIND_NAMES_FILE), renderKindNames(kinds));
for (const [file, text] of Object.entries(renderProviderModules(kinds))) fs.writeFileSync(path.join(repo, PROVIDERS_DIR, file), text);
fs.writeFileSync(path.join(repo, CLASSES_FILE), renderClasses(kinds, own));
fs.writeFileSync(path.join(repo, TYPES_FILE), renderSettingTypes(schemas.BRANCH_SETTINGS, schemas.WEBHOOK_EVENTS));
const typesDir = path.join(repo, KIND_TYPES_DIR);
fs.rmSync(typesDir, { recursive: true, force: true });
fs.mkdirSync(typesDir);
for (const [file, text] of Object.entries(renderKindTypes(Object.values(DECLARATIONS)))) fs.writeFileSync(path.join(typesDir, file), text);
const read = (f: string) => (fs.existsSync(path.join(repo, f)) ? fs.readFileSync(path.join(repo, f), "utf8") : undefined);
const pages = renderDocsPages(read, docsInputs(Object.values(DECLARATIONS), (d) => fields.secretKeys(d.schema), schemas.BRANCH_SETTINGS, [RULES, CHECKLIST.source]));
for (const [file, page] of Object.entries(pages)) fs.writeFileSync(path.join(repo, file), page);
// Each kind's example in four languages, from its one source (docs/examples/<Kind>.yaml).
// A kind without one gets a first example, written once (never overwritten).
for (const d of Object.values(DECLARATIONS)) {
  const file = path.join(repo, exampleSource(d.kind));
  if (!fs.existsSync(file)) fs.writeFileSync(file, starterExample(d.kind, d.parent === "either" ? "NeonAuth" : d.parent, packageSchema()));
}
const sources = Object.fromEntries(Object.keys(DECLARATIONS).map((k) => [k, fs.readFileSync(path.join(repo, exampleSource(k)), "utf8")]));
for (const [file, page] of Object.entries(renderExamplePages(read, sources, packageSchema()))) fs.writeFileSync(path.join(repo, file), page);
// The functions' reference on their page, and their TypeScript face.
const functionsPage = path.join(repo, FUNCTIONS_PAGE);
fs.writeFileSync(functionsPage, withGenerated(fs.readFileSync(functionsPage, "utf8"), FUNCTIONS_MARKERS, renderFunctionsReference(packageSchema())));
const functionsDir = path.join(repo, FUNCTIONS_DIR);
fs.rmSync(functionsDir, { recursive: true, force: true });
fs.mkdirSync(functionsDir);
for (const [file, source] of Object.entries(renderFunctionFiles(packageSchema()))) fs.writeFileSync(path.join(functionsDir, file), source);
const docsDir = path.join(repo, PLUGIN_DOCS_DIR);
fs.rmSync(docsDir, { recursive: true, force: true });
fs.mkdirSync(docsDir, { recursive: true });
for (const [file, page] of Object.entries(renderPluginDocs(packageSchema()))) fs.writeFileSync(path.join(docsDir, file), page);
const { version } = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")) as { version: string };
fs.writeFileSync(path.join(repo, POLICY_PACKAGE_FILE), renderPolicyPackage(version));
for (const [file, page] of Object.entries(renderRegistryDocs(packageSchema(), Object.values(DECLARATIONS), version))) {
  fs.writeFileSync(path.join(repo, REGISTRY_DOCS_DIR, file), page);
}
process.stdout.write(`wrote ${KIND_NAMES_FILE}, ${PROVIDERS_DIR}/, ${CLASSES_FILE}, ${TYPES_FILE}, ${KIND_TYPES_DIR}/, ${FUNCTIONS_DIR}/, ${PLUGIN_DOCS_DIR}/, ${POLICY_PACKAGE_FILE}, the Registry's pages in ${REGISTRY_DOCS_DIR}/ and the generated parts of the pages in docs/\n`);
