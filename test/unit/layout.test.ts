/**
 * The shape the code keeps (issue "a resource kind is one declaration"): no source file over 350
 * lines; the API generation decided in one module; the client made in one place, per provider
 * process; the emulator standing apart from the client it stands in for.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(__dirname, "../../src");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith(".ts") ? [p] : [];
  });
}

const files = sources(SRC).map((p) => ({ path: relative(SRC, p), text: readFileSync(p, "utf8") }));
const where = (re: RegExp) => files.filter((f) => re.test(f.text)).map((f) => f.path).sort();

describe("layout of src/", () => {
  it("has no file over 350 lines", () => {
    expect(files.filter((f) => f.text.split("\n").length - 1 > 350).map((f) => f.path)).toEqual([]);
  });

  it("decides the API generation of a child in generation.ts only", () => {
    expect(where(/\bisBranch\w*\(/)).toEqual([]);
    expect(where(/const (PROJECT|BRANCH): Generation\b/)).toEqual(["resources/generation.ts"]);
  });

  it("makes the resources' client in one place, once per provider process, and keeps no global one", () => {
    expect(where(/\bcreateClient\(/).filter((p) => p.startsWith("resources/"))).toEqual(["resources/context.ts"]);
    expect(where(/\bgetClient\b|\bapi\(\)/)).toEqual([]);
  });

  it("keeps the emulator apart from the client it stands in for", () => {
    expect(files.filter((f) => f.path.startsWith("emulator/") && /from "(\.\.\/)+client\b/.test(f.text)).map((f) => f.path)).toEqual([]);
  });
});
