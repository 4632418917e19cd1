/**
 * The pattern every e2e test follows: a program from disk, run by the real Pulumi CLI through
 * the Automation API, with a `file://` backend in a temp folder and passphrase secrets; nothing
 * leaves loopback. `stackFor` returns the stack plus a `cleanup` for `finally`; `useEmulatorStack`
 * is the set-up most files share: an emulator and a stack on it for a whole describe block.
 */
import { execFile, execFileSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { LocalWorkspace, PulumiCommand, type ConfigMap, type EngineEvent, type Stack, type UpdateSummary } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, expect, inject } from "vitest";
import ts from "typescript";
import * as YAML from "yaml";
import { generateSdk, yamlLanguageHost } from "../../scripts/sdk.mts";
import { copyProgram, pulumiEnv } from "../../scripts/workspace.mts";
import type { EmulatorHandle } from "../../src/emulator";
import { SECRET, SIG } from "../../src/provider/kit";
import { branchSnapshot, emulator, fullSetupConfig, neonConfig, outOfBand, projectConfig } from "./neon";

export const PASSPHRASE = "e2e-passphrase-not-a-secret";

export interface E2eStack {
  stack: Stack;
  /** The folder the program runs in (a copy of the source program). */
  dir: string;
  /** The file backend's folder. */
  backendDir: string;
  env: Record<string, string>;
  /** Writes the program's JavaScript before an engine command (`compileProgram`), unless `StackOptions.asWritten`. */
  compile(): void;
  /**
   * Runs the Pulumi CLI on this stack, as a user would, and returns its stdout (for what the
   * Automation API does not offer, or does differently: its exportStack decrypts secrets).
   */
  cli(...args: string[]): string;
  /**
   * The same, without blocking: for a command that calls the API, which the emulator in this
   * process can only answer while the event loop runs.
   */
  run(...args: string[]): Promise<string>;
  /** Destroys what is left (best effort) and removes the stack and its folders. */
  cleanup(): Promise<void>;
}

export interface StackOptions {
  /** Folder of the program (Pulumi.yaml, index.ts, package.json), copied before running. */
  program: string;
  stackName?: string;
  config?: ConfigMap;
  env?: Record<string, string>;
  /** Share a backend between stacks (per-environment tests). */
  backendDir?: string;
  /** Where the program runs (scripts/workspace.mts); default: the run's pinned workspace. */
  workspace?: string;
  /** Run a TypeScript program through the engine's TypeScript, as a user's runs (`compileProgram`). */
  asWritten?: boolean;
}

/**
 * The CLI, asked its version once per file: the Automation API otherwise runs `pulumi version` for
 * every workspace, a CLI start (about 0.3 s of a core) that says nothing new.
 */
let pulumiCommand: Promise<PulumiCommand> | undefined;

