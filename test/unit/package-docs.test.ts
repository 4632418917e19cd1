/**
 * The README is read on the npm page, where only the packed files exist: every relative link must
 * resolve inside the tarball, every `#anchor` must name a heading, and the tarball carries the
 * licence and the changelog.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const repo = path.resolve(__dirname, "..", "..");

/** Files `npm pack` would put in the tarball (without building: dist/ is not linked to). */
function packedFiles(): Set<string> {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: repo,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [report] = JSON.parse(out) as { files: { path: string }[] }[];
  return new Set(report!.files.map((f) => f.path));
}

/** GitHub's and npm's heading anchors: lower case, punctuation dropped, spaces to dashes. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const m = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (m) anchors.add(m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-"));
  }
  return anchors;
}

function linksOf(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe("the packed package's documentation", () => {
  const files = packedFiles();

  it("ships the licence, the changelog, the README and the docs it links to", () => {
    for (const f of ["LICENSE", "CHANGELOG.md", "README.md", "DEVELOPMENT.md", "src/emulator/README.md", "package.json"]) {
      expect(files.has(f), f).toBe(true);
    }
    // Nothing a user does not need: no tests, no sources but the emulator's README, no maps.
    expect([...files].filter((f) => f.startsWith("test/") || (f.startsWith("src/") && f !== "src/emulator/README.md"))).toEqual([]);
    expect([...files].filter((f) => f.endsWith(".map"))).toEqual([]);
  });

  for (const doc of ["README.md", "DEVELOPMENT.md", "CHANGELOG.md", "src/emulator/README.md"]) {
    it(`${doc}: every relative link resolves inside the tarball, every anchor names a heading`, () => {
      const text = fs.readFileSync(path.join(repo, doc), "utf8");
      const broken: string[] = [];
      for (const link of linksOf(text)) {
        if (/^(https?:|mailto:)/.test(link)) continue;
        const [target, anchor] = link.split("#") as [string, string | undefined];
        const file = target === "" ? doc : path.posix.normalize(path.posix.join(path.posix.dirname(doc), target));
        const isDir = [...files].some((f) => f.startsWith(`${file.replace(/\/$/, "")}/`));
        if (!files.has(file) && !isDir) broken.push(`${link} (no ${file} in the tarball)`);
        else if (anchor && files.has(file) && !anchorsOf(fs.readFileSync(path.join(repo, file), "utf8")).has(anchor)) {
          broken.push(`${link} (no heading #${anchor} in ${file})`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});
