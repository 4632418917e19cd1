/**
 * The release (`make release`): everything a user installs, into `release/`, at the one version
 * package.json names.
 *
 * - `pulumi-neon-auth-<version>.tgz`: the npm package (`npm pack`).
 * - `pulumi-resource-neon-auth-v<version>-<os>-<arch>.tar.gz`: the provider plugin as the engine
 *   installs it (`pulumi plugin install resource neon-auth <version> --file …`): one JavaScript file
 *   holding the plugin and every dependency (esbuild), and a launcher by the name the engine runs
 *   (a shell script; on Windows a `.cmd`, the other suffix beside `.exe` its plugin loader tries).
 *   Only Node.js (package.json's `engines`) is needed on the machine. The bundle is the same on
 *   every os and arch; the archives exist because the engine asks for one by those names.
 * - `schema.json`: the plugin's package schema, as its GetSchema answers it.
 * - `sdk/{nodejs,python,go}`: the SDKs generated from that schema (tools/gen-sdk); the Go SDK is a
 *   module at the schema's Go import path. pkg/v3 has no .NET generator, so there is no .NET SDK.
 * - `goproxy/`: that Go module laid out as a module proxy (GOPROXY=file://…), which is how the
 *   release's test takes it by its path, and what a tag in the repository will serve once pushed.
 *
 *   node scripts/release.mts [--no-build] [OUT_DIR]     (after `eval "$(scripts/env)"`; needs Go on PATH)
 *
 * `--no-build` packs the dist/ already built (its test: rebuilding dist/ would pull it from under the
 * e2e files that run beside it).
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { generateSdkFrom, goSdkModule, toolsCommand, writeSchema } from "./sdk.mts";
import { repo } from "./workspace.mts";

const require = createRequire(import.meta.url);

export const PLUGIN = "pulumi-resource-neon-auth";
export const PLATFORMS = ["linux", "darwin", "windows"].flatMap((os) => ["amd64", "arm64"].map((arch) => ({ os, arch })));
export const SDK_LANGUAGES = ["nodejs", "python", "go"] as const;

export const version = (): string => (JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")) as { version: string }).version;
export const archiveName = (v: string, target: { os: string; arch: string }) => `${PLUGIN}-v${v}-${target.os}-${target.arch}.tar.gz`;
/** The launcher the engine runs from the plugin's folder, by os. */
export const launcherName = (target: { os: string }) => (target.os === "windows" ? `${PLUGIN}.cmd` : PLUGIN);
const BUNDLE = `${PLUGIN}.js`;

const UNIX_LAUNCHER = `#!/bin/sh
# The neon-auth provider plugin: its bundle, run by the node first on PATH (the plugin says so
# if that node is too old).
exec node "$(dirname "$0")/${BUNDLE}" "$@"
`;
const WINDOWS_LAUNCHER = `@echo off\r\nnode "%~dp0${BUNDLE}" %*\r\n`;

const say = (line: string) => process.stderr.write(`release: ${line}\n`);

export async function release(out: string, o: { build: boolean } = { build: true }): Promise<void> {
  const v = version();
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  // Archives and .info times from the commit, so that two releases of one commit are the same bytes.
  const epoch = sourceDateEpoch();

  say(`npm package ${v}`);
  execFileSync("npm", ["pack", "--silent", "--pack-destination", out, ...(o.build ? [] : ["--ignore-scripts"])], { cwd: repo, stdio: ["ignore", "ignore", "inherit"] });

  const schema = path.join(out, "schema.json");
  writeSchema(schema);
  const schemaVersion = (JSON.parse(fs.readFileSync(schema, "utf8")) as { version: string }).version;
  if (schemaVersion !== v) throw new Error(`the schema says version ${schemaVersion}, package.json ${v}`);

  say("plugin bundle");
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-release-"));
  try {
    await bundlePlugin(path.join(stage, "bundle", BUNDLE));
    fs.copyFileSync(path.join(repo, "LICENSE"), path.join(stage, "bundle", "LICENSE"));
    await smokeTest(path.join(stage, "bundle", BUNDLE));
    for (const target of PLATFORMS) {
      const dir = path.join(stage, `${target.os}-${target.arch}`);
      fs.cpSync(path.join(stage, "bundle"), dir, { recursive: true });
      const launcher = path.join(dir, launcherName(target));
      fs.writeFileSync(launcher, target.os === "windows" ? WINDOWS_LAUNCHER : UNIX_LAUNCHER, { mode: 0o755 });
      const tar = ["--sort=name", `--mtime=@${epoch}`, "--owner=0", "--group=0", "--numeric-owner", "--mode=u=rwX,go=rX", "--use-compress-program=gzip -n", "-cf", path.join(out, archiveName(v, target)), "-C", dir, "."];
      execFileSync("tar", tar);
    }
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }

  for (const language of SDK_LANGUAGES) {
    say(`${language} SDK`);
    generateSdkFrom(schema, language, path.join(out, "sdk", language));
  }

  say("Go module proxy");
  const go = goSdkModule(schema, path.join(out, "sdk", "go"));
  execFileSync(toolsCommand("goproxy"), [go.dir, `v${v}`, path.join(out, "goproxy")], {
    env: { ...process.env, SOURCE_DATE_EPOCH: String(epoch) },
    stdio: ["ignore", "inherit", "inherit"],
  });
}

