/**
 * What `npm run gen` derives from the table of NeonAuth settings is checked in; this fails when
 * it is stale (run `npm run gen`). And the table is the one place: each setting has its input
 * rule, its published type and its row on NeonAuth's page (docs/) from its row, and nothing else lists them.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { KIND_TYPES_DIR, renderKindTypes } from "../../scripts/gen/kinds.mts";
import { docsInputs, kindPage, POLICY_PAGE, renderDocsPages, SETTINGS_PAGE } from "../../scripts/gen/docs-pages.mts";
import { PLUGIN_DOCS_DIR, renderPluginDocs } from "../../scripts/gen/plugin-docs.mts";
import { EXAMPLES_DIR, exampleSource, renderExamplePages } from "../../scripts/gen/examples.mts";
import { withGenerated } from "../../scripts/gen/readme.mts";
import { FUNCTIONS_DIR, FUNCTIONS_MARKERS, FUNCTIONS_PAGE, renderFunctionFiles, renderFunctionsReference } from "../../scripts/gen/functions.mts";
import { REGISTRY_DOCS, REGISTRY_DOCS_DIR, renderRegistryDocs } from "../../scripts/gen/registry-docs.mts";
import { POLICY_MARKERS, POLICY_PACKAGE_FILE, renderPolicyPackage } from "../../scripts/gen/policy.mts";
import { CHECKLIST } from "../../src/policy/rule";
import { RULES } from "../../src/policy/rules";
import { packageSchema } from "../../src/plugin/schema";
import { README_MARKERS, renderSettingTypes, TYPES_FILE } from "../../scripts/gen/settings.mts";
import { BRANCH_SETTINGS, WEBHOOK_EVENTS } from "../../src/schemas";
import { secretKeys } from "../../src/schemas/fields";
import { computedOf } from "../../src/provider/declaration";
import { DECLARATIONS } from "../../src/kinds";
import { AREAS } from "../../src/kinds/neonAuthSettings";
import * as ownClasses from "../../src/resources/ownClasses";
import { CLASSES_FILE, KIND_NAMES_FILE, PROVIDERS_DIR, renderClasses, renderKindNames, renderProviderModules } from "../../scripts/gen/kind-modules.mts";

const repo = path.resolve(__dirname, "../..");
const read = (f: string) => fs.readFileSync(path.join(repo, f), "utf8");

describe("generated from the table of settings", () => {
  it("the published setting types are current", () => {
    expect(read(TYPES_FILE)).toBe(renderSettingTypes(BRANCH_SETTINGS, WEBHOOK_EVENTS));
  });

  it("NeonAuth's page holds the table of settings", () => {
    expect(read(SETTINGS_PAGE)).toContain(README_MARKERS[0]);
  });

  it("every setting of the table is a NeonAuth input, and no other plugin setting is", () => {
    expect(Object.keys(AREAS)).toEqual(BRANCH_SETTINGS.map((row) => row.name));
    for (const row of BRANCH_SETTINGS) expect(Object.keys(AREAS[row.name].shape).length).toBe(Object.keys(row.write.request.shape).length);
  });

  it("no source file but the table spells a setting's wire key beside its endpoint", () => {
    const hits: string[] = [];
    const walk = (dir: string): void => {
      for (const n of fs.readdirSync(dir)) {
        const p = path.join(dir, n);
        if (fs.statSync(p).isDirectory()) walk(p);
        else if (p.endsWith(".ts") && /updateBranch(Organization|MagicLink|PhoneNumber)Plugin|putBranchWebhooks|updateBranchEmailAndPassword/.test(fs.readFileSync(p, "utf8"))) hits.push(path.relative(repo, p));
      }
    };
    walk(path.join(repo, "src"));
    // The endpoint entries with the table, and the emulator's webhook rules (a PUT has rules of its own).
    expect(hits.sort()).toEqual(["src/emulator/branch/settings.ts", "src/schemas/endpointsBranch.ts"]);
  });
});

describe("generated from the kinds' declarations", () => {
  const decls = Object.values(DECLARATIONS);

  it("the lists of kinds are current: their names, provider modules and classes", () => {
    expect(read(KIND_NAMES_FILE)).toBe(renderKindNames(decls));
    const modules = renderProviderModules(decls);
    const kept = fs.readdirSync(path.join(repo, PROVIDERS_DIR)).filter((f) => f !== "dynamic.ts");
    expect(kept.sort()).toEqual(Object.keys(modules).sort());
    for (const [file, text] of Object.entries(modules)) expect(read(path.join(PROVIDERS_DIR, file)), file).toBe(text);
    const own = Object.keys(ownClasses).flatMap((k) => (k.endsWith("Base") ? [k.slice(0, -4)] : []));
    expect(read(CLASSES_FILE)).toBe(renderClasses(decls, own));
  });

  it("the published Args and output types of every kind are current, and nothing else is in their folder", () => {
    const want = renderKindTypes(decls);
    expect(fs.readdirSync(path.join(repo, KIND_TYPES_DIR)).sort()).toEqual(Object.keys(want).sort());
    for (const [file, text] of Object.entries(want)) expect(read(path.join(KIND_TYPES_DIR, file)), file).toBe(text);
  });

  it("the generated parts of the pages in docs/ are current: each kind's reference, the settings, the rules", () => {
    const current = (f: string) => (fs.existsSync(path.join(repo, f)) ? read(f) : undefined);
    const want = renderDocsPages(current, docsInputs(decls, (d) => secretKeys(d.schema), BRANCH_SETTINGS, [RULES, CHECKLIST.source]));
    for (const d of decls) expect(Object.keys(want)).toContain(kindPage(d.kind));
    for (const [file, text] of Object.entries(want)) expect(current(file), file).toBe(text);
  });

  it("each kind's example, from its one source, is current on the kind's page in four languages", () => {
    expect(fs.readdirSync(path.join(repo, EXAMPLES_DIR)).sort()).toEqual(decls.map((d) => `${d.kind}.yaml`).sort());
    const sources = Object.fromEntries(decls.map((d) => [d.kind, read(exampleSource(d.kind))]));
    const want = renderExamplePages((f) => read(f), sources, packageSchema());
    for (const [file, text] of Object.entries(want)) {
      expect(read(file), file).toBe(text);
      for (const lang of ["typescript", "yaml", "go", "python"]) expect(text, file).toContain("```" + lang + "\n");
    }
  });

  it("the functions of the TypeScript face and their page's table are current", () => {
    const want = renderFunctionFiles(packageSchema());
    expect(fs.readdirSync(path.join(repo, FUNCTIONS_DIR)).sort()).toEqual(Object.keys(want).sort());
    for (const [file, text] of Object.entries(want)) expect(read(path.join(FUNCTIONS_DIR, file)), file).toBe(text);
    const page = read(FUNCTIONS_PAGE);
    expect(page).toContain(FUNCTIONS_MARKERS[0]);
    expect(page).toBe(withGenerated(page, FUNCTIONS_MARKERS, renderFunctionsReference(packageSchema())));
  });

  it("the provider plugin's pages per resource are current, and nothing else is in their folder", () => {
    const want = renderPluginDocs(packageSchema());
    expect(fs.readdirSync(path.join(repo, PLUGIN_DOCS_DIR)).sort()).toEqual(Object.keys(want).sort());
    for (const [file, text] of Object.entries(want)) expect(read(path.join(PLUGIN_DOCS_DIR, file)), file).toBe(text);
  });

  it("the Pulumi Registry's pages (overview, installation and configuration) are current", () => {
    const want = renderRegistryDocs(packageSchema(), decls, JSON.parse(read("package.json")).version);
    expect(Object.keys(want)).toEqual([...REGISTRY_DOCS]);
    for (const [file, text] of Object.entries(want)) expect(read(path.join(REGISTRY_DOCS_DIR, file)), file).toBe(text);
    // The Registry reads these three keys of the front matter.
    for (const text of Object.values(want)) expect(/^---\ntitle: .+\nmeta_desc: .+\nlayout: package\n---\n/.test(text)).toBe(true);
  });

  it("each declared input is a runtime input, and each runtime input is declared or comes from the integration", () => {
    const fromIntegration = ["projectId", "branchId", "integration", "authProvider"];
    for (const d of decls) {
      const runtime = Object.keys((d.schema as unknown as { shape: object }).shape);
      const declared = Object.keys(d.inputs);
      const settings: string[] = d.kind === "NeonAuth" ? BRANCH_SETTINGS.map((row) => row.name) : [];
      expect(declared.filter((k) => !runtime.includes(k)), d.kind).toEqual([]);
      const hidden = d.parent === undefined ? [] : fromIntegration;
      expect(runtime.filter((k) => !declared.includes(k) && !hidden.includes(k) && !settings.includes(k)), d.kind).toEqual([]);
      expect(computedOf(d).filter((k) => runtime.includes(k)), d.kind).toEqual([]);
    }
  });
});

describe("generated from the policy pack's rules", () => {
  it("the policy page holds the table of rules", () => {
    expect(read(POLICY_PAGE)).toContain(POLICY_MARKERS[0]);
  });

  it("the pack folder's package.json carries the package's version", () => {
    expect(read(POLICY_PACKAGE_FILE)).toBe(renderPolicyPackage(JSON.parse(read("package.json")).version));
  });
});
