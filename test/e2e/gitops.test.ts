/**
 * examples/gitops/pipeline.sh run locally against the emulator: preview, up, a clean drift
 * check, a change made outside the pipeline that the drift check must report, and recovery.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { useEmulatorStack, type E2eStack } from "./harness";
import { API_KEY, branchSnapshot, neonConfig, outOfBand } from "./neon";

const PIPELINE = path.resolve(__dirname, "../../examples/gitops/pipeline.sh");
const PROGRAM = path.resolve(__dirname, "../../examples/per-environment");

describe("GitOps pipeline script (examples/gitops)", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;

  useEmulatorStack({
    emulator: { seedProjects: ["p-dev:br-main-p-dev"] },
    stack: (em) => ({
      program: PROGRAM,
      stackName: "dev",
      config: neonConfig(em),
    }),
    ready: (s) => ({ em, e2e } = s),
  });

  // Asynchronous on purpose: the emulator answers from this process's event loop.
  function pipeline(step: string): Promise<{ status: number | null; out: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn("bash", [PIPELINE, step, "dev"], {
        env: { ...process.env, ...e2e.env, PROGRAM_DIR: e2e.dir },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      child.on("error", reject);
      child.on("close", (status) => resolve({ status, out }));
    });
  }

  it("previews, applies, and finds no drift", async () => {
    const preview = await pipeline("preview");
    expect(preview.status, preview.out).toBe(0);
    // The stack, the NeonAuth, a domain, Google, the email server and one admin.
    expect(preview.out).toContain("6 to create");
    expect(preview.out).not.toContain(API_KEY);

    const up = await pipeline("up");
    expect(up.status, up.out).toBe(0);
    expect(up.out).toContain("6 created");

    const drift = await pipeline("drift");
    expect(drift.status, drift.out).toBe(0);
    expect(drift.out).toContain("no drift: stack dev matches Neon");
  });

  it("reports a change made outside the pipeline, and up restores it", async () => {
    const status = await outOfBand(em, "DELETE", "/projects/p-dev/branches/br-main-p-dev/auth/domains", {
      auth_provider: "better_auth",
      domains: [{ domain: "https://dev.example.com" }],
    });
    expect(status).toBe(200);

    const drift = await pipeline("drift");
    expect(drift.status, drift.out).toBe(3);
    expect(drift.out).toContain("domain-dev.example.com");
    expect(drift.out).toContain("DRIFT: stack dev differs from what Neon has");

    const up = await pipeline("up");
    expect(up.status, up.out).toBe(0);
    expect(up.out).toContain("1 created");
    expect((await branchSnapshot(em, "p-dev", "br-main-p-dev")).domains).toEqual(["https://dev.example.com"]);

    const clean = await pipeline("drift");
    expect(clean.status, clean.out).toBe(0);
  });
});