export async function stackFor(opts: StackOptions): Promise<E2eStack> {
  const dir = copyProgram(opts.workspace ?? inject("e2eWorkspace"), opts.program);
  const ownBackend = opts.backendDir === undefined;
  const backendDir = opts.backendDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-state-"));
  const env: Record<string, string> = { ...pulumiEnv(backendDir, PASSPHRASE), ...opts.env };
  const args = { stackName: opts.stackName ?? "e2e", workDir: dir };
  const wsOpts = { envVars: env, pulumiCommand: await (pulumiCommand ??= PulumiCommand.get()) };
  // A backend of its own is empty: `stack init` alone, not the select that fails first.
  const stack = ownBackend ? await LocalWorkspace.createStack(args, wsOpts) : await LocalWorkspace.createOrSelectStack(args, wsOpts);
  const compile = () => {
    if (opts.asWritten !== true) compileProgram(dir);
  };
  for (const op of ["up", "preview", "refresh", "destroy", "import"] as const) {
    const run = stack[op].bind(stack) as (...a: unknown[]) => Promise<unknown>;
    (stack as unknown as Record<string, unknown>)[op] = async (...a: unknown[]) => (compile(), run(...a));
  }
  // Config goes straight into the stack's settings file, as `pulumi config set` writes it: each
  // such command is a CLI start (about 0.45 s of a core) and the tests set config some 300 times.
  // A `path` key (`a.b[0]`) is the CLI's to parse.
  const settings = stackSettings(dir, stack.name, env.PULUMI_CONFIG_PASSPHRASE ?? "");
  const cliConfig = { set: stack.setAllConfig.bind(stack), remove: stack.removeAllConfig.bind(stack) };
  stack.setAllConfig = async (config, path) => {
    if (path || !settings.set(config)) await cliConfig.set(config, path);
  };
  stack.setConfig = async (key, value, path) => stack.setAllConfig({ [key]: value }, path);
  stack.removeAllConfig = async (keys, path) => {
    if (path || !settings.remove(keys)) await cliConfig.remove(keys, path);
  };
  stack.removeConfig = async (key, path) => stack.removeAllConfig([key], path);
  if (opts.config) await stack.setAllConfig(opts.config);
  // After each up, refresh and destroy the Automation API reads the summary back with `pulumi stack
  // history` (a CLI start, about 0.45 s of a core); the file backend holds the same record.
  const files = backendFiles(backendDir, dir, stack.name);
  stack.info = async () => lastUpdate(files);
  // And its outputs with two more (masked, then shown): read from the checkpoint, secrets decrypted,
  // unless one holds another special value, which only the CLI renders.
  const cliOutputs = stack.outputs.bind(stack);
  stack.outputs = async () => checkpointOutputs(files, env.PULUMI_CONFIG_PASSPHRASE ?? "") ?? cliOutputs();
  // And `stack export`, which tests read state with (a CLI start each): the file backend exports
  // its checkpoint's deployment as it is written, secrets still encrypted.
  const cliExport = stack.exportStack.bind(stack);
  stack.exportStack = async () => {
    const deployment = checkpoint(files);
    return deployment === undefined ? cliExport() : { version: 3, deployment };
  };
  return {
    stack,
    dir,
    backendDir,
    env,
    compile,
    cli: (...args) => (
      compile(),
      execFileSync("pulumi", [...args, "--cwd", dir, "--stack", stack.name], {
        env: { ...process.env, ...env },
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      })
    ),
    run: async (...args) => (
      compile(),
      (
        await promisify(execFile)("pulumi", [...args, "--cwd", dir, "--stack", stack.name], {
          env: { ...process.env, ...env },
          encoding: "utf8",
          maxBuffer: 64 * 1024 * 1024,
        })
      ).stdout
    ),
    async cleanup() {
      // Most tests end with their own destroy: a second one (and the history read after it) would
      // cost two CLI runs to find nothing.
      if (holdsResources(files)) {
        try {
          await stack.destroy({ color: "never" });
        } catch {
          // Already gone or never created; the test's own assertions say what matters.
        }
      }
      // A backend of its own goes with its folder below; a shared one keeps its other stacks.
      if (!ownBackend) {
        try {
          await stack.workspace.removeStack(stack.name, { force: true });
        } catch {
          // Already removed by the test.
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
      if (ownBackend) fs.rmSync(backendDir, { recursive: true, force: true });
    },
  };
}

/**
 * A TypeScript program's engine runs the JavaScript TypeScript writes beside each `.ts` file (its
 * Pulumi.yaml set to `typescript: false`): loading TypeScript's compiler into every program costs
 * about 0.3 s of a core at each up, preview and refresh, and `tsc` checks these programs' types in
 * `make test` already. Run before every engine command, so that a `.ts` file a test writes runs as
 * written. The programs a user types (install.test.ts, the READMEs) keep the engine's TypeScript.
 */
export function compileProgram(dir: string): void {
  const settings = path.join(dir, "Pulumi.yaml");
  const project = YAML.parse(fs.readFileSync(settings, "utf8"));
  const runtime = typeof project.runtime === "string" ? { name: project.runtime } : project.runtime;
  if (runtime?.name !== "nodejs") return;
  const sources = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => /(?<!\.d)\.ts$/.test(f) && !/(^|\/)(node_modules|\.)/.test(f));
  if (sources.length === 0) return;
  for (const source of sources) {
    const from = path.join(dir, source);
    const to = from.replace(/\.ts$/, ".js");
    if (fs.existsSync(to) && fs.statSync(to).mtimeMs >= fs.statSync(from).mtimeMs) continue;
    fs.writeFileSync(to, ts.transpileModule(fs.readFileSync(from, "utf8"), { fileName: from, compilerOptions: TRANSPILED }).outputText);
  }
  if (runtime.options?.typescript !== false) {
    fs.writeFileSync(settings, YAML.stringify({ ...project, runtime: { ...runtime, options: { ...runtime.options, typescript: false } } }));
  }
  const manifest = path.join(dir, "package.json");
  const pkg = fs.existsSync(manifest) ? JSON.parse(fs.readFileSync(manifest, "utf8")) : {};
  if (typeof pkg.main === "string" && pkg.main.endsWith(".ts")) fs.writeFileSync(manifest, JSON.stringify({ ...pkg, main: pkg.main.replace(/\.ts$/, ".js") }, null, 2));
}

/** What `@pulumi/pulumi` gives ts-node for a CommonJS program with no tsconfig (cmd/run). */
const TRANSPILED: ts.CompilerOptions = { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS };

/** Where the file backend keeps a stack: its checkpoint and its history folder. */
interface BackendFiles {
  checkpoint: string;
  history: string;
  stack: string;
}

/** The project the program's Pulumi.yaml names. */
function projectName(programDir: string): string {
  return /^name:\s*(\S+)/m.exec(fs.readFileSync(path.join(programDir, "Pulumi.yaml"), "utf8"))![1]!;
}

/** A stack's files in the file backend, under the project the program's Pulumi.yaml names. */
function backendFiles(backendDir: string, programDir: string, stack: string): BackendFiles {
  const project = projectName(programDir);
  return {
    checkpoint: path.join(backendDir, ".pulumi", "stacks", project, `${stack}.json`),
    history: path.join(backendDir, ".pulumi", "history", project, stack),
    stack,
  };
}

/**
 * The newest entry of a stack's history (`<stack>-<unix ns>.history.json`): the record `pulumi
 * stack history` prints, with its times as dates.
 */
function lastUpdate(files: BackendFiles): UpdateSummary | undefined {
  if (!fs.existsSync(files.history)) return undefined;
  const at = (f: string) => BigInt(f.slice(files.stack.length + 1, -".history.json".length));
  const newest = fs
    .readdirSync(files.history)
    .filter((f) => f.endsWith(".history.json"))
    .reduce<string | undefined>((a, f) => (a === undefined || at(f) > at(a) ? f : a), undefined);
  if (newest === undefined) return undefined;
  const entry = JSON.parse(fs.readFileSync(path.join(files.history, newest), "utf8"));
  return { ...entry, startTime: new Date(entry.startTime * 1000), endTime: new Date(entry.endTime * 1000) };
}

/**
 * Whether the file backend holds anything of the stack a destroy would act on: a resource other
 * than the Stack itself and its providers, or an operation left pending by an interrupted run.
 */
function holdsResources(files: BackendFiles): boolean {
  const latest = checkpoint(files);
  const kept = (latest?.resources ?? []).filter((r) => r.type !== "pulumi:pulumi:Stack" && !r.type.startsWith("pulumi:providers:"));
  return kept.length > 0 || (latest?.pending_operations ?? []).length > 0;
}

interface Checkpoint {
  resources?: { type: string; outputs?: Record<string, unknown> }[];
  pending_operations?: unknown[];
}

/** The stack's last written state; none before its first update. */
function checkpoint(files: BackendFiles): Checkpoint | undefined {
  return fs.existsSync(files.checkpoint) ? JSON.parse(fs.readFileSync(files.checkpoint, "utf8")).checkpoint?.latest : undefined;
}


/**
 * The stack's outputs as the Automation API reads them (`stack output --json`, masked then with
 * `--show-secrets`: two CLI starts after every up), from the checkpoint: a secret decrypted as the
 * CLI does (below), and marked secret when the whole output is. Undefined when an output holds
 * another special value (a resource reference, an asset), which only the CLI renders.
 */
function checkpointOutputs(files: BackendFiles, passphrase: string): Record<string, { value: unknown; secret: boolean }> | undefined {
  const latest = checkpoint(files) as (Checkpoint & { secrets_providers?: { type: string; state?: { salt?: string } } }) | undefined;
  const outputs = latest?.resources?.find((r) => r.type === "pulumi:pulumi:Stack")?.outputs ?? {};
  const salt = latest?.secrets_providers?.type === "passphrase" ? latest.secrets_providers.state?.salt : undefined;
  const reveal = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(reveal);
    if (v === null || typeof v !== "object") return v;
    const o = v as Record<string, unknown>;
    if (o[SIG] === SECRET && typeof o.ciphertext === "string" && salt !== undefined) return reveal(JSON.parse(decrypt(o.ciphertext, passphrase, salt)));
    if (SIG in o) throw new Error("a value only the CLI renders");
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, reveal(x)]));
  };
  try {
    return Object.fromEntries(
      Object.entries(outputs).map(([k, v]) => [k, { value: reveal(v), secret: (v as Record<string, unknown> | null)?.[SIG] === SECRET }]),
    );
  } catch {
    return undefined;
  }
}

