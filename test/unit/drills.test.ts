/**
 * Adding a kind and adding a NeonAuth setting area are proven, not described: DEVELOPMENT.md's
 * blocks under "Adding a resource kind" and "Adding a NeonAuth setting area" run as written, in
 * one copy of the repository, for a throwaway kind and a throwaway plugin setting (drill.ts): each
 * generates, then the type check and the tests that hold every kind and every setting pass with
 * both. And each costs what the issue asked (49):
 * - a kind, two hand-written files (the kind's own and the table of kinds); every other file it
 *   touches is one `npm run gen` writes;
 * - a setting area, three (the wire schemas, the endpoint with its row of the settings table, the
 *   probe's call); every other file it touches is written by a command (`npm run gen`, the probe's
 *   recording). The tests that hold every setting include the emulator's GET and PATCH over HTTP
 *   (branch-settings.test.ts walks the table), the branch client's methods, Neon's own client, the
 *   endpoint table against Neon's document, the probe.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, it } from "vitest";
import { drills, touched } from "./drill";

const SETTING_BY_HAND = ["scripts/probe/steps.mts", "src/schemas/branchAuth.ts", "src/schemas/endpointsBranch.ts"];

it("DEVELOPMENT.md's steps add a kind and a setting area: each touches its few hand-written files, the rest is generated, every test that holds them passes", { timeout: 900_000 }, () => {
  drills(["Adding a resource kind", "Adding a NeonAuth setting area"], ([kindRun, settingRun]) => {
    // A kind: the script writes what a person would, the kind's file and its row of the table of kinds.
    {
      const { dir, commands, snapshots, step } = kindRun!;
      expect(commands[0]).toMatch(/^node scripts\/new-kind\.mts [A-Z]\w+$/);
      const kind = commands[0]!.split(" ").at(-1)!;
      const camel = kind.charAt(0).toLowerCase() + kind.slice(1);
      expect(step(0)).toEqual([`src/kinds/${camel}.ts`, "src/kinds/index.ts"].sort());
      // Everything else comes from `npm run gen`, which leaves those two alone.
      expect(commands.slice(1)).toEqual(["npm run gen"]);
      const generated = step(1);
      expect(generated).not.toContain("src/kinds/index.ts");
      expect(generated).toEqual(expect.arrayContaining([`src/resources/providers/${kind}.ts`, "src/resources/providers/index.ts", "src/resources/classes.ts", "src/provider/kindNames.ts"]));
      expect(touched(snapshots[1]!, snapshots.at(-1)!)).toEqual(generated);
      expect(fs.readFileSync(path.join(dir, "src/resources/types", `${kind}.ts`), "utf8")).toContain(`export interface ${kind}Args`);
      const page = fs.readFileSync(path.join(dir, "docs", `${kind}.md`), "utf8");
      const table = page.slice(page.indexOf(`<!-- gen:kind:${kind} -->`), page.indexOf(`<!-- /gen:kind:${kind} -->`));
      expect(table).toContain("| `name` |");
      expect(fs.readFileSync(path.join(dir, "docs/plugin", `${kind}.md`), "utf8")).toContain(`neon-auth:index:${kind}`);
    }
    // A setting area: three files by hand, then `npm run gen` and the probe's recording, which leave those alone.
    {
      const { dir, commands, snapshots, step } = settingRun!;
      expect(commands[0]).toMatch(/^node scripts\/new-setting\.mts [a-z]\w+$/);
      const name = commands[0]!.split(" ").at(-1)!;
      const type = name.charAt(0).toUpperCase() + name.slice(1);
      expect(step(0)).toEqual(SETTING_BY_HAND);
      expect(commands.slice(1)).toEqual(["npm run gen", "npm run probe -- --emulator"]);
      const generated = step(1);
      expect(generated).toEqual(["docs/NeonAuth.md", "docs/functions.md", "docs/plugin/NeonAuth.md", "docs/plugin/functions.md", "src/resources/functions/getNeonAuth.ts", "src/resources/settingTypes.ts"]);
      expect(step(2)).toEqual(["test/contract/neon-shapes.json"]);
      expect(touched(snapshots[1]!, snapshots.at(-1)!)).toEqual([...generated, ...step(2)].sort());
      // Its published type, its input on the class, its row of NeonAuth's settings table.
      const types = fs.readFileSync(path.join(dir, "src/resources/settingTypes.ts"), "utf8");
      expect(types).toContain(`export interface ${type}Fields {`);
      expect(types).toContain(`  ${name}?: pulumi.Input<${type}Settings>;`);
      expect(fs.readFileSync(path.join(dir, "docs/NeonAuth.md"), "utf8")).toContain(`| \`${name}\` | \`{enabled, expiresIn 5–1440}\``);
    }
  });
});
