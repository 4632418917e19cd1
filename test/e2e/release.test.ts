/**
 * The release (`make release`, scripts/release.mts) installed as a Pulumi user installs it: the
 * plugin archive for this machine into a fresh Pulumi home with `pulumi plugin install --file`,
 * ambient plugins ignored and nothing of the package on PATH or under the programs; then a YAML
 * program and a Go program, whose SDK `go get` takes by its module path from the release's module
 * proxy (no replace), each go up, preview and refresh with no changes and are destroyed; and the
 * "Any language" page followed as written by a YAML user and a Go user. The release workflow that
 * publishes all this passes actionlint.
 */
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { releasedGoCommand, yamlLanguageHost } from "../../scripts/sdk.mts";
import { archiveName, launcherName, PLATFORMS, PLUGIN, version } from "../../scripts/release.mts";
import type { EmulatorHandle } from "../../src/emulator";
import { blocksUnder, sessionScript } from "../readme-blocks";
import { attempt, expectBranchUp, onFreshEmulator, stackFor, type StackOptions } from "./harness";
import { startRegistry } from "./registry";
import { endSession, expectNoChanges, freePort, runSession, type Session } from "./session";
import { branchSnapshot, neonConfig, projectConfig } from "./neon";

const REPO = path.join(__dirname, "..", "..");
const ANY_LANGUAGE = "docs/any-language.md";
/** The section of "Any language" every user follows first: the plugin and the kit. */
const INSTALL_SECTION = "Start here: the plugin, the kit and a first stack";
/** The block that downloads the archive from GitHub, which this machine cannot reach. */
const DOWNLOAD = /^curl -LO https:\/\/github\.com\//;
const V = version();
const GO_MODULE = "github.com/pulumi-neon-auth/pulumi-neon-auth/sdk/go/neonauth";
/** The release of actionlint the workflow is checked with (the newest the module proxy serves). */
const ACTIONLINT = "v1.7.12";

const run = promisify(execFile);
const arch = ({ x64: "amd64", arm64: "arm64" } as Record<string, string>)[process.arch]!;

let out: string;
/** Pulumi's home for every command here: what `pulumi plugin install` writes, and nothing else. */
let home: string;
/** Where the programs run: a folder with no node_modules above it. */
let programs: string;
/** The PATH of every command here: the CLI (with the Go language host beside it), node, go, the system. */
let PATH: string;

beforeAll(async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-release-test-"));
  out = path.join(tmp, "release");
  home = path.join(tmp, "pulumi-home");
  programs = path.join(tmp, "work");
  fs.mkdirSync(path.join(programs, "programs"), { recursive: true });
  // The release as `make release` runs it, on the dist/ global-setup built.
  await run(process.execPath, [path.join(REPO, "scripts", "release.mts"), "--no-build", out], { cwd: REPO, maxBuffer: 64 * 1024 * 1024 });
  const which = (cmd: string) => path.dirname(execFileSync("which", [cmd], { encoding: "utf8" }).trim());
  PATH = [pulumiInstall(path.join(tmp, "pulumi"), which("pulumi")), which("node"), which("go"), "/usr/bin", "/bin"].join(path.delimiter);
}, 900_000);

afterAll(() => {
  if (out) fs.rmSync(path.dirname(out), { recursive: true, force: true });
});

