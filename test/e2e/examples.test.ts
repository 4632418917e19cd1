/**
 * The example of every kind's page (docs/examples/<Kind>.yaml, rendered by scripts/gen/examples.mts),
 * checked in each language: all examples merged into one program per language (each on a Neon
 * project of its own, so that they do not meet), which goes up through the real engine (TypeScript
 * on the classes; YAML and Go on the plugin), previews and refreshes with no changes and is
 * destroyed. Each example's own rendering, as its page shows it, is type-checked beside it (tsc,
 * `go build`; and gofmt has nothing to change). Python cannot run here (DEVELOPMENT.md says why): each rendering compiles and
 * pyright type-checks it against the generated Python SDK and Pulumi's own Python SDK.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { exampleSource, mergeExamples, parseExample, programYaml, renderGo, renderPython, renderTypeScript, type Program } from "../../scripts/gen/examples.mts";
import { generateSdk } from "../../scripts/sdk.mts";
import type { EmulatorHandle } from "../../src/emulator";
import { DECLARATIONS } from "../../src/kinds";
import { packageSchema } from "../../src/plugin/schema";
import { expectNoChanges, pluginStack, stackFor, useEmulatorStack, type E2eStack } from "./harness";
import { branchSnapshot, branchUserRows, neonApi, neonConfig, providers, secretConfig, snapshot } from "./neon";

const repo = path.resolve(__dirname, "../..");
const KINDS = Object.keys(DECLARATIONS);
const EXAMPLES = KINDS.map((kind) => ({ kind, program: parseExample(fs.readFileSync(path.join(repo, exampleSource(kind)), "utf8")) }));
const SECRETS = { githubClientSecret: "gh-examples-secret-1", smtpPassword: "smtp-examples-secret-1" };
type Language = "ts" | "yaml" | "go";
const LANGUAGES: Language[] = ["ts", "yaml", "go"];
const projectOf = (language: Language, kind: string) => `p-ex-${language}-${kind.toLowerCase()}`;
const branchOf = (project: string) => `br-main-${project}`;

/** Every example in one program, each on its own project and branch (the values of its `projectId` and `branchId`). */
function merged(language: Language): Program {
  return mergeExamples(
    `examples-${language}`,
    EXAMPLES.map(({ kind, program }) => {
      const project = projectOf(language, kind);
      return { key: kind.charAt(0).toLowerCase() + kind.slice(1), program, literal: { projectId: project, branchId: branchOf(project) } };
    }),
  );
}