/** Passphrase keys by passphrase and salt: deriving one costs 0.13 s of a core, once per stack. */
const passphraseKeys = new Map<string, Buffer>();

function passphraseKey(passphrase: string, salt: string): Buffer {
  const id = `${passphrase}\0${salt}`;
  let key = passphraseKeys.get(id);
  if (key === undefined) passphraseKeys.set(id, (key = crypto.pbkdf2Sync(passphrase, Buffer.from(salt.split(":")[1]!, "base64"), 1_000_000, 32, "sha256")));
  return key;
}

/**
 * A stack's settings file (`Pulumi.<stack>.yaml`) edited as `pulumi config set` and `config rm`
 * edit it: a key without a namespace in the project's, every value a string, a secret sealed
 * under the passphrase and the salt `stack init` wrote there (`encryptionsalt`).
 */
function stackSettings(programDir: string, stack: string, passphrase: string): { set(config: ConfigMap): boolean; remove(keys: string[]): boolean } {
  const file = path.join(programDir, `Pulumi.${stack}.yaml`);
  const project = projectName(programDir);
  const qualified = (key: string) => (key.includes(":") ? key : `${project}:${key}`);
  // False where the file has no salt yet (a stack selected in a new folder): the CLI's to write.
  const edit = (change: (config: Record<string, unknown>, salt: string) => void): boolean => {
    const doc = fs.existsSync(file) ? ((YAML.parse(fs.readFileSync(file, "utf8")) ?? {}) as { encryptionsalt?: string; config?: Record<string, unknown> }) : {};
    if (doc.encryptionsalt === undefined) return false;
    const config = doc.config ?? {};
    change(config, doc.encryptionsalt);
    fs.writeFileSync(file, YAML.stringify({ ...doc, config }));
    return true;
  };
  return {
    set: (values) =>
      edit((config, salt) => {
        for (const [key, { value, secret }] of Object.entries(values)) config[qualified(key)] = secret ? { secure: encrypt(value, passphrase, salt) } : value;
      }),
    remove: (keys) =>
      edit((config) => {
        for (const key of keys) delete config[qualified(key)];
      }),
  };
}

