/**
 * What `npm run gen` derives from the table of NeonAuth settings is checked in; this fails when
 * it is stale (run `npm run gen`). And the table is the one place: each setting has its input
 * rule, its published type and its README row from its row, and nothing else lists them.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { README_MARKERS, renderReadmeRows, renderSettingTypes, TYPES_FILE, withReadmeRows } from "../../scripts/gen/settings.mts";
import { BRANCH_SETTINGS, WEBHOOK_EVENTS } from "../../src/schemas";
import { AREAS } from "../../src/resources/neonAuthSettings";

const repo = path.resolve(__dirname, "../..");
const read = (f: string) => fs.readFileSync(path.join(repo, f), "utf8");

describe("generated from the table of settings", () => {
  it("the published setting types are current", () => {
    expect(read(TYPES_FILE)).toBe(renderSettingTypes(BRANCH_SETTINGS, WEBHOOK_EVENTS));
  });

  it("the README's table of NeonAuth settings is current", () => {
    const readme = read("README.md");
    expect(readme).toContain(README_MARKERS[0]);
    expect(readme).toBe(withReadmeRows(readme, renderReadmeRows(BRANCH_SETTINGS)));
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