/** A program folder with `files` written into it, for `stackFor` to copy; removed by the caller. */
function programDir(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-examples-"));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

const schema = packageSchema();
const each = (render: (p: Program) => string, file: (kind: string) => string) =>
  Object.fromEntries(EXAMPLES.map(({ kind, program }) => [file(kind), render(program)]));

/** What each language's stack is made from: its program's files, and the check of each example's own rendering. */
const LANGUAGE_FILES: Record<Language, () => Record<string, string>> = {
  ts: () => ({
    "Pulumi.yaml": "name: examples-ts\nruntime:\n  name: nodejs\n  options:\n    typescript: true\n",
    "package.json": `{ "name": "examples-ts", "private": true, "main": "index.ts" }\n`,
    "index.ts": renderTypeScript(merged("ts"), schema),
    ...each((p) => renderTypeScript(p, schema), (kind) => `each/${kind}.ts`),
  }),
  yaml: () => ({ "Pulumi.yaml": programYaml(merged("yaml")) }),
  go: () => ({
    "Pulumi.yaml": "name: examples-go\nruntime: go\n",
    "go.mod": fs.readFileSync(path.join(__dirname, "programs", "plugin-go", "go.mod"), "utf8").replace(/^module .*$/m, "module examples-go"),
    "go.sum": fs.readFileSync(path.join(__dirname, "programs", "plugin-go", "go.sum"), "utf8"),
    "main.go": renderGo(merged("go"), schema),
    // Each example as a package of its own, not `main`: compiled and checked, none linked (12 links cost a minute).
    ...each((p) => renderGo(p, schema).replace(/^package main$/m, `package ${p.name.replace(/\W/g, "")}`), (kind) => `each/${kind.toLowerCase()}/main.go`),
  }),
};

/** The stack of `language`'s merged program, on the plugin for YAML and Go. */
async function languageStack(em: EmulatorHandle, language: Language): Promise<E2eStack> {
  const program = programDir(LANGUAGE_FILES[language]());
  try {
    const opts = { program, config: { ...neonConfig(em), ...secretConfig(SECRETS) } };
    return language === "ts" ? await stackFor(opts) : await pluginStack(opts, language);
  } finally {
    fs.rmSync(program, { recursive: true, force: true });
  }
}

/** What the examples made at the emulator, read over its API: the same for every language. */
async function expectMade(em: EmulatorHandle, language: Language): Promise<void> {
  const at = (kind: string) => ({ project: projectOf(language, kind), branch: branchOf(projectOf(language, kind)) });
  const branch = async (kind: string) => branchSnapshot(em, at(kind).project, at(kind).branch);
  expect(await branch("NeonAuth")).toMatchObject({ auth: { name: "Acme", auth_provider: "better_auth" }, require_email_verification: true });
  expect((await branch("RedirectDomain")).domains).toEqual(["https://app.example.com"]);
  expect((await branch("OAuthProvider")).providers).toEqual(providers({ github: "standard", google: "shared" }));
  expect((await branch("EmailServer")).email).toMatchObject({ type: "standard", host: "smtp.example.com", port: 587, sender_email: "auth@example.com" });
  const user = at("AuthUser");
  expect(await branchUserRows(em, user.project, user.branch)).toMatchObject([{ email: "ada@example.com", name: "Ada Lovelace", role: "admin" }]);
  for (const kind of ["AuthIntegration", "AuthSdkKeys", "AuthOwnershipTransfer"]) {
    expect((await snapshot(em, at(kind).project)).integrations, kind).toMatchObject([{ auth_provider: "stack" }]);
  }
  const jwks = await neonApi(em, "GET", `/projects/${at("ProjectJwks").project}/jwks`);
  expect(jwks.json.jwks).toMatchObject([{ provider_name: "Clerk", jwks_url: "https://clerk.example.com/.well-known/jwks.json", jwt_audience: "api://app" }]);
  const api = at("DataApi");
  expect((await neonApi(em, "GET", `/projects/${api.project}/branches/${api.branch}/data-api/neondb`)).status).toBe(200);
}

/** After destroy: no Neon Auth on any example's branch, no project-level integration, no JWKS entry. */
async function expectGone(em: EmulatorHandle, language: Language): Promise<void> {
  for (const { kind, program } of EXAMPLES) {
    const project = projectOf(language, kind);
    const types = Object.values(program.resources).map((r) => r.type);
    if (types.includes("neon-auth:index:NeonAuth")) expect((await branchSnapshot(em, project, branchOf(project))).auth, kind).toBeUndefined();
    if (types.includes("neon-auth:index:AuthIntegration")) expect((await snapshot(em, project)).integrations, kind).toEqual([]);
    if (types.includes("neon-auth:index:ProjectJwks")) expect((await neonApi(em, "GET", `/projects/${project}/jwks`)).json.jwks, kind).toEqual([]);
  }
}

/** Each example as its page shows it compiles beside the merged program (Go with the language host's flags, so that its build of the program reuses this one). */
function expectEachCompiles(language: Language, e2e: E2eStack): void {
  if (language === "ts") {
    const tsc = path.join(inject("e2eWorkspace"), "node_modules", ".bin", "tsc");
    const files = ["index.ts", ...KINDS.map((k) => `each/${k}.ts`)];
    execFileSync(tsc, ["--noEmit", "--strict", "--module", "commonjs", "--target", "es2022", "--skipLibCheck", ...files], { cwd: e2e.dir, encoding: "utf8" });
  }
  if (language === "go") {
    execFileSync("go", ["build", "-trimpath", "./..."], { cwd: e2e.dir, env: { ...process.env, ...e2e.env }, encoding: "utf8" });
    expect(execFileSync("gofmt", ["-l", "main.go", "each"], { cwd: e2e.dir, encoding: "utf8" })).toBe("");
  }
}

describe("each kind's example, in every language the engine runs here", () => {
  const s = useEmulatorStack({
    emulator: { seedProjects: LANGUAGES.flatMap((l) => KINDS.map((k) => `${projectOf(l, k)}:${branchOf(projectOf(l, k))}`)), rateLimit: "off" },
  });

  for (const language of LANGUAGES) {
    it(`${language}: every example in one stack goes up, shows no changes, is destroyed`, { timeout: 900_000 }, async () => {
      const program = merged(language);
      const count = Object.keys(program.resources).length;
      const e2e = await languageStack(s.em, language);
      try {
        expectEachCompiles(language, e2e);
        expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ create: count + 1 });
        await expectMade(s.em, language);
        const outputs = await e2e.stack.outputs();
        expect(Object.keys(outputs).sort()).toEqual(Object.keys(program.outputs ?? {}).sort());
        for (const [name, o] of Object.entries(outputs)) expect(o.value, name).toBeTruthy();
        await expectNoChanges(e2e.stack, count + 1);
        expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: count + 1 });
        await expectGone(s.em, language);
      } finally {
        await e2e.cleanup();
      }
    });
  }
});