/** The inverse of `decrypt`: a fresh nonce, the ciphertext with its tag appended. */
function encrypt(plaintext: string, passphrase: string, salt: string): string {
  const nonce = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", passphraseKey(passphrase, salt), nonce);
  const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `v1:${nonce.toString("base64")}:${sealed.toString("base64")}`;
}

/**
 * A secret of a passphrase stack, as Pulumi's passphrase secrets manager encrypts it: AES-256-GCM
 * (`v1:<nonce>:<ciphertext and tag>`, base64) under PBKDF2-SHA256 of the passphrase and the salt
 * its state records (`v1:<salt>:…`), 1,000,000 rounds.
 */
function decrypt(ciphertext: string, passphrase: string, salt: string): string {
  const [, nonce, sealed] = ciphertext.split(":") as [string, string, string];
  const bytes = Buffer.from(sealed, "base64");
  const decipher = crypto.createDecipheriv("aes-256-gcm", passphraseKey(passphrase, salt), Buffer.from(nonce, "base64"));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString("utf8");
}

/**
 * A test's own emulator, seeded with `project` (its default branch `br-main-<project>`), and a stack
 * on it from `stack`; both are torn down after `test`, whatever happens. `emulatorOptions` as in `emulator`.
 */
export async function onFreshEmulator<T>(
  project: string,
  stack: (em: EmulatorHandle, branch: string) => Promise<E2eStack>,
  test: (s: { em: EmulatorHandle; e2e: E2eStack; branch: string }) => Promise<T>,
  emulatorOptions: Omit<NonNullable<Parameters<typeof emulator>[0]>, "seedProjects"> = {},
): Promise<T> {
  const branch = `br-main-${project}`;
  const em = await emulator({ seedProjects: [`${project}:${branch}`], ...emulatorOptions });
  let e2e: E2eStack | undefined;
  try {
    e2e = await stack(em, branch);
    return await test({ em, e2e, branch });
  } finally {
    await e2e?.cleanup();
    await em.close();
  }
}

