/**
 * Every command the README, the pages in docs/ and the examples' READMEs tell a user to run, run as written: the
 * package published to a real npm registry on loopback (verdaccio, test/e2e/registry.ts), then
 * each document's shell blocks in one bash session, in order, in a new folder outside this
 * repository, with only the environment set: the registry's address, a Pulumi home and state
 * backend of its own, its passphrase, the answer to confirmations (`pulumi up` as typed, without
 * `--yes`) and where `pulumi new` finds its `typescript` template. A block marked
 * `<!-- file: NAME -->` is written to that file where it stands. The one change to the text: the
 * emulator's port 4000 becomes one the OS picked, as tests listen on no fixed port. A shell block
 * that cannot run here is in test/not-runnable.json with the reason; any other block runs, so a
 * new block either runs or says why not. The session has job control, as the user's terminal does,
 * so `kill %1` stops a job started with `&` (npx and the emulator under it). After the last block
 * the stack the session ends in shows no changes on a second preview and a refresh (a document that
 * destroys its own stacks, as the README's Quick start does, shows it with `--expect-no-changes`
 * itself), every stack it made is destroyed, and the jobs it left running are stopped. The README's
 * two Quick start programs are the ones a new user copies: each is checked here to converge (no
 * changes on its preview; on a refresh, none but the drift the README makes), its outputs printed.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { blocksOf, documents, isShell, notRunnable, sessionScript, type Block } from "../readme-blocks";
import { startRegistry, type Registry } from "./registry";
import { endSession, expectNoChanges, freePort, lastStack, runSession, stacksOf, type Session } from "./session";

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
  const blocks = blocksOf(doc).filter((b) => b.file || (isShell(b) && !exempt.some((n) => n.block === b.text)));
  const script = sessionScript(blocks, (text) => text.replace(/127\.0\.0\.1:4000\b/g, `127.0.0.1:${port}`).replace(/--port 4000\b/g, `--port ${port}`));
  return { script, ran: blocks.filter((b) => !b.file) };
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
    const { script, ran } = scriptOf(doc, await freePort());
    const home = fs.mkdtempSync(path.join(root, `${doc.replace(/\W+/g, "-")}-`));
    fs.mkdirSync(path.join(home, "state"));
    const session = await runSession(home, script, {
      ...(Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(NEON_|PULUMI_|npm_)/i.test(k))) as Record<string, string>),
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
    });
    sessions.set(doc, session);
    return { session, ran };
  }

  const sessions = new Map<string, Session>();

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
        // second preview and on a refresh. A document that removes its stacks says so itself.
        if (NO_STACK_LEFT.has(doc)) expect(stacksOf(session)).toEqual([]);
        else {
          const last = lastStack(session);
          expect(last, JSON.stringify(stacksOf(session))).toBeDefined();
          expectNoChanges(session, last!, (out) => expect(out).toMatch(/\d+ unchanged/));
        }
        EXPECTED[doc]?.(session, (command) => outputOf(session, ran, command));
      } finally {
        endSession(sessions.get(doc));
      }
    });
  }
});

/**
 * Documents whose commands leave no stack behind: the README's Quick start ends by destroying its
 * stack (after its own `preview --expect-no-changes` of the branch program, `refresh
 * --expect-no-changes` and a preview of the project program), and docs/emulator.md makes none.
 */
const NO_STACK_LEFT = new Set(["README.md", "docs/emulator.md"]);

/** What the one block whose text has `command` printed: from its marker to the next. */
function outputOf(session: Session, ran: Block[], command: string): string {
  const [block, ...more] = ran.filter((b) => b.text.includes(command));
  expect([block?.text, more.length]).toEqual([expect.stringContaining(command), 0]);
  const from = session.out.indexOf(`::block ${block!.doc}:${block!.line}\n`);
  const to = session.out.indexOf("\n::", from + 1);
  return session.out.slice(from, to < 0 ? undefined : to);
}

/**
 * What each document's commands must have printed, beyond succeeding; `of(command)` is what the
 * block with that command printed.
 */
const EXPECTED: Record<string, (s: Session, of: (command: string) => string) => void> = {
  "README.md": ({ out }, of) => {
    // The branch program: "+ 7 created: the stack and its 6 resources", then a preview with no changes.
    const branch = of("pulumi stack output NEON_AUTH_BASE_URL");
    expect(branch).toMatch(/^ {4}\+ 7 created$/m);
    expect(branch).toMatch(/^ {4}7 unchanged$/m);
    // What the app needs, under the name Neon's Next.js guide reads it from: the block's last line.
    expect(branch.trim().split("\n").pop()).toMatch(/^https?:\/\/\S+$/);
    // The drift made at the emulator: refresh finds it and nothing else, up puts the program's value back.
    const drift = of("curl -s -X PATCH");
    expect(drift.match(/auth +(refreshed|updated)\b.*\[diff: ~appName\]/g)?.length).toBe(2);
    expect(drift.match(/^ {4}~ 1 updated\n {4}6 unchanged$/gm)?.length).toBe(2);
    // The project-level program in the same folder, as its comment says; then a refresh with no changes.
    const project = of("pulumi stack output --show-secrets appEnv");
    expect(project).toMatch(/^ {4}\+ 2 created\n {4}- 2 deleted\n {4}\+-4 replaced\n/m);
    expect(project).toMatch(/^ {4}7 unchanged$/m);
    // `pulumi stack output --show-secrets appEnv`: the app's three variables.
    expect(project).toMatch(/^\{"NEXT_PUBLIC_STACK_PROJECT_ID":"[0-9a-f-]{36}","NEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY":"pck_\w+","STACK_SECRET_SERVER_KEY":"ssk_\w+"\}$/m);
    // The policy pack on the `dev` stack: advisories, and the preview goes on, with no changes.
    const policy = of("--policy-pack node_modules/pulumi-neon-auth/policy");
    expect(policy).toMatch(/advisory/);
    expect(policy).toMatch(/^ {4}7 unchanged$/m);
    // The last block: everything deleted, then the stack.
    expect(out).toMatch(/^ {4}- 7 deleted$/m);
  },
  "docs/emulator.md": ({ out }) => {
    // The project created before the restart is listed after it, from the state file.
    expect(out).toMatch(/\{"projects":\[[^\]]*"name":"demo"/);
  },
};
// Each example's `pulumi up` creates what it declares.
for (const doc of documents().filter((d) => d.startsWith("examples/"))) EXPECTED[doc] ??= ({ out }) => expect(out).toMatch(/^ {4}\+ \d+ created$/m);
