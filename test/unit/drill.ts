/**
 * The drills (issue 49): a DEVELOPMENT.md section's shell block run as written, in a copy of the
 * repository, with a snapshot of the copy's files after each command, so that a test can say which
 * files each step touched. drills.test.ts runs them.
 */
import { execFileSync, execSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const repo = path.resolve(__dirname, "../..");

/** The shell block of a DEVELOPMENT.md section, line by line, comments dropped. */
function commandsOf(section: string): string[] {
  const text = fs.readFileSync(path.join(repo, "DEVELOPMENT.md"), "utf8");
  const start = text.indexOf(`### ${section}\n`);
  const end = text.indexOf("\n### ", start + 1);
  const block = text.slice(start, end).match(/```sh\n([\s\S]*?)```/);
  if (start < 0 || !block) throw new Error(`DEVELOPMENT.md has no shell block under "${section}"`);
  return block[1]!.split("\n").map((l) => l.replace(/\s+#.*$/, "").trim()).filter((l) => l !== "");
}

/** The repository as a clone of this working tree has it (tracked and new files), with its packages linked. */
function copyOfRepository(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "drill-"));
  const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], { cwd: repo, encoding: "utf8" }).split("\n").filter((f) => f !== "" && fs.existsSync(path.join(repo, f)));
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(repo, f), path.join(dir, f));
  }
  fs.symlinkSync(path.join(repo, "node_modules"), path.join(dir, "node_modules"));
  return dir;
}

/** Each file of the copy (build output and packages aside) by its content's hash. */
function contents(dir: string, at = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of fs.readdirSync(path.join(dir, at), { withFileTypes: true })) {
    const rel = path.join(at, e.name);
    if (["node_modules", "dist", ".git"].includes(e.name)) continue;
    if (e.isDirectory()) for (const [k, v] of contents(dir, rel)) out.set(k, v);
    else if (e.isFile()) out.set(rel, createHash("sha1").update(fs.readFileSync(path.join(dir, rel))).digest("hex"));
  }
  return out;
}

/** The files added, changed or removed between two snapshots. */
export function touched(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter((f) => before.get(f) !== after.get(f)).sort();
}

/** What a drill saw: its commands that write, and the copy's files before the first and after each. */
export interface DrillRun {
  readonly dir: string;
  readonly commands: readonly string[];
  readonly snapshots: readonly Map<string, string>[];
  /** The files the command at `i` touched. */
  step(i: number): string[];
}

/** A block's checks: commands that only read (the type check, tests), run once for every drill. */
const isCheck = (command: string) => /^npx (tsc|vitest run) /.test(command);

/**
 * Runs the blocks of `sections`, in order, in one copy: each block's commands that write, then the
 * checks of every block at once (the type check once, the tests of every block in one vitest run),
 * which must touch nothing. One copy and one round of checks for all: each round costs minutes of
 * a core. `check` gets each block's run; a failed command shows its output.
 */
export function drills(sections: string[], check: (runs: DrillRun[]) => void): void {
  const dir = copyOfRepository();
  // As in a fresh checkout: nothing the test run set up for its own build (scripts/test) applies to the copy.
  const { NEON_AUTH_DIST_BUILT: _, ...env } = process.env;
  const run = (command: string) => execSync(command, { cwd: dir, stdio: "pipe", env: { ...env, CI: "true" } });
  try {
    const blocks = sections.map(commandsOf);
    const runs = blocks.map((block): DrillRun => {
      const commands = block.filter((c) => !isCheck(c));
      const snapshots = [contents(dir)];
      for (const command of commands) {
        run(command);
        snapshots.push(contents(dir));
      }
      return { dir, commands, snapshots, step: (i) => touched(snapshots[i]!, snapshots[i + 1]!) };
    });
    const checks = blocks.flat().filter(isCheck);
    const tests = [...new Set(checks.filter((c) => c.startsWith("npx vitest run ")).flatMap((c) => c.split(/\s+/).slice(3)))];
    const before = contents(dir);
    for (const command of new Set(checks.filter((c) => !c.startsWith("npx vitest run ")))) run(command);
    if (tests.length > 0) run(`npx vitest run ${tests.join(" ")}`);
    const checked = touched(before, contents(dir));
    if (checked.length > 0) throw new Error(`the checks touched ${checked.join(", ")}`);
    check(runs);
  } catch (e) {
    const err = e as { stdout?: Buffer; stderr?: Buffer; message: string };
    throw new Error(`${err.message}\n${err.stdout?.toString() ?? ""}\n${err.stderr?.toString() ?? ""}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
