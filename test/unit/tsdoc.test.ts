/**
 * Every field a program writes (Args) and every output it reads carries TSDoc, so an editor shows
 * what it means, its default and what a change does.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const dir = path.resolve(__dirname, "..", "..", "src", "resources");

/** `file: field` for each Args field or declared output whose previous line does not end a doc comment. */
function undocumented(file: string): string[] {
  const lines = fs.readFileSync(path.join(dir, file), "utf8").split("\n");
  const found: string[] = [];
  let inArgs = false;
  lines.forEach((line, i) => {
    if (/^export interface \w+(Args|Outputs?)\b/.test(line)) inArgs = true;
    else if (inArgs && line.startsWith("}")) inArgs = false;
    const field = /^  declare readonly (\w+)/.exec(line)?.[1] ?? (inArgs ? /^  (?:readonly )?(\w+)\??:/.exec(line)?.[1] : undefined);
    if (field && !lines[i - 1]!.trim().endsWith("*/")) found.push(`${file}: ${field}`);
  });
  return found;
}

describe("TSDoc", () => {
  it("on every Args field and every output of every resource", () => {
    const files = fs.readdirSync(dir).filter((f) => f.endsWith(".ts"));
    const withClasses = files.filter((f) => /extends pulumi\.dynamic\.Resource/.test(fs.readFileSync(path.join(dir, f), "utf8")));
    expect(withClasses.length).toBeGreaterThanOrEqual(7);
    expect([...withClasses, "parent.ts"].flatMap(undocumented)).toEqual([]);
  });
});
