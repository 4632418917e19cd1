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

export function prepareWorkspace(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8"));
  const deps: Record<string, string> = {
    ...pkg.dependencies,
    "@pulumi/pulumi": pkg.devDependencies["@pulumi/pulumi"],
    typescript: pkg.devDependencies.typescript,
    "@types/node": pkg.devDependencies["@types/node"],
  };
  const key = createHash("sha256").update(JSON.stringify(deps)).digest("hex").slice(0, 12);
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

  // npm pack builds (prepack) and gives exactly the files a user would install. Each caller
  // unpacks into a fresh folder and swaps it in, so concurrent callers never see half a package.
  const packDir = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-pack-"));
  const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", packDir], {
    cwd: repo,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  })
    .trim()
    .split("\n")
    .pop()!;
  const modules = path.join(workspace, "node_modules");
  const fresh = fs.mkdtempSync(path.join(modules, ".pulumi-neon-auth-"));
  execFileSync("tar", ["xzf", path.join(packDir, tarball), "-C", fresh, "--strip-components=1"]);
  const target = path.join(modules, "pulumi-neon-auth");
  const old = `${fresh}.old`;
  if (fs.existsSync(target)) fs.renameSync(target, old);
  fs.renameSync(fresh, target);
  fs.rmSync(old, { recursive: true, force: true });
  fs.rmSync(packDir, { recursive: true, force: true });
  fs.mkdirSync(path.join(workspace, "programs"), { recursive: true });
  return workspace;
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
