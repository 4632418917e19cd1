/**
 * examples/per-environment: dev and staging stacks of one NeonAuth program against one emulator;
 * each manages only its own branch, and tearing one down leaves the other as it was. dev goes
 * through examples/gitops/pipeline.sh as CI runs it: preview, up, a drift check that reports a
 * change made outside the pipeline, up to restore it, and a clean drift check.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { expectNoChanges, sharedBackend, type E2eStack } from "./harness";
import { API_KEY, branchSnapshot, branchState, branchUserRows, neonConfig, outOfBand, secretConfig } from "./neon";

const PROGRAM = path.resolve(__dirname, "../../examples/per-environment");
const PIPELINE = path.resolve(__dirname, "../../examples/gitops/pipeline.sh");

describe("per-environment stacks (examples/per-environment), dev through the GitOps pipeline (examples/gitops)", () => {
  let em: EmulatorHandle, dev: E2eStack, staging: E2eStack;
  const backend = sharedBackend();

  backend.use({
    emulator: { seedProjects: ["p-dev:br-main-p-dev", "p-staging:br-main-p-staging", "p-prod:br-main-p-prod"] },
    stack: (em) => ({ program: PROGRAM, stackName: "dev", config: neonConfig(em) }),
    ready: (s) => ({ em, e2e: dev } = s),
  });

  beforeAll(async () => {
    staging = await backend.stack({
      program: PROGRAM,
      stackName: "staging",
      config: {
        ...neonConfig(em),
        ...secretConfig({ googleClientSecret: "staging-google-secret-51c0", githubClientSecret: "staging-github-secret-8a2f", smtpPassword: "staging-smtp-pw-0e6d" }),
      },
    });
  });

  // Asynchronous on purpose: the emulator answers from this process's event loop.
  function pipeline(step: string): Promise<{ status: number | null; out: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn("bash", [PIPELINE, step, "dev"], {
        env: { ...process.env, ...dev.env, PROGRAM_DIR: dev.dir },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      child.on("error", reject);
      child.on("close", (status) => resolve({ status, out }));
    });
  }

  /** The counts of each change summary a pipeline step printed (`    6 unchanged`, `+ 1 to create`), in order. */
  const summaries = (out: string) => [...out.matchAll(/^\s+[+~-]? ?(\d+ (?:unchanged|to create|created|deleted|to delete|to update|updated))$/gm)].map((m) => m[1]);

  const devState = branchState({ name: "Example (dev)", localhost: true, verification: false, providers: { google: "shared" }, domains: ["https://dev.example.com"], email: { type: "shared" } });
  const stagingEmail = { type: "standard", host: "smtp.example.com", port: 587, username: "staging", password: "", sender_email: "auth-staging@example.com", sender_name: "Example (staging)" };
  const stagingDomains = ["https://*.preview.example.com", "https://staging.example.com"];
  const stagingState = branchState({ name: "Example (staging)", localhost: false, verification: true, providers: { github: "standard", google: "standard" }, domains: stagingDomains, email: stagingEmail });
  const users = async (project: string) => (await branchUserRows(em, project, `br-main-${project}`)).map(({ email, name, role }) => ({ email, name, role }));

  it("deploys dev (through the pipeline) and staging, each onto its own branch only", async () => {
    const preview = await pipeline("preview");
    expect(preview.status, preview.out).toBe(0);
    // The stack, the NeonAuth, a domain, Google, the email server and one admin.
    expect(preview.out).toContain("6 to create");
    expect(preview.out).not.toContain(API_KEY);
    const upDev = await pipeline("up");
    expect(upDev.status, upDev.out).toBe(0);
    expect(upDev.out).toContain("6 created");
    expect((await dev.stack.outputs()).environment).toEqual({ value: "dev", secret: false });
    const upStaging = await staging.stack.up({ color: "never" });
    // The stack, the NeonAuth, two domains, Google, GitHub and the email server.
    expect(upStaging.summary.resourceChanges).toEqual({ create: 7 });

    expect(await branchSnapshot(em, "p-dev", "br-main-p-dev")).toEqual(devState);
    expect(await users("p-dev")).toEqual([{ email: "dev-admin@example.com", name: "", role: "admin" }]);
    expect(await branchSnapshot(em, "p-staging", "br-main-p-staging")).toEqual(stagingState);
    expect(await users("p-staging")).toEqual([]);
    // prod was never deployed: its branch has no auth at all.
    expect((await branchSnapshot(em, "p-prod", "br-main-p-prod")).auth).toBeUndefined();
  });

  it("the drift check reports a change made outside the pipeline, up restores it, then no drift", async () => {
    const status = await outOfBand(em, "DELETE", "/projects/p-dev/branches/br-main-p-dev/auth/domains", {
      auth_provider: "better_auth",
      domains: [{ domain: "https://dev.example.com" }],
    });
    expect(status).toBe(200);

    const drift = await pipeline("drift");
    expect(drift.status, drift.out).toBe(3);
    // The refresh drops the domain from state; the preview would make it again, and only it.
    expect(summaries(drift.out)).toEqual(["1 deleted", "5 unchanged", "1 to create", "5 unchanged"]);
    expect(drift.out).toContain("domain-dev.example.com");
    expect(drift.out).toContain("DRIFT: stack dev differs from what Neon has");

    const up = await pipeline("up");
    expect(up.status, up.out).toBe(0);
    expect(up.out).toContain("1 created");
    expect(await branchSnapshot(em, "p-dev", "br-main-p-dev")).toEqual(devState);

    // dev's closing refresh and preview: nothing changes.
    const clean = await pipeline("drift");
    expect(clean.status, clean.out).toBe(0);
    expect(summaries(clean.out)).toEqual(["6 unchanged", "6 unchanged"]);
    expect(clean.out).toContain("no drift: stack dev matches Neon");
  });

  it("destroying dev leaves staging untouched", async () => {
    const destroy = await dev.stack.destroy({ color: "never" });
    expect(destroy.summary.resourceChanges).toEqual({ delete: 6 });
    expect((await branchSnapshot(em, "p-dev", "br-main-p-dev")).auth).toBeUndefined();
    expect(await branchSnapshot(em, "p-staging", "br-main-p-staging")).toEqual(stagingState);
    await expectNoChanges(staging.stack, 7);
  });
});
