/**
 * The README's quick start, as a new user follows it: the emulator started with the README's own
 * command through `npx` from the packed package installed in the program's workspace, the
 * README's config commands, and each of its two programs copied verbatim from the README into a
 * program laid out like `pulumi new typescript`. Each converges, then shows no changes, and
 * goes away with destroy. Only the port differs: tests listen on port 0, never on 4000.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { changesOf, expectNoChanges, stackFor } from "./harness";

const repo = path.resolve(__dirname, "..", "..");
const readme = fs.readFileSync(path.join(repo, "README.md"), "utf8");
const quickStart = readme.slice(readme.indexOf("\n## Quick start\n"), readme.indexOf("\n## Resource reference\n"));

/** The fenced blocks of one language in the quick start, in order. */
const blocks = (lang: string): string[] => [...quickStart.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]!);

/** The README's command lines that start with `prefix` (comments and a trailing `&` dropped). */
const commandLines = (prefix: string): string[] =>
  blocks("bash")
    .flatMap((b) => b.split("\n"))
    .map((l) => l.replace(/\s+#\s.*$/, "").replace(/&\s*$/, "").trim())
    .filter((l) => l.startsWith(prefix));

/** The emulator the README starts: `npx neon-auth-emulator …` where the package is installed. */
async function startReadmeEmulator(workspace: string): Promise<{ url: string; proc: ChildProcess }> {
  const [line] = commandLines("npx neon-auth-emulator");
  expect(line).toBe("npx neon-auth-emulator --port 4000 --seed-project p-quick");
  const args = line!.split(/\s+/).slice(1).map((a) => (a === "4000" ? "0" : a));
  // A process group of its own, so that stopping it stops npx and the emulator under it.
  const proc = spawn("npx", args, { cwd: workspace, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    let err = "";
    proc.stdout!.on("data", (d) => {
      out += d;
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/api\/v2)$/m.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.stderr!.on("data", (d) => (err += d));
    proc.on("exit", (code) => reject(new Error(`the emulator exited (${code}) before printing its URL: ${err}`)));
  });
  return { url, proc };
}

/** A program laid out like `pulumi new typescript`, with the README's `index.ts`. */
function readmeProgram(name: string, indexTs: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));
  const tsconfig = fs.readFileSync(path.join(__dirname, "programs", "install-ts", "tsconfig.json"), "utf8");
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: ${name}\nruntime:\n  name: nodejs\n  options:\n    typescript: true\n`);
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, private: true, main: "index.ts" }));
  fs.writeFileSync(path.join(dir, "tsconfig.json"), tsconfig.replace(/"files": \[[^\]]*\]/, '"files": ["index.ts"]'));
  fs.writeFileSync(path.join(dir, "index.ts"), indexTs);
  return dir;
}

/** The README's `pulumi config set` lines, with the URL the emulator printed. */
async function configureAsReadme(stack: import("@pulumi/pulumi/automation").Stack, url: string): Promise<void> {
  const lines = commandLines("pulumi config set");
  expect(lines).toEqual([
    "pulumi config set neon-auth:apiUrl http://127.0.0.1:4000/api/v2",
    "pulumi config set --secret neon-auth:apiKey neon-emulator-key",
    "pulumi config set --secret microsoftClientSecret some-secret",
  ]);
  for (const l of lines) {
    const [key, value] = l.replace("pulumi config set ", "").replace("--secret ", "").split(" ") as [string, string];
    await stack.setConfig(key, { value: value.replace("http://127.0.0.1:4000/api/v2", url), secret: l.includes("--secret") });
  }
}

describe("the README's quick start, verbatim", () => {
  let emulator: { url: string; proc: ChildProcess };
  const [branchProgram, projectProgram] = blocks("ts");

  beforeAll(async () => {
    emulator = await startReadmeEmulator(inject("e2eWorkspace"));
  });
  afterAll(() => {
    if (emulator?.proc.pid !== undefined) process.kill(-emulator.proc.pid, "SIGTERM");
  });

  it("has two programs: NeonAuth on a branch, and a project-level integration", () => {
    expect(branchProgram).toContain("new NeonAuth(");
    expect(projectProgram).toContain("new AuthIntegration(");
  });

  for (const [which, source, creates] of [
    ["branch", () => branchProgram!, 6],
    ["project", () => projectProgram!, 6],
  ] as const) {
    it(`the ${which} program converges, shows no changes and is destroyed`, async () => {
      const src = readmeProgram(`quick-start-${which}`, source());
      const e2e = await stackFor({ program: src, stackName: "dev" });
      try {
        await configureAsReadme(e2e.stack, emulator.url);
        const up = await e2e.stack.up({ color: "never" });
        // "creates the 6 resources" (the README's words), and the stack itself.
        expect(changesOf(up.summary.resourceChanges)).toEqual({ create: creates + 1 });
        // What the app needs, under the name Neon's Next.js guide reads it from.
        if (which === "branch") expect(up.outputs.NEON_AUTH_BASE_URL?.value).toMatch(/^https?:\/\/\S+$/);
        await expectNoChanges(e2e.stack);
        // `protect: true` on the project-level integration: the README says to remove it before a destroy.
        if (which === "project") e2e.cli("state", "unprotect", "--all", "--yes");
        const destroy = await e2e.stack.destroy({ color: "never" });
        expect(changesOf(destroy.summary.resourceChanges)).toEqual({ delete: creates + 1 });
      } finally {
        await e2e.cleanup();
        fs.rmSync(src, { recursive: true, force: true });
      }
    });
  }
});
