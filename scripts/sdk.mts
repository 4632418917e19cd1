/**
 * The SDK of the `neon-auth` provider plugin in one language, generated from the package schema
 * that the plugin serves (src/plugin/schema.ts, from the kinds' declarations) by Pulumi's own code
 * generators (tools/gen-sdk). Needs `npm run build` first and Go on PATH.
 *
 *   node scripts/sdk.mts go|nodejs|python OUT_DIR
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { cacheDir, repo } from "./workspace.mts";

const require = createRequire(import.meta.url);

/** The plugin's schema, as GetSchema answers it, written to a file. */
export function writeSchema(file: string): void {
  const { packageSchema } = require(path.join(repo, "dist", "plugin", "schema.js")) as typeof import("../src/plugin/schema.ts");
  fs.writeFileSync(file, `${JSON.stringify(packageSchema(), null, 2)}\n`);
}

let generator: string | undefined;

/**
 * The generator, built once per process (Go caches the build: a few seconds when warm, about 1.5
 * minutes cold). Written aside and renamed, so that test files building it at once never write over
 * a binary another one runs ("text file busy").
 */
function builtGenerator(): string {
  if (generator !== undefined) return generator;
  const bin = path.join(cacheDir(), "bin", "gen-sdk");
  const tmp = `${bin}.${process.pid}.tmp`;
  const env = { ...process.env, GOFLAGS: "-mod=mod -buildvcs=false", GOTOOLCHAIN: "local" };
  execFileSync("go", ["build", "-o", tmp, "."], { cwd: path.join(repo, "tools", "gen-sdk"), env, stdio: ["ignore", "inherit", "inherit"] });
  fs.renameSync(tmp, bin);
  return (generator = bin);
}

/** Writes the SDK of `language` into `out`. */
export function generateSdk(language: "go" | "nodejs" | "python", out: string): void {
  const bin = builtGenerator();
  const schema = path.join(fs.mkdtempSync(path.join(cacheDir(), "schema-")), "schema.json");
  try {
    writeSchema(schema);
    execFileSync(bin, [language, schema, out], { stdio: ["ignore", "inherit", "inherit"] });
  } finally {
    fs.rmSync(path.dirname(schema), { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [language, out] = process.argv.slice(2);
  if ((language !== "go" && language !== "nodejs" && language !== "python") || out === undefined) {
    process.stderr.write("usage: node scripts/sdk.mts go|nodejs|python OUT_DIR\n");
    process.exit(2);
  }
  generateSdk(language, path.resolve(out));
}