/**
 * A stack on the neon-auth provider plugin, with the plugin's SDK for the program's language
 * generated into the program (`sdk/`) from the checkout's schema. The plugin is found on PATH,
 * where installing the package puts it; Go resolves its modules through the proxy.
 */
export async function pluginStack(opts: StackOptions, language: "nodejs" | "go" | "yaml"): Promise<E2eStack> {
  const bins = [path.join(inject("e2eWorkspace"), "node_modules", ".bin"), ...(language === "yaml" ? [yamlLanguageHost()] : []), process.env.PATH];
  const go: Record<string, string> = language === "go" ? { GOFLAGS: "-mod=mod -buildvcs=false", GOTOOLCHAIN: "local" } : {};
  const e2e = await stackFor({ ...opts, env: { ...opts.env, PATH: bins.join(path.delimiter), ...go } });
  // A YAML program needs no SDK: its host reads the schema from the plugin.
  if (language !== "yaml") generateSdk(language, language === "go" ? path.join(e2e.dir, "sdk", "go") : path.join(e2e.dir, "sdk"));
  return e2e;
}

/**
 * The README's move of a stack of the classes onto the plugin (`pulumi stack export`,
 * `neon-auth-import --move-to-plugin`, `pulumi stack import`), then test/e2e/programs/plugin
 * switched to the plugin's SDK under the same names (`surface: plugin`).
 */
export async function moveToPlugin(e2e: E2eStack): Promise<void> {
  const exported = path.join(e2e.dir, "dynamic.json");
  const moved = path.join(e2e.dir, "plugin.json");
  e2e.cli("stack", "export", "--file", exported);
  const mover = path.join(inject("e2eWorkspace"), "node_modules", ".bin", "neon-auth-import");
  fs.writeFileSync(moved, (await promisify(execFile)(mover, ["--move-to-plugin", exported], { encoding: "utf8" })).stdout);
  e2e.cli("stack", "import", "--file", moved);
  await e2e.stack.setConfig("surface", { value: "plugin" });
}

/** The lines of `preview --diff` that name a changed field (`~ appName: "One" => "Two"`), stack outputs aside. */
export function changedFields(out: string): string[] {
  return out
    .split(/^\s*--outputs:--$/m)[0]!
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /^[~+-] \w+: /.test(l))
    .map((l) => l.replace(/^([~+-] \w+):.*$/, "$1"))
    .sort();
}

/** Asserts nothing but `same` in a change summary (a preview or refresh that changes nothing). */
export function changesOf(summary: Record<string, number> | undefined): Record<string, number> {
  const changes: Record<string, number> = {};
  for (const [op, n] of Object.entries(summary ?? {})) if (op !== "same" && n > 0) changes[op] = n;
  return changes;
}

/** How every e2e ends: a second preview and a refresh that change nothing (with `same`, the preview counts that many resources). */
export async function expectNoChanges(stack: Stack, same?: number): Promise<void> {
  const preview = await stack.preview({ color: "never", expectNoChanges: true });
  expect(changesOf(preview.changeSummary)).toEqual({});
  if (same !== undefined) expect(preview.changeSummary).toEqual({ same });
  const refresh = await stack.refresh({ color: "never", expectNoChanges: true });
  expect(changesOf(refresh.summary.resourceChanges)).toEqual({});
}

/**
 * The rest of a plugin branch stack's life, the same in every language (its NeonAuth, one trusted
 * domain and an OAuth provider with a secret: 4 with the Stack): `rename` changes the app's name to
 * `appName` and the preview names exactly that field; the domain removed outside the stack is
 * dropped by refresh and made again by up; the secret is nowhere in the state file; destroy.
 */
