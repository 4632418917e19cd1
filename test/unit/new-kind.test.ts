/**
 * Adding a kind is proven, not described: DEVELOPMENT.md's block of commands under "Adding a
 * resource kind" runs as written, in a copy of the repository, for a throwaway kind. The first
 * `npm run gen` of a new kind works, the type check passes, and the tests that hold every kind
 * pass with it.
 */
import { execFileSync, execSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
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

it("DEVELOPMENT.md's steps add a kind: it generates, type-checks and passes the tests that hold every kind", { timeout: 900_000 }, () => {
  const commands = commandsOf("Adding a resource kind");
  expect(commands[0]).toMatch(/^node scripts\/new-kind\.mts [A-Z]\w+$/);
  const kind = commands[0]!.split(" ").at(-1)!;
  const dir = copyOfRepository();
  try {
    for (const command of commands) execSync(command, { cwd: dir, stdio: "pipe", env: { ...process.env, CI: "true" } });
    const generated = fs.readFileSync(path.join(dir, "src/resources/types", `${kind}.ts`), "utf8");
    expect(generated).toContain(`export interface ${kind}Args`);
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
