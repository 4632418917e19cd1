/**
 * The pattern every e2e test follows: a program from disk, run by the real Pulumi CLI through
 * the Automation API, with a `file://` backend in a temp folder and passphrase secrets; nothing
 * leaves loopback. `stackFor` returns the stack plus a `cleanup` for `finally`.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LocalWorkspace, type ConfigMap, type Stack } from "@pulumi/pulumi/automation";
import { expect, inject } from "vitest";
import { copyProgram, pulumiEnv } from "../../scripts/workspace.mts";

export const PASSPHRASE = "e2e-passphrase-not-a-secret";

export interface E2eStack {
  stack: Stack;
  /** The folder the program runs in (a copy of the source program). */
  dir: string;
  /** The file backend's folder. */
  backendDir: string;
  env: Record<string, string>;
  /**
   * Runs the Pulumi CLI on this stack, as a user would, and returns its stdout (for what the
   * Automation API does not offer, or does differently: its exportStack decrypts secrets).
   */
  cli(...args: string[]): string;
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
}

export async function stackFor(opts: StackOptions): Promise<E2eStack> {
  const dir = copyProgram(opts.workspace ?? inject("e2eWorkspace"), opts.program);
  const ownBackend = opts.backendDir === undefined;
  const backendDir = opts.backendDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-state-"));
  const env: Record<string, string> = { ...pulumiEnv(backendDir, PASSPHRASE), ...opts.env };
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: opts.stackName ?? "e2e", workDir: dir },
    { envVars: env },
  );
  if (opts.config) await stack.setAllConfig(opts.config);
  return {
    stack,
    dir,
    backendDir,
    env,
    cli: (...args) =>
      execFileSync("pulumi", [...args, "--cwd", dir, "--stack", stack.name], {
        env: { ...process.env, ...env },
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      }),
    async cleanup() {
      try {
        await stack.destroy({ color: "never" });
      } catch {
        // Already gone or never created; the test's own assertions say what matters.
      }
      try {
        await stack.workspace.removeStack(stack.name, { force: true });
      } catch {
        // The backend folder goes below anyway.
      }
      fs.rmSync(dir, { recursive: true, force: true });
      if (ownBackend) fs.rmSync(backendDir, { recursive: true, force: true });
    },
  };
}

/** Asserts nothing but `same` in a change summary (a preview or refresh that changes nothing). */
export function changesOf(summary: Record<string, number> | undefined): Record<string, number> {
  const changes: Record<string, number> = {};
  for (const [op, n] of Object.entries(summary ?? {})) if (op !== "same" && n > 0) changes[op] = n;
  return changes;
}

/** How every e2e ends: a second preview and a refresh that change nothing. */
export async function expectNoChanges(stack: Stack): Promise<void> {
  const preview = await stack.preview({ color: "never", expectNoChanges: true });
  expect(changesOf(preview.changeSummary)).toEqual({});
  const refresh = await stack.refresh({ color: "never", expectNoChanges: true });
  expect(changesOf(refresh.summary.resourceChanges)).toEqual({});
}