export async function updateDriftDestroy(
  { em, e2e, project, branch }: { em: EmulatorHandle; e2e: E2eStack; project: string; branch: string },
  o: { rename: () => Promise<void>; appName: string; domain: string; secret: string },
): Promise<void> {
  await o.rename();
  expect(changedFields(e2e.cli("preview", "--diff", "--color", "never"))).toEqual(["~ appName"]);
  expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ update: 1, same: 3 });
  expect((await branchSnapshot(em, project, branch)).auth?.name).toBe(o.appName);

  expect(await outOfBand(em, "DELETE", `/projects/${project}/branches/${branch}/auth/domains`, { auth_provider: "better_auth", domains: [{ domain: o.domain }] })).toBe(200);
  expect(changesOf((await e2e.stack.refresh({ color: "never" })).summary.resourceChanges)).toEqual({ delete: 1 });
  expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ create: 1, same: 3 });
  await expectNoChanges(e2e.stack, 4);

  const stacks = path.join(e2e.backendDir, ".pulumi", "stacks");
  for (const project of fs.readdirSync(stacks)) expect(fs.readFileSync(path.join(stacks, project, `${e2e.stack.name}.json`), "utf8")).not.toContain(o.secret);

  expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 4 });
  expect((await branchSnapshot(em, project, branch)).auth).toBeUndefined();
}

export interface EmulatorStack {
  em: EmulatorHandle;
  e2e: E2eStack;
}

export interface EmulatorStackOptions {
  emulator: Parameters<typeof emulator>[0];
  /** What exists before the stack does (objects made "in the console"). */
  prepare?: (em: EmulatorHandle) => Promise<void>;
  /** The stack; none for files whose tests make their own. */
  stack?: (em: EmulatorHandle) => StackOptions;
  /** Runs once set-up is done: hands the emulator and the stack to the file's variables. */
  ready?: (s: EmulatorStack) => void;
  /** Runs first at teardown (the stack is still there), e.g. to switch faults off. */
  beforeTeardown?: (s: EmulatorStack) => void | Promise<void>;
  /** Runs between the stack's cleanup and the emulator's close, e.g. to read its figures. */
  afterCleanup?: (em: EmulatorHandle) => void | Promise<void>;
}

/**
 * Starts an emulator (then `prepare`, then the stack) before the tests of the calling describe
 * block, and after them destroys the stack and closes the emulator, whatever part of the set-up
 * failed. Without `stack`, `ready` gets no `e2e` (its type says it does: such files never read it).
 * The object returned is filled in at the same moment, for blocks that read `s.em` and `s.e2e`
 * rather than declaring variables for `ready` to set.
 */
export function useEmulatorStack(opts: EmulatorStackOptions): EmulatorStack {
  const ready = {} as EmulatorStack;
  let em: EmulatorHandle | undefined;
  let e2e: E2eStack | undefined;
  beforeAll(async () => {
    em = await emulator(opts.emulator);
    await opts.prepare?.(em);
    if (opts.stack) e2e = await stackFor(opts.stack(em));
    Object.assign(ready, { em, e2e });
    opts.ready?.(ready);
  });
  afterAll(async () => {
    try {
      if (em) await opts.beforeTeardown?.({ em, e2e: e2e as E2eStack });
      await e2e?.cleanup();
      if (em) await opts.afterCleanup?.(em);
    } finally {
      await em?.close();
    }
  });
  return ready;
}

/**
 * For `useEmulatorStack`: the files whose stack runs one of test/e2e/programs on one seeded project
 * differ only in the program, the project, its secrets and the emulator's options, so the seed,
 * the program's folder and the config are written here once. The stack is on the project's
 * default branch (`br-main-<project>`); `without` lists the parts all-kinds leaves out.
 */
export function programOnProject(
  program: string,
  project: string,
  o: { secrets?: Record<string, string>; without?: string[]; emulator?: EmulatorStackOptions["emulator"] } = {},
): Pick<EmulatorStackOptions, "emulator" | "stack"> {
  const branch = `br-main-${project}`;
  const without: ConfigMap = o.without === undefined ? {} : { without: { value: JSON.stringify(o.without) } };
  return {
    emulator: { seedProjects: [`${project}:${branch}`], ...o.emulator },
    stack: (em) => ({
      program: path.join(__dirname, "programs", program),
      config: { ...neonConfig(em), ...projectConfig(project, branch, o.secrets), ...without },
    }),
  };
}

/**
 * One backend for several stacks, as a team's environments share one: the fixture's stack takes
 * `dir`, the others come from `stack`. Spread into `useEmulatorStack`, the teardown keeps the one
 * order that works: the other stacks, then the fixture's, then the folder.
 */
