/**
 * The plugin's SDKs for the languages this machine cannot run a program in, checked as far as it
 * allows: the Node.js SDK type-checks strictly with its own tsconfig, every module of the Python SDK
 * compiles (PyPI is out of reach, so `pulumi` for Python cannot be installed to import it). Go and
 * the Node.js SDK run programs in plugin-go.test.ts and plugin.test.ts; .NET has no generator in
 * the Go modules served here.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { generateSdk } from "../../scripts/sdk.mts";
import { DECLARATIONS } from "../../src/kinds";
import { packageSchema } from "../../src/plugin/schema";
import { goFunctionName, goName, pythonFunctionName, pythonName } from "../../scripts/gen/plugin-docs.mts";

const kinds = Object.keys(DECLARATIONS);
/** The functions' tokens (src/kinds/functions.ts), each SDK's direct and output form checked below. */
const functionTokens = () => Object.keys(packageSchema().functions);
const functionName = (token: string) => token.split(":").pop()!;

/**
 * Runs `check` on the SDK of `language`, generated into a folder beside the workspace's
 * node_modules (typescript, @pulumi/pulumi, @types/node), and removes it after.
 */
function withSdk(language: "nodejs" | "go" | "python", check: (dir: string) => void): void {
  const dir = fs.mkdtempSync(path.join(inject("e2eWorkspace"), "programs", `sdk-${language}-`));
  try {
    generateSdk(language, dir);
    check(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Each property of each resource, by name. */
const propertyNames = () => Object.values(packageSchema().resources).flatMap((r) => Object.keys(r.properties));

describe("the plugin's SDKs", () => {
  it("Node.js: a class per kind, and it type-checks strictly", { timeout: 300_000 }, () => {
    withSdk("nodejs", (dir) => {
      const index = fs.readFileSync(path.join(dir, "index.ts"), "utf8");
      for (const kind of kinds) expect(index, kind).toMatch(new RegExp(`export const ${kind}: typeof import\\(`));
      for (const f of functionTokens().map(functionName)) {
        expect(index, f).toMatch(new RegExp(`export const ${f}: typeof import\\("./${f}"\\).${f} `));
        expect(index, f).toMatch(new RegExp(`export const ${f}Output: typeof import\\("./${f}"\\).${f}Output `));
      }
      const tsc = path.join(inject("e2eWorkspace"), "node_modules", ".bin", "tsc");
      execFileSync(tsc, ["-p", path.join(dir, "tsconfig.json"), "--noEmit"], { cwd: dir, encoding: "utf8" });
    });
  });

  it("Go: the names the reference pages give are the SDK's (its programs run in plugin-go.test.ts)", { timeout: 300_000 }, () => {
    withSdk("go", (dir) => {
      const pkg = path.join(dir, "neonauth");
      const source = fs.readdirSync(pkg).filter((f) => f.endsWith(".go")).map((f) => fs.readFileSync(path.join(pkg, f), "utf8")).join("\n");
      for (const name of propertyNames()) expect(source, name).toMatch(new RegExp(`\\t${goName(name)}\\s+\\S+\\s+\`pulumi:"${name}"\``));
      const schema = packageSchema();
      for (const token of functionTokens()) {
        const go = goFunctionName(schema, token);
        expect(source, token).toContain(`func ${go}(ctx *pulumi.Context, args *${go}Args, opts ...pulumi.InvokeOption) (*${go}Result, error) {`);
        expect(source, token).toContain(`func ${go}Output(ctx *pulumi.Context, args ${go}OutputArgs, opts ...pulumi.InvokeOption) ${go}ResultOutput {`);
      }
    });
  });

  it("Python: a module per kind, and every module compiles", { timeout: 300_000 }, () => {
    withSdk("python", (dir) => {
      const pkg = path.join(dir, "pulumi_neon_auth");
      const modules = fs.readdirSync(pkg, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".py"));
      const source = modules.map((m) => fs.readFileSync(path.join(pkg, m), "utf8")).join("\n");
      for (const kind of kinds) expect(source, kind).toContain(`class ${kind}(pulumi.CustomResource):`);
      for (const f of functionTokens().map((t) => pythonFunctionName(functionName(t)))) {
        expect(source, f).toMatch(new RegExp(`^def ${f}\\(`, "m"));
        expect(source, f).toMatch(new RegExp(`^def ${f}_output\\(`, "m"));
      }
      // The names the reference pages give (docs/plugin) are the SDK's.
      for (const name of propertyNames()) expect(source, name).toContain(`def ${pythonName(name)}(self)`);
      execFileSync("python3", ["-m", "py_compile", ...modules.map((m) => path.join(pkg, m))], { encoding: "utf8" });
    });
  });
});
