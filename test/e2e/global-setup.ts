/**
 * Prepares one folder where e2e programs run as a user's program would: `pulumi-neon-auth`
 * installed from its packed tarball (a copy in node_modules, not a symlink, so the dynamic
 * provider loads it by package name exactly as after `npm install pulumi-neon-auth`), next to
 * @pulumi/pulumi and typescript. The dependencies are installed once per lockfile into the
 * cache; the package itself is re-packed on every run.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TestProject } from "vitest/node";

const repo = path.resolve(__dirname, "../..");

export default function setup(project: TestProject): void {
  const cache = process.env.PULUMI_NEON_AUTH_CACHE ?? path.join(os.homedir(), ".cache", "pulumi-neon-auth");
  const pkg = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8"));
  const deps: Record<string, string> = {
    ...pkg.dependencies,
    "@pulumi/pulumi": pkg.devDependencies["@pulumi/pulumi"],
    typescript: pkg.devDependencies.typescript,
    "@types/node": pkg.devDependencies["@types/node"],
  };
  const key = createHash("sha256").update(JSON.stringify(deps)).digest("hex").slice(0, 12);
  const workspace = path.join(cache, `e2e-${key}`);
  if (!fs.existsSync(path.join(workspace, "node_modules", ".complete"))) {
    fs.mkdirSync(workspace, { recursive: true });
    fs.writeFileSync(
      path.join(workspace, "package.json"),
      JSON.stringify({ name: "e2e-workspace", private: true, dependencies: deps }, null, 2),
    );
    process.stderr.write(`e2e: installing program dependencies into ${workspace}\n`);
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefer-offline"], {
      cwd: workspace,
      stdio: ["ignore", "ignore", "inherit"],
    });
    fs.writeFileSync(path.join(workspace, "node_modules", ".complete"), key);
  }

  // npm pack builds (prepack) and gives exactly the files a user would install.
  const packDir = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-pack-"));
  const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", packDir], {
    cwd: repo,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  })
    .trim()
    .split("\n")
    .pop()!;
  const target = path.join(workspace, "node_modules", "pulumi-neon-auth");
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(target, { recursive: true });
  execFileSync("tar", ["xzf", path.join(packDir, tarball), "-C", target, "--strip-components=1"]);
  fs.rmSync(packDir, { recursive: true, force: true });

  fs.mkdirSync(path.join(workspace, "programs"), { recursive: true });
  project.provide("e2eWorkspace", workspace);
}

declare module "vitest" {
  export interface ProvidedContext {
    e2eWorkspace: string;
  }
}
