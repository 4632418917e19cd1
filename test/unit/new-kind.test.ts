/**
 * Adding a kind is proven, not described: DEVELOPMENT.md's block of commands under "Adding a
 * resource kind" runs as written, in a copy of the repository, for a throwaway kind. The first
 * `npm run gen` of a new kind works, the type check passes, and the tests that hold every kind
 * pass with it. And it costs what the issue asked (49): two hand-written files (the kind's own and
 * the table of kinds); every other file it touches is one `npm run gen` writes.
 */
import { execFileSync, execSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createHash } from "node:crypto";
import { expect, it } from "vitest";

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
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "new-kind-"));
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
function touched(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter((f) => before.get(f) !== after.get(f)).sort();
}

it("DEVELOPMENT.md's steps add a kind: it generates, type-checks and passes the tests that hold every kind", { timeout: 900_000 }, () => {
  const commands = commandsOf("Adding a resource kind");
  expect(commands[0]).toMatch(/^node scripts\/new-kind\.mts [A-Z]\w+$/);
  const kind = commands[0]!.split(" ").at(-1)!;
  const dir = copyOfRepository();
  try {
    const snapshots = [contents(dir)];
    for (const command of commands) {
      execSync(command, { cwd: dir, stdio: "pipe", env: { ...process.env, CI: "true" } });
      snapshots.push(contents(dir));
    }
    // The script writes what a person would: the kind's file and its row of the table of kinds.
    const camel = kind.charAt(0).toLowerCase() + kind.slice(1);
    expect(touched(snapshots[0]!, snapshots[1]!)).toEqual([`src/kinds/${camel}.ts`, "src/kinds/index.ts"].sort());
    // Everything else comes from `npm run gen`, which leaves those two alone; the checks touch nothing.
    const gen = commands.indexOf("npm run gen") + 1;
    expect(gen).toBeGreaterThan(1);
    const generated = touched(snapshots[gen - 1]!, snapshots[gen]!);
    expect(generated).not.toContain("src/kinds/index.ts");
    expect(generated).toEqual(expect.arrayContaining([`src/resources/providers/${kind}.ts`, "src/resources/providers/index.ts", "src/resources/classes.ts", "src/provider/kindNames.ts"]));
    expect(touched(snapshots[1]!, snapshots.at(-1)!)).toEqual(generated);
    const types = fs.readFileSync(path.join(dir, "src/resources/types", `${kind}.ts`), "utf8");
    expect(types).toContain(`export interface ${kind}Args`);
    const page = fs.readFileSync(path.join(dir, "docs", `${kind}.md`), "utf8");
    const table = page.slice(page.indexOf(`<!-- gen:kind:${kind} -->`), page.indexOf(`<!-- /gen:kind:${kind} -->`));
    expect(table).toContain("| `name` |");
    expect(fs.readFileSync(path.join(dir, "docs/plugin", `${kind}.md`), "utf8")).toContain(`neon-auth:index:${kind}`);
  } catch (e) {
    const err = e as { stdout?: Buffer; stderr?: Buffer; message: string };
    throw new Error(`${err.message}\n${err.stdout?.toString() ?? ""}\n${err.stderr?.toString() ?? ""}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
