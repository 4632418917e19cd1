/**
 * Small named steps everywhere in src (issue 40): no function over 80 lines from its first line to
 * its closing brace, no parameter list over 5. The rooms are layout.test.ts's.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = resolve(__dirname, "../../src");
const MAX_LINES = 80;
const MAX_PARAMS = 5;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith(".ts") ? [p] : [];
  });
}

interface Fn {
  at: string;
  lines: number;
  params: number;
}

function functionsOf(file: string): Fn[] {
  const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: Fn[] = [];
  const line = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && "body" in n && n.body !== undefined) {
      const first = line(n.getStart(sf));
      found.push({ at: `${relative(SRC, file)}:${first + 1}`, lines: line(n.end) - first + 1, params: n.parameters.length });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

const fns = sources(SRC).flatMap(functionsOf);

describe("functions in src", () => {
  it("finds the functions it measures", () => {
    expect(fns.length).toBeGreaterThan(500);
  });

  it(`have no function over ${MAX_LINES} lines`, () => {
    expect(fns.filter((f) => f.lines > MAX_LINES).map((f) => `${f.at} (${f.lines} lines)`)).toEqual([]);
  });

  it(`have no parameter list over ${MAX_PARAMS}`, () => {
    expect(fns.filter((f) => f.params > MAX_PARAMS).map((f) => `${f.at} (${f.params} parameters)`)).toEqual([]);
  });
});