export function sharedBackend() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-backend-"));
  const others: E2eStack[] = [];
  const teardown = {
    beforeTeardown: async () => {
      for (const s of others) await s.cleanup();
    },
    afterCleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  } satisfies Pick<EmulatorStackOptions, "beforeTeardown" | "afterCleanup">;
  return {
    dir,
    async stack(opts: Omit<StackOptions, "backendDir">): Promise<E2eStack> {
      const s = await stackFor({ ...opts, backendDir: dir });
      others.push(s);
      return s;
    },
    teardown,
    /** `useEmulatorStack` with the fixture's stack on this backend, torn down in that order. */
    use(opts: Omit<EmulatorStackOptions, "stack" | "beforeTeardown" | "afterCleanup"> & { stack: (em: EmulatorHandle) => Omit<StackOptions, "backendDir"> }): EmulatorStack {
      return useEmulatorStack({ ...opts, stack: (em) => ({ ...opts.stack(em), backendDir: dir }), ...teardown });
    },
  };
}

/**
 * The emulator and stack of examples/full-setup on one seeded project at Neon's rate limits, for
 * `useEmulatorStack`; `faults` as in `startEmulator`.
 */
export function fullSetup(
  o: Parameters<typeof fullSetupConfig>[1] & { faults?: string },
): Pick<EmulatorStackOptions, "emulator" | "stack"> {
  const { faults, ...config } = o;
  return {
    emulator: { seedProjects: [`${o.project}:${o.branch}`], rateLimit: "spec", ...(faults === undefined ? {} : { faults }) },
    stack: (em) => ({ program: path.resolve(__dirname, "../../examples/full-setup"), config: fullSetupConfig(em, config) }),
  };
}

/**
 * SIGKILL of a process and every process under it, as when a CI job is cancelled (plugins run in
 * process groups of their own, so a group kill would miss them): the tree is read from /proc first.
 */
export function killTree(pid: number): void {
  const parents = new Map<number, number>();
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      parents.set(Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const tree = [pid];
  const walk = (p: number) => {
    for (const [child, parent] of parents) if (parent === p) (tree.push(child), walk(child));
  };
  walk(pid);
  for (const p of tree) {
    try {
      process.kill(p, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** Resource failures of one operation, from the engine's events: `urn → message`. */
export function failureCollector() {
  const failures = new Map<string, string>();
  const onEvent = (e: EngineEvent) => {
    const d = e.diagnosticEvent;
    if (d && d.severity === "error" && d.urn && !d.urn.includes("::pulumi:pulumi:Stack::")) failures.set(d.urn, d.message);
  };
  return { failures, onEvent };
}

/** The policy pack as the README has users run it, from the program's folder. */
export const POLICY_PACK = "node_modules/pulumi-neon-auth/policy";

/**
 * Gives the program's folder a `node_modules` (a link to the workspace's), where a user's project
 * has the package installed, so that `--policy-pack node_modules/pulumi-neon-auth/policy` runs as
 * the README writes it. Node resolves through the link to the same files the program loads.
 */
export function linkNodeModules(e2e: E2eStack): void {
  fs.symlinkSync(path.join(inject("e2eWorkspace"), "node_modules"), path.join(e2e.dir, "node_modules"));
}

/** A Pulumi command on the stack that may fail, as a pipeline runs it: its exit code and its output. */
export async function attempt(e2e: E2eStack, ...args: string[]): Promise<{ code: number; out: string }> {
  e2e.compile();
  try {
    const { stdout, stderr } = await promisify(execFile)("pulumi", [...args, "--cwd", e2e.dir, "--stack", e2e.stack.name, "--color", "never"], {
      env: { ...process.env, ...e2e.env },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof e.code !== "number") throw err;
    return { code: e.code, out: (e.stdout ?? "") + (e.stderr ?? "") };
  }
}

/** The policy violations the CLI lists under "Policies:", as `[level] rule (type: name)`, sorted. */
export function policyViolations(out: string): string[] {
  return [...out.matchAll(/^\s+- \[(advisory|mandatory)\]\s+(\S+)\s+\((.+)\)$/gm)].map((m) => `[${m[1]}] ${m[2]} (${m[3]})`).sort();
}
