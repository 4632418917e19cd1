/**
 * The SDK of the `neon-auth` provider plugin in one language, generated from the package schema
 * that the plugin serves (src/plugin/schema.ts, from the kinds' declarations) by Pulumi's own code
 * generators (tools/gen-sdk), and Pulumi YAML's language host for YAML programs; the Go tools the
 * release and its tests use (tools/goproxy, actionlint). Needs
 * `npm run build` first and Go on PATH.
 *
 *   node scripts/sdk.mts go|nodejs|python OUT_DIR
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
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

const built = new Map<string, string>();
const goEnv = { ...process.env, GOFLAGS: "-mod=mod -buildvcs=false", GOTOOLCHAIN: "local" };

/**
 * A Go program built into the cache's bin folder, once per process (Go caches the build: seconds
 * when warm, a minute or two cold). Built aside and renamed, so that test files building it at once
 * never write over a binary another one runs ("text file busy"). With -trimpath, as scripts/env
 * builds the Pulumi CLI, so that pkg/v3's packages compiled for the CLI are reused.
 */
function builtOnce(name: string, build: (tmpDir: string) => void): string {
  const done = built.get(name);
  if (done !== undefined) return done;
  const bin = path.join(cacheDir(), "bin", name);
  fs.mkdirSync(path.dirname(bin), { recursive: true });
  const tmp = fs.mkdtempSync(`${bin}.${process.pid}.`);
  try {
    build(tmp);
    fs.renameSync(path.join(tmp, path.basename(name)), bin);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  built.set(name, bin);
  return bin;
}

/**
 * A command of the tools Go module (tools/: gen-sdk, goproxy, language-host), built once per
 * source: the binary's folder is named after a hash of the module's files, so that checkouts
 * sharing the cache (git worktrees) never run each other's build of it.
 */
export function toolsCommand(command: "gen-sdk" | "goproxy"): string {
  const tools = path.join(repo, "tools");
  const hash = createHash("sha256");
  for (const f of fs.readdirSync(tools, { recursive: true, encoding: "utf8" }).sort()) {
    if (/\.go$|^go\.(mod|sum)$/.test(f)) hash.update(f).update(fs.readFileSync(path.join(tools, f)));
  }
  const name = path.join(`tools-${hash.digest("hex").slice(0, 16)}`, command);
  const bin = path.join(cacheDir(), "bin", name);
  if (fs.existsSync(bin)) return bin;
  return builtOnce(name, (tmp) =>
    execFileSync("go", ["build", "-trimpath", "-o", path.join(tmp, command), `./${command}`], { cwd: tools, env: goEnv, stdio: ["ignore", "inherit", "inherit"] }),
  );
}

/**
 * A released Go command (`module/cmd/x@version`) from the module proxy, built once per machine
 * into the cache (a released version never changes). Returns its folder, for PATH.
 */
export function releasedGoCommand(pkg: string, version: string): string {
  const command = path.basename(pkg);
  const name = path.join(`${command}-${version}`, command);
  const bin = path.join(cacheDir(), "bin", name);
  if (!fs.existsSync(bin)) {
    builtOnce(name, (tmp) =>
      execFileSync("go", ["install", "-trimpath", `${pkg}@${version}`], { env: { ...goEnv, GOFLAGS: "", GOBIN: tmp }, stdio: ["ignore", "inherit", "inherit"] }),
    );
  }
  return path.dirname(bin);
}

/** The release of Pulumi YAML whose language host runs YAML programs here: the newest the module proxy serves. */
export const PULUMI_YAML = "v1.25.0";

/**
 * Pulumi YAML's language host, from the Go module proxy (the newest release served here). YAML
 * programs need no SDK: the host reads the plugin's schema from the engine. Returns its folder, for
 * PATH, where the engine looks for `pulumi-language-yaml`.
 */
export const yamlLanguageHost = (): string => releasedGoCommand("github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml", PULUMI_YAML);

/** Writes the SDK of `language` into `out`. */
export function generateSdk(language: "go" | "nodejs" | "python", out: string): void {
  const schema = path.join(fs.mkdtempSync(path.join(cacheDir(), "schema-")), "schema.json");
  try {
    writeSchema(schema);
    generateSdkFrom(schema, language, out);
  } finally {
    fs.rmSync(path.dirname(schema), { recursive: true, force: true });
  }
}

/**
 * Writes the SDK of `language` for the schema in `schema` into `out`. The Go SDK's module (in the
 * folder its import path ends with) is completed by `go mod tidy`: the requirements its code
 * imports and their go.sum lines, as a published module carries them.
 */
export function generateSdkFrom(schema: string, language: "go" | "nodejs" | "python", out: string): void {
  execFileSync(toolsCommand("gen-sdk"), [language, schema, out], { stdio: ["ignore", "inherit", "inherit"] });
  if (language === "go") execFileSync("go", ["mod", "tidy"], { cwd: goSdkModule(schema, out).dir, env: goEnv, stdio: ["ignore", "inherit", "inherit"] });
}

/** The folder of the Go SDK's module under `out`, and its path: the schema's Go importBasePath. */
export function goSdkModule(schema: string, out: string): { dir: string; path: string } {
  const spec = JSON.parse(fs.readFileSync(schema, "utf8")) as { language: { go: { importBasePath: string } } };
  const modulePath = spec.language.go.importBasePath;
  return { dir: path.join(out, path.posix.basename(modulePath)), path: modulePath };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [language, out] = process.argv.slice(2);
  if ((language !== "go" && language !== "nodejs" && language !== "python") || out === undefined) {
    process.stderr.write("usage: node scripts/sdk.mts go|nodejs|python OUT_DIR\n");
    process.exit(2);
  }
  generateSdk(language, path.resolve(out));
}
