/**
 * Every command the README and the examples' READMEs tell a user to run, run as written: the
 * package published to a real npm registry on loopback (verdaccio, test/e2e/registry.ts), then
 * each document's shell blocks in one bash session, in order, in a new folder outside this
 * repository, with only the environment set: the registry's address, a Pulumi home and state
 * backend of its own, its passphrase, the answer to confirmations (`pulumi up` as typed, without
 * `--yes`) and where `pulumi new` finds its `typescript` template. A block marked
 * `<!-- file: NAME -->` is written to that file where it stands. The one change to the text: the
 * emulator's port 4000 becomes one the OS picked, as tests listen on no fixed port. A shell block
 * that cannot run here is in test/not-runnable.json with the reason; any other block runs, so a
 * new block either runs or says why not. After the last block the stack the session ends in shows
 * no changes on a second preview and a refresh, and every stack it made is destroyed.
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { blocksOf, documents, isShell, notRunnable, type Block } from "../readme-blocks";
import { startRegistry, type Registry } from "./registry";

const EOF_MARK = "__NEON_AUTH_README_FILE__";

/** A port the OS hands out for port 0, free once its listener closes. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `pulumi new typescript` clones its templates from a git repository: this one, made here. */
function templateRepository(dir: string): string {
  const repo = path.join(dir, "templates");
  fs.cpSync(path.join(__dirname, "templates"), repo, { recursive: true });
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, stdio: "ignore" });
  git("init", "-q", "-b", "master");
  git("add", "-A");
  git("-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "templates");
  return repo;
}

/** One bash script of a document's blocks, in order: the shell blocks that run, and the files. */
function scriptOf(doc: string, port: number): { script: string; ran: Block[] } {
  const exempt = notRunnable().filter((n) => n.doc === doc);
  const ran: Block[] = [];
  const parts = ["set -e"];
  for (const b of blocksOf(doc)) {
    if (b.file) {
      parts.push(`cat > '${b.file}' <<'${EOF_MARK}'\n${b.text}${EOF_MARK}`);
    } else if (isShell(b) && !exempt.some((n) => n.block === b.text)) {
      ran.push(b);
      // On a line of its own: the output before may not end in a newline (curl's does not).
      parts.push(`printf '\\n::block %s\\n' '${doc}:${b.line}'`, b.text.replace(/127\.0\.0\.1:4000\b/g, `127.0.0.1:${port}`).replace(/--port 4000\b/g, `--port ${port}`));
    }
  }
  // Where the session ended, and the Pulumi settings it exported there (an example's own backend).
  parts.push(`printf '\\n::cwd %s\\n' "$PWD"`, 'env | grep "^PULUMI_" > "$HOME/session.env"');
  return { script: parts.join("\n"), ran };
}

interface Session {
  code: number;
  out: string;
  /** The folder the last block left the session in. */
  cwd?: string;
  env: Record<string, string>;
}