/**
 * Pulumi's Python SDK (`pulumi`), as the Go module of pulumi/sdk/v3 carries it (python/lib): the
 * version the Go programs require, from the module proxy. Its own dependencies (grpc, protobuf)
 * are not there, so pyright knows their types as unknown, which no example meets.
 */
function pulumiPythonLib(): string {
  const goMod = fs.readFileSync(path.join(__dirname, "programs", "plugin-go", "go.mod"), "utf8");
  const version = /github\.com\/pulumi\/pulumi\/sdk\/v3 (v\S+)/.exec(goMod)![1]!;
  const out = execFileSync("go", ["mod", "download", "-json", `github.com/pulumi/pulumi/sdk/v3@${version}`], { encoding: "utf8", env: { ...process.env, GOFLAGS: "-mod=mod" } });
  return path.join((JSON.parse(out) as { Dir: string }).Dir, "python", "lib");
}

/**
 * The one difference pyright finds in every Pulumi Python SDK, not in the examples: a resource's
 * output object (`auth.ref`, `Output[IntegrationRef]`) is passed where the input type
 * (`IntegrationRefArgs`) is declared. Both are the same object on the wire.
 */
const OUTPUT_AS_INPUT = /^Argument of type "Output\[IntegrationRef\]" cannot be assigned to parameter "integration"/;

interface PyrightDiagnostic {
  file: string;
  severity: string;
  message: string;
  rule?: string;
}

describe("each kind's example in Python", () => {
  it("compiles, and pyright (strict) finds no error against the generated SDK; a misspelt input is found", { timeout: 600_000 }, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-examples-py-"));
    try {
      generateSdk("python", path.join(dir, "sdk"));
      const files = { ...each((p) => renderPython(p, schema), (kind) => `${kind}.py`), "misspelt.py": 'import pulumi_neon_auth as neon_auth\n\nneon_auth.RedirectDomain("x", domian="https://app.example.com")\n' };
      for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
      execFileSync("python3", ["-m", "py_compile", ...Object.keys(files).map((f) => path.join(dir, f))], { encoding: "utf8" });
      const config = { include: Object.keys(files), extraPaths: ["sdk", pulumiPythonLib()], typeCheckingMode: "strict", pythonVersion: "3.11" };
      fs.writeFileSync(path.join(dir, "pyrightconfig.json"), JSON.stringify(config));
      const pyright = path.join(repo, "node_modules", ".bin", "pyright");
      let out: string;
      try {
        out = execFileSync(pyright, ["--outputjson", "--project", dir], { cwd: dir, encoding: "utf8" });
      } catch (e) {
        out = (e as { stdout: string }).stdout; // exits 1 when it reports an error, as here on purpose
      }
      const report = JSON.parse(out) as { summary: { filesAnalyzed: number }; generalDiagnostics: PyrightDiagnostic[] };
      expect(report.summary.filesAnalyzed).toBe(Object.keys(files).length);
      const errors = report.generalDiagnostics.filter((d) => d.severity === "error").map((d) => ({ file: path.basename(d.file), message: d.message.split("\n")[0]!, rule: d.rule }));
      expect(errors.filter((e) => e.file === "misspelt.py")).toEqual([{ file: "misspelt.py", message: 'No overloads for "__init__" match the provided arguments', rule: "reportCallIssue" }]);
      const integrationInputs = EXAMPLES.flatMap(({ kind, program }) => Object.values(program.resources).filter((r) => "integration" in r.properties).map(() => `${kind}.py`));
      const known = errors.filter((e) => e.file !== "misspelt.py" && OUTPUT_AS_INPUT.test(e.message));
      expect(known.map((e) => e.file).sort()).toEqual(integrationInputs.sort());
      expect(errors.filter((e) => e.file !== "misspelt.py" && !OUTPUT_AS_INPUT.test(e.message))).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