/**
 * The plugin and all it loads in one file. The server takes grpc-js and the protobuf stubs from
 * @pulumi/pulumi's own dependencies through a require made at run time, which a bundler cannot
 * follow: here those requires are rewritten to static ones resolved from @pulumi/pulumi's folder,
 * the same files the unbundled plugin loads.
 */
async function bundlePlugin(outfile: string): Promise<void> {
  const esbuild = require("esbuild") as typeof import("esbuild");
  const pulumiDir = path.dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [repo] }));
  const runtimeRequire = /const (\w+) = createRequire\(require\.resolve\("@pulumi\/pulumi"\)\);/;
  let rewritten = 0;
  await esbuild.build({
    entryPoints: [path.join(repo, "src", "plugin", "main.ts")],
    outfile,
    bundle: true,
    platform: "node",
    target: `node${nodeMajor()}`,
    format: "cjs",
    minify: true,
    legalComments: "eof",
    logLevel: "error",
    // pg's native binding is optional (pg falls back to JavaScript when it cannot load).
    external: ["pg-native"],
    plugins: [
      {
        name: "from-pulumi",
        setup(build) {
          build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
            const text = fs.readFileSync(args.path, "utf8");
            const m = runtimeRequire.exec(text);
            if (!m) return undefined;
            rewritten++;
            const contents = text
              .replace(m[0], "")
              .replace(new RegExp(`\\b${m[1]}\\(("[^"]+")\\)`, "g"), (_, id: string) => `require(${JSON.stringify(`from-pulumi:${JSON.parse(id) as string}`)})`);
            return { contents, loader: "ts" };
          });
          build.onResolve({ filter: /^from-pulumi:/ }, (args) =>
            build.resolve(args.path.slice("from-pulumi:".length).replace(/^\.\//, "@pulumi/pulumi/"), { kind: args.kind, resolveDir: pulumiDir }),
          );
        },
      },
    ],
  });
  if (rewritten !== 1) throw new Error(`expected one module taking @pulumi/pulumi's dependencies at run time, found ${rewritten}`);
}

/** The oldest Node the package supports (engines), which the bundle is compiled for. */
function nodeMajor(): string {
  const engines = (JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
  return /(\d+\.\d+)/.exec(engines)![1]!;
}

/**
 * The bundle starts as the engine starts it, from a folder with no node_modules anywhere above:
 * it prints the port it serves on, as its first line, within a few seconds.
 */
async function smokeTest(bundle: string): Promise<void> {
  const alone = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-alone-"));
  const copy = path.join(alone, BUNDLE);
  fs.copyFileSync(bundle, copy);
  const child = spawn(process.execPath, [copy], { cwd: alone, stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "" } });
  try {
    const port = await new Promise<string>((resolve, reject) => {
      let stdout = "";
      let stderr = "";
      const timer = setTimeout(() => reject(new Error(`the bundled plugin printed no port in 20 s; stderr: ${stderr}`)), 20_000);
      child.stdout.on("data", (d: Buffer) => {
        stdout += d.toString();
        if (stdout.includes("\n")) (clearTimeout(timer), resolve(stdout.split("\n")[0]!));
      });
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("exit", (code) => (clearTimeout(timer), reject(new Error(`the bundled plugin exited (${code}): ${stderr}`))));
    });
    if (!/^\d+$/.test(port.trim())) throw new Error(`the bundled plugin's first line is not a port: ${port}`);
  } finally {
    child.kill();
    fs.rmSync(alone, { recursive: true, force: true });
  }
}

function sourceDateEpoch(): number {
  if (process.env.SOURCE_DATE_EPOCH) return Number(process.env.SOURCE_DATE_EPOCH);
  try {
    return Number(execFileSync("git", ["log", "-1", "--format=%ct"], { cwd: repo, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
  } catch {
    return Math.floor(Date.now() / 1000);
  }
}

/** What the release wrote, one line a file: size and path. */
export function listing(out: string): string[] {
  const top = fs.readdirSync(out, { withFileTypes: true });
  return top.map((e) => {
    const p = path.join(out, e.name);
    if (e.isFile()) return `${String(fs.statSync(p).size).padStart(10)}  ${e.name}`;
    const files = fs.readdirSync(p, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    return `${String(files.length).padStart(6)} files  ${e.name}/`;
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const build = !args.includes("--no-build");
  const out = path.resolve(args.find((a) => a !== "--no-build") ?? path.join(repo, "release"));
  const started = Date.now();
  await release(out, { build });
  process.stdout.write(`${listing(out).join("\n")}\n`);
  say(`version ${version()} into ${out} in ${Math.round((Date.now() - started) / 1000)} s`);
}
