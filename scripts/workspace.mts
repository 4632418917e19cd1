/**
 * A folder where example programs run exactly as in a user's project: `pulumi-neon-auth`
 * installed from its packed tarball (a copy in node_modules, not a symlink, so the dynamic
 * provider loads it by package name as after `npm install pulumi-neon-auth`), next to
 * @pulumi/pulumi and typescript. Dependencies are installed once per version set into the
 * cache; the package itself is re-packed on every call. Used by the e2e tests, the demo and
 * the benchmarks.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export function cacheDir(): string {
  return process.env.PULUMI_NEON_AUTH_CACHE ?? path.join(os.homedir(), ".cache", "pulumi-neon-auth");
}

/**
 * The workspace of the pinned versions (package.json) with the package freshly packed into it.
 * `overrides` swaps dependency versions, e.g. `{ "@pulumi/pulumi": "^3.259.0" }` for the newest
 * that `npm install` picks; each dependency set gets a workspace of its own.
 */
export function prepareWorkspace(
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
  overrides: Record<string, string> = {},
): string {
  const workspace = dependencyWorkspace(overrides, log);
  installPackage(workspace, packPackage(workspace));
  return workspace;
}

/** A cached folder with the package's dependencies and the program toolchain installed, without the package. */
export function dependencyWorkspace(
  overrides: Record<string, string> = {},
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8"));
  const deps: Record<string, string> = {
    ...pkg.dependencies,
    "@pulumi/pulumi": pkg.devDependencies["@pulumi/pulumi"],
    typescript: pkg.devDependencies.typescript,
    "@types/node": pkg.devDependencies["@types/node"],
    ...overrides,
  };
  // Keyed by the checkout too: the packed package is swapped into this folder's node_modules, so
  // two checkouts testing at once (two clones, git worktrees) must never share it.
  const key = createHash("sha256").update(JSON.stringify({ deps, repo })).digest("hex").slice(0, 12);
  const workspace = path.join(cacheDir(), `programs-${key}`);
  if (!fs.existsSync(path.join(workspace, "node_modules", ".complete"))) {
    fs.mkdirSync(workspace, { recursive: true });
    fs.writeFileSync(
      path.join(workspace, "package.json"),
      JSON.stringify({ name: "neon-auth-programs", private: true, dependencies: deps }, null, 2),
    );
    log(`installing program dependencies into ${workspace}`);
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefer-offline"], {
      cwd: workspace,
      stdio: ["ignore", "ignore", "inherit"],
    });
    fs.writeFileSync(path.join(workspace, "node_modules", ".complete"), key);
  }
  fs.mkdirSync(path.join(workspace, "programs"), { recursive: true });
  return workspace;
}

/**
 * `npm pack` (prepack builds) into `dir`: exactly the files a user would install. Returns the
 * tarball's path, kept so that other workspaces can install the same build without packing again.
 * `NEON_AUTH_DIST_BUILT=1` (scripts/test sets it after its build of this tree) skips the prepack
 * build: a second build of the same sources cost the test run 12 s of a core.
 */
export function packPackage(dir: string): string {
  const packDir = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-pack-"));
  const built = process.env.NEON_AUTH_DIST_BUILT === "1" ? ["--ignore-scripts"] : [];
  const name = execFileSync("npm", ["pack", "--silent", ...built, "--pack-destination", packDir], {
    cwd: repo,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  })
    .trim()
    .split("\n")
    .pop()!;
  const tarball = path.join(dir, "pulumi-neon-auth.tgz");
  const partial = `${tarball}.${process.pid}`;
  fs.copyFileSync(path.join(packDir, name), partial);
  fs.renameSync(partial, tarball);
  fs.rmSync(packDir, { recursive: true, force: true });
  return tarball;
}

/**
 * Unpacks the tarball as node_modules/pulumi-neon-auth (a copy, not a symlink). Each caller
 * unpacks into a fresh folder and swaps it in, so concurrent callers never see half a package.
 */
export function installPackage(workspace: string, tarball: string): void {
  const modules = path.join(workspace, "node_modules");
  const fresh = fs.mkdtempSync(path.join(modules, ".pulumi-neon-auth-"));
  execFileSync("tar", ["xzf", tarball, "-C", fresh, "--strip-components=1"]);
  const target = path.join(modules, "pulumi-neon-auth");
  const old = `${fresh}.old`;
  if (fs.existsSync(target)) fs.renameSync(target, old);
  fs.renameSync(fresh, target);
  fs.rmSync(old, { recursive: true, force: true });
  // The package's commands, linked as `npm install` links them, so that `npx neon-auth-emulator`
  // in a program's folder runs the installed one (the README's quick start) and never the registry.
  const bins = path.join(modules, ".bin");
  fs.mkdirSync(bins, { recursive: true });
  const { bin } = JSON.parse(fs.readFileSync(path.join(target, "package.json"), "utf8")) as { bin: Record<string, string> };
  for (const [name, file] of Object.entries(bin)) {
    const link = path.join(bins, name);
    const partialLink = `${link}.${process.pid}`;
    fs.rmSync(partialLink, { force: true });
    fs.symlinkSync(path.join("..", "pulumi-neon-auth", file), partialLink);
    fs.renameSync(partialLink, link);
    fs.chmodSync(path.join(target, file), 0o755);
  }
}

/** Copies a program next to the workspace's node_modules (stack files included). */
export function copyProgram(workspace: string, program: string): string {
  const dir = fs.mkdtempSync(path.join(workspace, "programs", `${path.basename(program)}-`));
  fs.cpSync(program, dir, {
    recursive: true,
    filter: (src) => src === program || !/(^|\/)(node_modules|package-lock\.json)$/.test(src),
  });
  return dir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${prepareWorkspace()}\n`);
}

/**
 * The environment every Pulumi command of the tests, the demo and the benchmarks runs with: a
 * local file backend, a passphrase for its secrets, no update check or legacy-backend notice, and
 * programs run without type-checking (that is `tsc`'s job in `make test`, and not what is timed).
 */
export function pulumiEnv(backendDir: string, passphrase: string): Record<string, string> {
  return {
    PULUMI_BACKEND_URL: `file://${backendDir}`,
    PULUMI_CONFIG_PASSPHRASE: passphrase,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DIY_BACKEND_NO_LEGACY_WARNING: "true",
    PULUMI_NODEJS_TRANSPILE_ONLY: "true",
  };
}

/**
 * The stack config that points a program at an emulator with its key: the two setting names the
 * tests, the demo and the benchmarks all set, written once.
 */
export function apiConfig(apiUrl: string, apiKey: string): Record<string, { value: string; secret?: boolean }> {
  return { "neon-auth:apiUrl": { value: apiUrl }, "neon-auth:apiKey": { value: apiKey, secret: true } };
}
