/**
 * The release (`make release`, scripts/release.mts) installed as a Pulumi user installs it: the
 * plugin archive for this machine into a fresh Pulumi home with `pulumi plugin install --file`,
 * ambient plugins ignored and nothing of the package on PATH or under the programs; then the
 * "Any language" page followed as written by a YAML user and a Go user (whose SDK `go get` takes by
 * its module path from the release's module proxy, no replace): each program goes up, makes the
 * branch it declares, previews and refreshes with no changes and is destroyed. The release
 * workflow that publishes all this passes actionlint.
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
import { attempt, stackFor, type StackOptions } from "./harness";
import { startRegistry } from "./registry";
import { endSession, expectNoChanges, freePort, runSession, sessionPulumi, type Session } from "./session";
import { branchSnapshot, branchState } from "./neon";

const REPO = path.join(__dirname, "..", "..");
const ANY_LANGUAGE = "docs/any-language.md";
/** The section of "Any language" every user follows first: the plugin and the kit. */
const INSTALL_SECTION = "Start here: the plugin, the kit and a first stack";
/** The block that downloads the archive from GitHub, which this machine cannot reach. */
const DOWNLOAD = /^curl -LO https:\/\/github\.com\//;
const V = version();
const GO_MODULE = "github.com/pulumi-neon-auth/pulumi-neon-auth/sdk/go/neonauth";
/** The API key the page configures: the emulator's own. */
const PAGE_KEY = "neon-emulator-key";
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
        if (project === "neon-auth-go") {
          // The SDK required by its path and this version, from the release's proxy, no replace.
          const gomod = fs.readFileSync(path.join(session.cwd!, "go.mod"), "utf8");
          expect(gomod).toContain(`${GO_MODULE} v${V}`);
          expect(gomod).not.toContain("replace");
        }
        // At the page's emulator (its key): the branch as the program declares it; then destroy takes it all.
        const em = { url: `http://127.0.0.1:${port}/api/v2` } as EmulatorHandle;
        const email = { type: "standard", host: "smtp.example.com", port: 587, username: "auth@example.com", password: "", sender_email: "auth@example.com", sender_name: "Acme" };
        const declared = branchState({ name: "Acme", localhost: false, verification: true, providers: { google: "standard" }, domains: ["https://app.example.com"], email });
        expect(await branchSnapshot(em, "p-start", "br-main-p-start", PAGE_KEY)).toEqual(declared);
        sessionPulumi(session, "state", "unprotect", "--all", "--yes", "--stack", "prod");
        expect(sessionPulumi(session, "destroy", "--yes", "--remove", "--color", "never", "--stack", "prod")).toMatch(/^ {4}- 5 deleted$/m);
        expect((await branchSnapshot(em, "p-start", "br-main-p-start", PAGE_KEY)).auth).toBeUndefined();
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
