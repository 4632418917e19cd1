/**
 * The README's table of contents names every `##` section (and links only headings that exist);
 * test/not-runnable.json, which exempts shell blocks from test/e2e/readme.test.ts, names only
 * blocks that exist, each with its reason.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { blocksOf, isShell, notRunnable, repo } from "../readme-blocks";

/** GitHub's and npm's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
const anchor = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-");

function headings(markdown: string): { level: number; text: string }[] {
  const out: { level: number; text: string }[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = !fenced && /^(#{1,6}) (.*)$/.exec(line);
    if (m) out.push({ level: m[1]!.length, text: m[2]! });
  }
  return out;
}

describe("the README's table of contents", () => {
  const readme = fs.readFileSync(path.join(repo, "README.md"), "utf8");
  // The list before the first section: from its first `- [` line to the blank line after it.
  const start = readme.indexOf("\n- [");
  const list = readme.slice(start, readme.indexOf("\n\n", start));
  const toc = [...list.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!);

  it("lists every ## section, in order", () => {
    const sections = headings(readme).filter((h) => h.level === 2).map((h) => anchor(h.text));
    expect(toc.filter((a) => sections.includes(a))).toEqual(sections);
  });

  it("links only headings that exist", () => {
    const all = new Set(headings(readme).map((h) => anchor(h.text)));
    expect(toc.filter((a) => !all.has(a))).toEqual([]);
  });

  it("lists the Recipes and their sub-sections before the documentation's pages", () => {
    expect(toc.indexOf("recipes")).toBeLessThan(toc.indexOf("documentation"));
    expect(toc.indexOf("recipes")).toBeGreaterThan(toc.indexOf("quick-start"));
  });

  it("is read in ten minutes: at most 400 lines, the reference in docs/", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(400);
  });
});

describe("test/not-runnable.json", () => {
  it("names only shell blocks that exist, each with the reason it cannot run here", () => {
    const stale = notRunnable().filter((n) => !blocksOf(n.doc).some((b) => isShell(b) && b.text === n.block));
    expect(stale.map((n) => `${n.doc}: ${n.block.split("\n")[0]}`)).toEqual([]);
    expect(notRunnable().filter((n) => n.reason.trim().length < 20)).toEqual([]);
  });
});