describe("the READMEs' commands, as written, against a local npm registry and the emulator", () => {
  let registry: Registry;
  let root: string;
  let templates: string;

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-readme-"));
    templates = templateRepository(root);
  });
  beforeAll(async () => {
    registry = await startRegistry();
    // The tarball the run's global setup packed from this checkout, published as npm would.
    registry.publish(path.join(inject("e2eWorkspace"), "pulumi-neon-auth.tgz"));
  });
  afterAll(() => {
    registry?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  async function runDocument(doc: string): Promise<{ session: Session; ran: Block[] }> {
    const port = await freePort();
    const { script, ran } = scriptOf(doc, port);
    const home = fs.mkdtempSync(path.join(root, `${doc.replace(/\W+/g, "-")}-`));
    fs.mkdirSync(path.join(home, "work"));
    fs.writeFileSync(path.join(home, "session.sh"), script);
    const env: Record<string, string> = {
      ...(Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(NEON_|PULUMI_|npm_)/i.test(k))) as Record<string, string>),
      HOME: home,
      // The user's npm cache, as on their machine (HOME is new): packages come through the registry.
      npm_config_cache: path.join(os.homedir(), ".npm"),
      npm_config_registry: registry.url,
      PULUMI_HOME: path.join(home, ".pulumi"),
      PULUMI_BACKEND_URL: `file://${path.join(home, "state")}`,
      PULUMI_CONFIG_PASSPHRASE: "readme-passphrase-not-a-secret",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DIY_BACKEND_NO_LEGACY_WARNING: "true",
      PULUMI_SKIP_CONFIRMATIONS: "true",
      PULUMI_TEMPLATE_GIT_REPOSITORY: templates,
      // Template names are otherwise looked up in the Pulumi Cloud registry first.
      PULUMI_DISABLE_REGISTRY_RESOLVE: "true",
    };
    fs.mkdirSync(path.join(home, "state"));
    // A process group of its own: the emulator a block starts with `&` goes with it.
    const proc = spawn("bash", [path.join(home, "session.sh")], { cwd: path.join(home, "work"), env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    proc.stdout!.on("data", (d) => (out += d));
    proc.stderr!.on("data", (d) => (out += d));
    const code = await new Promise<number>((resolve) => proc.on("exit", (c) => resolve(c ?? -1)));
    const cwd = /^::cwd (.*)$/m.exec(out)?.[1];
    const exported = path.join(home, "session.env");
    if (fs.existsSync(exported)) {
      for (const line of fs.readFileSync(exported, "utf8").split("\n")) {
        const eq = line.indexOf("=");
        if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
      }
    }
    const session: Session = { code, out, ...(cwd ? { cwd } : {}), env };
    sessions.set(doc, { session, pgid: proc.pid! });
    return { session, ran };
  }

  const sessions = new Map<string, { session: Session; pgid: number }>();

  /** Runs the Pulumi CLI in the session's last folder, with its environment. */
  const pulumi = (s: Session, ...args: string[]): string =>
    execFileSync("pulumi", args, { cwd: s.cwd, env: s.env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 });

  /** Stacks the session made in its last folder: unprotected and destroyed; then its processes stop. */
  function teardown(doc: string): void {
    const entry = sessions.get(doc);
    if (!entry) return;
    const { session, pgid } = entry;
    try {
      if (session.cwd && fs.existsSync(path.join(session.cwd, "Pulumi.yaml"))) {
        for (const { name } of JSON.parse(pulumi(session, "stack", "ls", "--json")) as { name: string }[]) {
          pulumi(session, "state", "unprotect", "--all", "--yes", "--stack", name);
          pulumi(session, "destroy", "--yes", "--remove", "--stack", name);
        }
      }
    } finally {
      try {
        process.kill(-pgid, "SIGTERM");
      } catch {
        // Already gone.
      }
    }
  }

  it("lists in test/not-runnable.json only blocks that exist, each with its reason", () => {
    const stale = notRunnable().filter((n) => !blocksOf(n.doc).some((b) => isShell(b) && b.text === n.block));
    expect(stale).toEqual([]);
    expect(notRunnable().filter((n) => n.reason.length < 20)).toEqual([]);
  });

  for (const doc of documents()) {
    it(`${doc}: every shell block runs as written, or is listed with the reason it cannot`, { timeout: 900_000 }, async () => {
      if (scriptOf(doc, 0).ran.length === 0) return;
      try {
        const { session, ran } = await runDocument(doc);
        expect({ code: session.code, tail: session.code === 0 ? "" : session.out.slice(-6000) }).toEqual({ code: 0, tail: "" });
        // Every block that runs was reached, in order.
        expect([...session.out.matchAll(/^::block (.*)$/gm)].map((m) => m[1])).toEqual(ran.map((b) => `${doc}:${b.line}`));
        // The stack the session ends in (the one selected there, else its only one): no changes on a
        // second preview and on a refresh.
        const stacks = JSON.parse(pulumi(session, "stack", "ls", "--json")) as { name: string; current: boolean }[];
        const last = stacks.find((t) => t.current) ?? (stacks.length === 1 ? stacks[0] : undefined);
        expect(last, JSON.stringify(stacks)).toBeDefined();
        expect(pulumi(session, "preview", "--expect-no-changes", "--color", "never", "--stack", last!.name)).toMatch(/\d+ unchanged/);
        expect(pulumi(session, "refresh", "--yes", "--expect-no-changes", "--color", "never", "--stack", last!.name)).toMatch(/\d+ unchanged/);
        EXPECTED[doc]?.(session);
      } finally {
        teardown(doc);
      }
    });
  }
});

/** What each document's commands must have printed, beyond succeeding. */
const EXPECTED: Record<string, (s: Session) => void> = {
  "README.md": ({ out }) => {
    // The branch program: "creates the 6 resources", and the stack.
    expect(out).toMatch(/^ {4}\+ 7 created$/m);
    // The project-level program in the same folder, as its comment says.
    expect(out).toMatch(/^ {4}\+ 2 created\n {4}- 2 deleted\n {4}\+-4 replaced\n/m);
    // `pulumi stack output --show-secrets appEnv`: the app's three variables.
    expect(out).toMatch(/^\{"NEXT_PUBLIC_STACK_PROJECT_ID":"[0-9a-f-]{36}","NEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY":"pck_\w+","STACK_SECRET_SERVER_KEY":"ssk_\w+"\}$/m);
    // The project the README's curl creates.
    expect(out).toMatch(/"project":\{"id":"[a-z0-9-]+","name":"demo"/);
  },
};
// Each example's `pulumi up` creates what it declares.
for (const doc of documents().filter((d) => d.startsWith("examples/"))) EXPECTED[doc] ??= ({ out }) => expect(out).toMatch(/^ {4}\+ \d+ created$/m);
