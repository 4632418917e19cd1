/**
 * `npm run gen`: writes what derives from the declarations and is checked in (scripts/gen/):
 * the published setting types of NeonAuth and the README's table of its settings. A unit test
 * (test/unit/generated.test.ts) fails when either is stale.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { renderReadmeRows, renderSettingTypes, TYPES_FILE, withReadmeRows } from "./gen/settings.mts";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const schemas = (await import(path.join(repo, "dist/schemas/index.js"))) as typeof import("../src/schemas/index.ts");

fs.writeFileSync(path.join(repo, TYPES_FILE), renderSettingTypes(schemas.BRANCH_SETTINGS, schemas.WEBHOOK_EVENTS));
const readme = path.join(repo, "README.md");
fs.writeFileSync(readme, withReadmeRows(fs.readFileSync(readme, "utf8"), renderReadmeRows(schemas.BRANCH_SETTINGS)));
process.stdout.write(`wrote ${TYPES_FILE} and the README's NeonAuth settings\n`);
