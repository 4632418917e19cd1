/**
 * A real npm registry on loopback for tests that install the package as users do, by name:
 * verdaccio, installed once into the cache, started with its storage in a temp folder, serving
 * what the test publishes and passing every other package through to the registry npm uses here.
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { cacheDir } from "../../scripts/workspace.mts";

/**
 * verdaccio 6.10.4 asks for `node-fetch@cjs` (through verdaccio-audit), a dist-tag the registry
 * here does not carry; 2.7.0 is the CommonJS line that tag named.
 */
const VERDACCIO = { version: "6.10.4", overrides: { "node-fetch": "2.7.0" } };

export interface Registry {
  /** `http://127.0.0.1:<port>/`, what `npm_config_registry` is set to. */
  url: string;
  /** `npm publish` of a packed tarball to this registry. */
  publish(tarball: string): void;
  close(): void;
}

function installVerdaccio(): string {
  const dir = path.join(cacheDir(), `verdaccio-${VERDACCIO.version}`);
  if (!fs.existsSync(path.join(dir, "node_modules", ".complete"))) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, "package.json"),
      JSON.stringify({ private: true, dependencies: { verdaccio: VERDACCIO.version }, overrides: VERDACCIO.overrides }, null, 2),
    );
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefer-offline"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
    fs.writeFileSync(path.join(dir, "node_modules", ".complete"), VERDACCIO.version);
  }
  return dir;
}

export async function startRegistry(): Promise<Registry> {
  const installDir = installVerdaccio();
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-registry-"));
  const upstream = execFileSync("npm", ["config", "get", "registry"], { encoding: "utf8" }).trim();
  const proc = spawn(process.execPath, [path.join(__dirname, "registry-server.mjs"), installDir, path.join(home, "storage"), upstream], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    let err = "";
    proc.stdout!.on("data", (d) => {
      out += d;
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.stderr!.on("data", (d) => (err += d));
    proc.on("exit", (code) => reject(new Error(`verdaccio exited (${code}) before it listened: ${err}${out}`)));
  });
  return {
    url,
    publish(tarball) {
      // npm refuses to publish without a token for the registry; verdaccio lets anyone publish
      // this package (registry-server.mjs), so any token does.
      const npmrc = path.join(home, "publish.npmrc");
      fs.writeFileSync(npmrc, `//${new URL(url).host}/:_authToken=test-publisher\n`);
      execFileSync("npm", ["publish", tarball, "--registry", url, "--userconfig", npmrc, "--loglevel=error"], { stdio: ["ignore", "ignore", "inherit"] });
    },
    close() {
      proc.kill("SIGTERM");
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}
