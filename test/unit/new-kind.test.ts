/**
 * Adding a kind is proven, not described: DEVELOPMENT.md's block of commands under "Adding a
 * resource kind" runs as written, in a copy of the repository, for a throwaway kind. The first
 * `npm run gen` of a new kind works, the type check passes, and the tests that hold every kind
 * pass with it. And it costs what the issue asked (49): two hand-written files (the kind's own and
 * the table of kinds); every other file it touches is one `npm run gen` writes.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, it } from "vitest";
import { drill, touched } from "./drill";

it("DEVELOPMENT.md's steps add a kind: it generates, type-checks and passes the tests that hold every kind", { timeout: 900_000 }, () => {
  drill("Adding a resource kind", ({ dir, commands, snapshots, step }) => {
    expect(commands[0]).toMatch(/^node scripts\/new-kind\.mts [A-Z]\w+$/);
    const kind = commands[0]!.split(" ").at(-1)!;
    // The script writes what a person would: the kind's file and its row of the table of kinds.
    const camel = kind.charAt(0).toLowerCase() + kind.slice(1);
    expect(step(0)).toEqual([`src/kinds/${camel}.ts`, "src/kinds/index.ts"].sort());
    // Everything else comes from `npm run gen`, which leaves those two alone; the checks touch nothing.
    const gen = commands.indexOf("npm run gen");
    expect(gen).toBeGreaterThan(0);
    const generated = step(gen);
    expect(generated).not.toContain("src/kinds/index.ts");
    expect(generated).toEqual(expect.arrayContaining([`src/resources/providers/${kind}.ts`, "src/resources/providers/index.ts", "src/resources/classes.ts", "src/provider/kindNames.ts"]));
    expect(touched(snapshots[1]!, snapshots.at(-1)!)).toEqual(generated);
    const types = fs.readFileSync(path.join(dir, "src/resources/types", `${kind}.ts`), "utf8");
    expect(types).toContain(`export interface ${kind}Args`);
    const page = fs.readFileSync(path.join(dir, "docs", `${kind}.md`), "utf8");
    const table = page.slice(page.indexOf(`<!-- gen:kind:${kind} -->`), page.indexOf(`<!-- /gen:kind:${kind} -->`));
    expect(table).toContain("| `name` |");
    expect(fs.readFileSync(path.join(dir, "docs/plugin", `${kind}.md`), "utf8")).toContain(`neon-auth:index:${kind}`);
  });
});
