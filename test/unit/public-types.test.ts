/**
 * The published declaration files a program's type check reads, walked from each entry point of
 * package.json "exports" (the built dist/, as `make test` builds it first). The root, the
 * emulator and the import helper must reach no third-party types but @pulumi/pulumi's and Node's:
 * zod 4's declarations alone fail a `pulumi new typescript` tsconfig (no esModuleInterop, no
 * skipLibCheck). The client's types are zod-inferred, documented as needing esModuleInterop. The
 * policy rules' reach @pulumi/policy's, which this counts with @pulumi/pulumi's.
 * The install e2e test proves the same with tsc; this says which import broke it, in a second.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const repo = path.resolve(__dirname, "../..");
const pkg = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8"));

/** `file -> package` for every bare import reachable from a declaration file. */
function foreignImports(entry: string): string[] {
  const seen = new Set<string>();
  const found: string[] = [];
  const queue = [path.join(repo, entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = fs.readFileSync(file, "utf8");
    for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
      if (spec!.startsWith(".")) {
        const base = path.resolve(path.dirname(file), spec!.replace(/\.js$/, ""));
        const next = [`${base}.d.ts`, path.join(base, "index.d.ts")].find((f) => fs.existsSync(f));
        if (next) queue.push(next);
      } else if (!spec!.startsWith("node:") && !spec!.startsWith("@pulumi/")) {
        found.push(`${path.relative(path.join(repo, "dist"), file)} -> ${spec}`);
      }
    }
  }
  return found.sort();
}

describe("published types", () => {
  const entries = Object.entries(pkg.exports as Record<string, string | { types?: string }>)
    .filter(([, target]) => typeof target === "object" && target.types !== undefined)
    .map(([subpath, target]) => [subpath, (target as { types: string }).types] as const);

  it("has a types entry for each documented entry point", () => {
    expect(entries.map(([subpath]) => subpath)).toEqual([".", "./client", "./emulator", "./import", "./policy"]);
  });

  for (const [subpath, types] of entries.filter(([s]) => s !== "./client")) {
    it(`${subpath} reaches no third-party types but @pulumi/pulumi's`, () => {
      expect(foreignImports(types)).toEqual([]);
    });
  }

  it("./client reaches zod (documented: needs esModuleInterop) and undici, nothing else", () => {
    expect([...new Set(foreignImports(pkg.exports["./client"].types).map((l) => l.split(" -> ")[1]!.split("/")[0]))].sort()).toEqual(["undici", "zod"]);
  });
});
