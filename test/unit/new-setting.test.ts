/**
 * Adding a NeonAuth setting area is proven, not described: DEVELOPMENT.md's block under "Adding a
 * NeonAuth setting area" runs as written, in a copy of the repository, for a throwaway plugin
 * setting. It generates, type-checks and passes the tests that hold every setting: the input rule
 * and published type, the emulator's GET and PATCH over HTTP (branch-settings.test.ts walks the
 * table), the branch client's methods, Neon's own client, the endpoint table against Neon's
 * document, the probe. And it costs what the issue asked (49): three hand-written files (the wire
 * schemas, the endpoint with its row of the settings table, the probe's call); every other file it
 * touches is written by a command (`npm run gen`, the probe's recording).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, it } from "vitest";
import { drill, touched } from "./drill";

const HAND_WRITTEN = ["scripts/probe/steps.mts", "src/schemas/branchAuth.ts", "src/schemas/endpointsBranch.ts"];

it("DEVELOPMENT.md's steps add a setting area: three files by hand, the rest generated, every setting's test passing", { timeout: 900_000 }, () => {
  drill("Adding a NeonAuth setting area", ({ dir, commands, snapshots, step }) => {
    expect(commands[0]).toMatch(/^node scripts\/new-setting\.mts [a-z]\w+$/);
    const name = commands[0]!.split(" ").at(-1)!;
    const type = name.charAt(0).toUpperCase() + name.slice(1);
    expect(step(0)).toEqual(HAND_WRITTEN);
    // Everything else is written by `npm run gen` and the probe's recording, which leave those three
    // alone; the checks touch nothing.
    const gen = commands.indexOf("npm run gen");
    const probe = commands.indexOf("npm run probe -- --emulator");
    expect([gen, probe]).toEqual([1, 2]);
    const generated = step(gen);
    expect(generated).toEqual(["docs/NeonAuth.md", "docs/functions.md", "docs/plugin/NeonAuth.md", "docs/plugin/functions.md", "src/resources/functions/getNeonAuth.ts", "src/resources/settingTypes.ts"]);
    expect(step(probe)).toEqual(["test/contract/neon-shapes.json"]);
    expect(touched(snapshots[1]!, snapshots.at(-1)!)).toEqual([...generated, ...step(probe)].sort());
    // Its published type, its input on the class, its row of NeonAuth's settings table.
    const types = fs.readFileSync(path.join(dir, "src/resources/settingTypes.ts"), "utf8");
    expect(types).toContain(`export interface ${type}Fields {`);
    expect(types).toContain(`  ${name}?: pulumi.Input<${type}Settings>;`);
    expect(fs.readFileSync(path.join(dir, "docs/NeonAuth.md"), "utf8")).toContain(`| \`${name}\` | \`{enabled, expiresIn 5–1440}\``);
  });
});
