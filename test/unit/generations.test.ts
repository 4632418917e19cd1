/**
 * The types keep each generation's settings to its own integration: types/generations.ts compiled
 * with its `@ts-expect-error` comments removed has exactly one error on each of those lines, and
 * none elsewhere (so every comment stands for a real refusal, not an unrelated mistake).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const repo = path.resolve(__dirname, "../..");
const FIXTURE = path.join(__dirname, "types", "generations.ts");

function compile(text: string): { line: number; message: string }[] {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(repo, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
  const host = ts.createCompilerHost(config.options);
  const read = host.readFile;
  host.readFile = (f) => (path.resolve(f) === FIXTURE ? text : read(f));
  const program = ts.createProgram([FIXTURE], { ...config.options, noEmit: true }, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file !== undefined && path.resolve(d.file.fileName) === FIXTURE)
    .map((d) => ({ line: d.file!.getLineAndCharacterOfPosition(d.start!).line + 1, message: ts.flattenDiagnosticMessageText(d.messageText, "\n") }));
}

describe("types of the two generations", () => {
  it("refuse on each marked line what the service refuses, and nothing else", { timeout: 120_000 }, () => {
    const text = fs.readFileSync(FIXTURE, "utf8");
    const lines = text.split("\n");
    const marked = lines.flatMap((l, i) => (/^\s*\/\/ @ts-expect-error/.test(l) ? [i + 2] : []));
    expect(marked).toHaveLength(7);
    expect(compile(text)).toEqual([]);
    const errors = compile(lines.map((l) => (/^\s*\/\/ @ts-expect-error/.test(l) ? "" : l)).join("\n"));
    expect([...new Set(errors.map((e) => e.line))]).toEqual(marked);
    const on = (n: number) => errors.filter((e) => e.line === marked[n]).map((e) => e.message).join("\n");
    expect(on(0)).toMatch(/roles/);
    expect(on(1)).toMatch(/microsoftTenantId/);
    expect(on(2)).toMatch(/"vercel"/);
    expect(on(3)).toMatch(/testRecipient/);
    expect(on(4)).toMatch(/NeonAuthIntegration/);
    expect(on(5)).toMatch(/deleteDataOnDestroy/);
    expect(on(6)).toMatch(/deleteDataOnDestroy/);
  });
});
