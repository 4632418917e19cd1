/**
 * Every field a program writes (Args) and every output it reads carries TSDoc, so an editor shows
 * what it means, its default and what a change does.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { KINDS } from "../../src/provider/kindNames";

const dir = path.resolve(__dirname, "..", "..", "src", "resources");

/** `file: field` for each Args field or declared output whose previous line does not end a doc comment. */
function undocumented(file: string): string[] {
  const lines = fs.readFileSync(path.join(dir, file), "utf8").split("\n");
  const found: string[] = [];
  let inArgs = false;
  lines.forEach((line, i) => {
    if (/^(export )?interface \w+(Args|ArgsBase|Outputs?)\b/.test(line)) inArgs = true;
    else if (inArgs && line.startsWith("}")) inArgs = false;
    const field = /^  declare readonly (\w+)/.exec(line)?.[1] ?? (inArgs ? /^  (?:readonly )?(\w+)\??:/.exec(line)?.[1] : undefined);
    if (field && !lines[i - 1]!.trim().endsWith("*/")) found.push(`${file}: ${field}`);
  });
  return found;
}

describe("TSDoc", () => {
  it("on every Args field and every output of every resource", () => {
    // Each kind's published types, generated from its declaration (which requires a doc per field).
    const kinds = fs.readdirSync(path.join(dir, "types")).filter((f) => f.endsWith(".ts") && f !== "index.ts").map((f) => path.join("types", f));
    expect(kinds.length).toBe(KINDS.length);
    expect([...kinds, "children.ts", "settingTypes.ts"].flatMap(undocumented)).toEqual([]);
  });
});