/** The environment a user's shell has here: this Pulumi home, no ambient plugins. */
const userEnv = (): Record<string, string> => ({ PATH, PULUMI_HOME: home, PULUMI_IGNORE_AMBIENT_PLUGINS: "true", PULUMI_SKIP_UPDATE_CHECK: "true", HOME: process.env.HOME! });
const pulumi = (...args: string[]) => execFileSync("pulumi", args, { env: userEnv(), encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
const listing = (archive: string) =>
  execFileSync("tar", ["tvzf", archive], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((l) => `${l.split(/\s+/)[0]} ${l.split(/\s+/).pop()}`);

describe("the release, installed as Pulumi users install providers", () => {
  it(`writes every artifact at version ${V}`, () => {
    expect(fs.readdirSync(out).sort()).toEqual(["goproxy", `pulumi-neon-auth-${V}.tgz`, ...PLATFORMS.map((t) => archiveName(V, t)).sort(), "schema.json", "sdk"].sort());
    for (const target of PLATFORMS) {
      expect(listing(path.join(out, archiveName(V, target))), archiveName(V, target)).toEqual([
        "drwxr-xr-x ./",
        "-rw-r--r-- ./LICENSE",
        ...(target.os === "windows" ? [`-rwxr-xr-x ./${PLUGIN}.cmd`, `-rw-r--r-- ./${PLUGIN}.js`] : [`-rwxr-xr-x ./${PLUGIN}`, `-rw-r--r-- ./${PLUGIN}.js`]),
      ]);
    }
    const schema = JSON.parse(fs.readFileSync(path.join(out, "schema.json"), "utf8"));
    expect({ name: schema.name, version: schema.version, pluginDownloadURL: schema.pluginDownloadURL }).toEqual({
      name: "neon-auth",
      version: V,
      pluginDownloadURL: "github://api.github.com/pulumi-neon-auth/pulumi-neon-auth",
    });
    // package.json's repository is where that URL sends the engine.
    expect(JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")).repository.url).toBe("git+https://github.com/pulumi-neon-auth/pulumi-neon-auth.git");
    expect(JSON.parse(fs.readFileSync(path.join(out, "sdk", "nodejs", "package.json"), "utf8")).version).toBe(V);
    expect(fs.readFileSync(path.join(out, "sdk", "python", "setup.py"), "utf8")).toContain(`VERSION = "${V}"`);
    expect(JSON.parse(fs.readFileSync(path.join(out, "sdk", "go", "neonauth", "pulumi-plugin.json"), "utf8"))).toMatchObject({ name: "neon-auth", version: V, server: schema.pluginDownloadURL });
    expect(fs.readFileSync(path.join(out, "sdk", "go", "neonauth", "go.mod"), "utf8").split("\n")[0]).toBe(`module ${GO_MODULE}`);
    const proxied = path.join(out, "goproxy", ...GO_MODULE.split("/"), "@v");
    expect(fs.readdirSync(proxied).sort()).toEqual(["list", `v${V}.info`, `v${V}.mod`, `v${V}.zip`]);
    expect(fs.readFileSync(path.join(proxied, "list"), "utf8")).toBe(`v${V}\n`);
    // The install commands of "Any language" name this release.
    const page = fs.readFileSync(path.join(REPO, ANY_LANGUAGE), "utf8");
    expect(page).toContain(`pulumi plugin install resource neon-auth ${V} --file ${archiveName(V, { os: "linux", arch: "amd64" })}`);
    expect(page).toContain(`npm install -g pulumi-neon-auth@${V}`);
    expect(page).toContain(`go get ${GO_MODULE}@v${V}`);
  });

  it("pulumi plugin install --file puts the plugin in the Pulumi home; get-schema answers from it", { timeout: 120_000 }, () => {
    for (const dir of PATH.split(path.delimiter)) expect(fs.existsSync(path.join(dir, PLUGIN)), dir).toBe(false);
    pulumi("plugin", "install", "resource", "neon-auth", V, "--file", path.join(out, archiveName(V, { os: "linux", arch })));
    const installed = path.join(home, "plugins", `resource-neon-auth-v${V}`);
    expect(fs.readdirSync(installed).filter((f) => !f.startsWith(".")).sort()).toEqual(["LICENSE", launcherName({ os: "linux" }), `${PLUGIN}.js`]);
    expect(pulumi("plugin", "ls", "--json")).toContain(`"version": "${V}"`);

    const schema = JSON.parse(pulumi("package", "get-schema", "neon-auth"));
    expect({ name: schema.name, version: schema.version }).toEqual({ name: "neon-auth", version: V });
  });

  it("on an older Node first on PATH (the system's), the engine shows the plugin's one sentence: no source line, no stack trace", { timeout: 120_000 }, async () => {
    const old = "/usr/bin/node";
    const found = execFileSync(old, ["--version"], { encoding: "utf8" }).trim().slice(1);
    const wanted = /(\d+\.\d+\.\d+)/.exec(JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")).engines.node)![1]!;
    expect(Number(found.split(".")[0]), `${old} is Node ${found}`).toBeLessThan(Number(wanted.split(".")[0]));
    const e2e = await userStack({ program: path.join(__dirname, "programs", "first-hour-yaml") }, { PATH: [path.dirname(old), PATH].join(path.delimiter) });
    try {
      const { code, out } = await attempt(e2e, "preview");
      expect(code).not.toBe(0);
      expect(out).toContain(
        `pulumi-resource-neon-auth: pulumi-neon-auth needs Node.js ${wanted} or newer, but runs on Node.js ${found} (${old}). ` +
          "Put a newer node first on PATH (the one Pulumi starts programs and providers with) and run again.",
      );
      expect(out.split("\n").filter((l) => l.length > 500).map((l) => `${l.slice(0, 100)}… (${l.length} characters)`)).toEqual([]);
      expect(out).not.toMatch(/^\s+at /m);
    } finally {
      await e2e.cleanup();
    }
  });

  it("a YAML program: up, no-change preview and refresh, destroy", { timeout: 600_000 }, async () => {
    const project = "p-release-yaml";
    const stack = (em: EmulatorHandle, branch: string) =>
      userStack({ program: path.join(REPO, "examples", "yaml"), config: { ...neonConfig(em), ...projectConfig(project, branch, { githubClientSecret: "gh-release-yaml-1" }) } });
    await onFreshEmulator(project, stack, async ({ em, e2e, branch }) => {
      await expectBranchUp({ em, e2e, project, branch }, { name: "Acme", domain: "https://app.example.com" });
      expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 4 });
      expect((await branchSnapshot(em, project, branch)).auth).toBeUndefined();
    });
  });

  it("a Go program, its SDK taken by module path from the release's proxy: up, no-change preview and refresh, destroy", { timeout: 900_000 }, async () => {
    const project = "p-release-go";
    const goEnv = {
      GOPROXY: `file://${path.join(out, "goproxy")},${execFileSync("go", ["env", "GOPROXY"], { encoding: "utf8" }).trim()}`,
      // The sum database has never seen this module; its hash is checked against the zip the proxy serves.
      GONOSUMDB: GO_MODULE,
      GOFLAGS: "-mod=mod -buildvcs=false",
      GOTOOLCHAIN: "local",
    };
    const stack = async (em: EmulatorHandle, branch: string) => {
      const e2e = await userStack(
        {
          program: path.join(__dirname, "programs", "plugin-go"),
          config: { ...neonConfig(em), ...projectConfig(project, branch, { githubSecret: "gh-release-go-1" }), appName: { value: "Released" }, domain: { value: "https://go.example.com" } },
        },
        goEnv,
      );
      // The program as a user's: the SDK required by its path and version, no replace.
      execFileSync("go", ["mod", "edit", `-dropreplace=${GO_MODULE}`, `-droprequire=${GO_MODULE}`], { cwd: e2e.dir, env: { ...process.env, ...goEnv } });
      execFileSync("go", ["get", `${GO_MODULE}@v${V}`], { cwd: e2e.dir, env: { ...process.env, ...goEnv }, stdio: "ignore" });
      const gomod = fs.readFileSync(path.join(e2e.dir, "go.mod"), "utf8");
      expect(gomod).toContain(`${GO_MODULE} v${V}`);
      expect(gomod).not.toContain("replace");
      return e2e;
    };
    await onFreshEmulator(project, stack, async ({ em, e2e, branch }) => {
      await expectBranchUp({ em, e2e, project, branch }, { name: "Released", domain: "https://go.example.com" });
      expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 4 });
      expect((await branchSnapshot(em, project, branch)).auth).toBeUndefined();
    });
  });

  /**
   * docs/any-language.md as a YAML user and a Go user follow it, from this release: its install
   * section, then the language's, block by block in one terminal session each (the archive the
   * section downloads from GitHub is the release's, put where the download would), in a fresh
   * Pulumi home with ambient plugins ignored, the npm package published to a registry on loopback
   * (the kit, `npm install -g`), the Go SDK from the release's module proxy. Each ends with a
   * no-change preview and refresh, and is destroyed.
   */
  for (const [section, project] of [["A YAML program", "neon-auth-yaml"], ["A Go program", "neon-auth-go"]] as const) {
    it(`docs/any-language.md as written, "${section}": plugin, kit, program, up held to the policy pack as production, neon-auth-import`, { timeout: 900_000 }, async () => {
      const blocks = [...blocksUnder(ANY_LANGUAGE, INSTALL_SECTION), ...blocksUnder(ANY_LANGUAGE, section)].filter((b) => !DOWNLOAD.test(b.text));
      const home = fs.mkdtempSync(path.join(path.dirname(out), "user-"));
      fs.mkdirSync(path.join(home, "work"), { recursive: true });
      fs.copyFileSync(path.join(out, archiveName(V, { os: "linux", arch })), path.join(home, "work", archiveName(V, { os: "linux", arch })));
      const port = await freePort();
      const registry = await startRegistry();
      let session: Session | undefined;
      try {
        registry.publish(path.join(out, `pulumi-neon-auth-${V}.tgz`));
        const go = (v: string) => execFileSync("go", ["env", v], { encoding: "utf8" }).trim();
        const prefix = path.join(home, "npm-global");
        session = await runSession(home, sessionScript(blocks, (text) => text.replace(/127\.0\.0\.1:4000\b/g, `127.0.0.1:${port}`).replace(/--port 4000\b/g, `--port ${port}`)), {
          ...userEnv(),
          PATH: [path.join(prefix, "bin"), PATH].join(path.delimiter),
          PULUMI_HOME: path.join(home, ".pulumi"),
          PULUMI_BACKEND_URL: `file://${home}`,
          PULUMI_CONFIG_PASSPHRASE: "any-language-not-a-secret",
          PULUMI_SKIP_CONFIRMATIONS: "true",
          PULUMI_DIY_BACKEND_NO_LEGACY_WARNING: "true",
          npm_config_registry: registry.url,
          npm_config_prefix: prefix,
          npm_config_cache: path.join(os.homedir(), ".npm"),
          // The Go user's module proxy: the release's, as the page says, then the one this machine reaches.
          GOPROXY: `file://${path.join(out, "goproxy")},${go("GOPROXY")}`,
          GONOSUMDB: GO_MODULE,
          GOFLAGS: "-buildvcs=false",
          GOTOOLCHAIN: "local",
          GOMODCACHE: go("GOMODCACHE"),
          GOCACHE: go("GOCACHE"),
        });
        expect({ code: session.code, tail: session.code === 0 ? "" : session.out.slice(-6000) }).toEqual({ code: 0, tail: "" });
        expect(session.cwd).toMatch(new RegExp(`/${project}$`));
        // up: the stack and its 4 resources; the pack ran on a production stack and found no violation.
        expect(session.out).toMatch(/^ {4}\+ 5 created$/m);
        expect(session.out).toMatch(/Policies:/);
        expect(session.out).not.toMatch(/mandatory/);
        // neon-auth-import, from the kit on PATH: the branch's four objects.
        const file = JSON.parse(fs.readFileSync(path.join(session.cwd!, "import.json"), "utf8")) as { resources: { type: string }[] };
        expect(file.resources.map((r) => r.type).sort()).toEqual(["neon-auth:index:EmailServer", "neon-auth:index:NeonAuth", "neon-auth:index:OAuthProvider", "neon-auth:index:RedirectDomain"]);
        expectNoChanges(session, "prod", (o) => expect(o).toMatch(/5 unchanged/));
      } finally {
        try {
          endSession(session);
        } finally {
          registry.close();
        }
      }
    });
  }

  it("the release workflow runs make release and passes actionlint", { timeout: 300_000 }, () => {
    const workflow = path.join(REPO, ".github", "workflows", "release.yml");
    expect(fs.readFileSync(workflow, "utf8")).toContain("run: make release");
    const actionlint = path.join(releasedGoCommand("github.com/rhysd/actionlint/cmd/actionlint", ACTIONLINT), "actionlint");
    // Exits non-zero, printing each finding, on any.
    expect(execFileSync(actionlint, ["-no-color", workflow], { cwd: REPO, encoding: "utf8" })).toBe("");
  });
});

/**
 * A Pulumi installation as Pulumi's own archive lays it out: the CLI with its bundled language
 * hosts beside it (Node.js and Go: this project's host; YAML: Pulumi YAML's), where the engine
 * looks for them even with ambient plugins ignored (it resolves its own path, links followed, so
 * the CLI is a hard link or a copy here). Returns its folder.
 */
function pulumiInstall(dir: string, cliDir: string): string {
  fs.mkdirSync(dir);
  const place = (from: string, name: string) => {
    try {
      fs.linkSync(from, path.join(dir, name));
    } catch {
      fs.copyFileSync(from, path.join(dir, name));
      fs.chmodSync(path.join(dir, name), 0o755);
    }
  };
  for (const name of ["pulumi", "pulumi-language-nodejs"]) place(fs.realpathSync(path.join(cliDir, name)), name);
  fs.symlinkSync("pulumi-language-nodejs", path.join(dir, "pulumi-language-go"));
  place(path.join(yamlLanguageHost(), "pulumi-language-yaml"), "pulumi-language-yaml");
  return dir;
}

/** A stack as a user's shell runs it: the Pulumi home with the installed plugin, ambient plugins ignored, outside any node_modules. */
function userStack(opts: StackOptions, extra: Record<string, string> = {}) {
  return stackFor({ ...opts, workspace: programs, env: { ...userEnv(), ...extra } });
}
