/**
 * examples/per-environment: dev and staging stacks of one program against one emulator; each
 * manages only its own project, and tearing one down leaves the other as it was.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, stackFor, useEmulatorStack, type E2eStack } from "./harness";
import { neonConfig, snapshot } from "./neon";

const PROGRAM = path.resolve(__dirname, "../../examples/per-environment");

describe("per-environment stacks (examples/per-environment)", () => {
  let em: EmulatorHandle;
  let dev: E2eStack;
  let staging: E2eStack;
  const backendDir = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-envs-"));

  useEmulatorStack({
    emulator: { seedProjects: ["p-dev:br-main-p-dev", "p-staging:br-main-p-staging", "p-prod:br-main-p-prod"] },
    stack: (em) => ({ program: PROGRAM, stackName: "dev", backendDir, config: neonConfig(em) }),
    ready: (s) => ({ em, e2e: dev } = s),
    // The stacks share the backend: it goes once both are cleaned up.
    afterCleanup: () => fs.rmSync(backendDir, { recursive: true, force: true }),
  });

  beforeAll(async () => {
    staging = await stackFor({
      program: PROGRAM,
      stackName: "staging",
      backendDir,
      config: {
        ...neonConfig(em),
        googleClientSecret: { value: "staging-google-secret-51c0", secret: true },
        smtpPassword: { value: "staging-smtp-pw-0e6d", secret: true },
      },
    });
  });

  // Runs before the fixture's teardown (after-hooks run last-registered first).
  afterAll(async () => {
    await staging?.cleanup();
  });

  const devState = {
    integrations: [{ auth_provider: "stack", branch_id: "br-main-p-dev", owned_by: "neon" }],
    providers: [
      { id: "github", type: "shared" },
      { id: "google", type: "shared" },
    ],
    domains: ["http://localhost:3000", "https://dev.example.com"],
    email: { type: "shared" },
    users: [],
  };
  const stagingState = {
    integrations: [{ auth_provider: "stack", branch_id: "br-main-p-staging", owned_by: "neon" }],
    providers: [
      { id: "github", type: "shared" },
      { id: "google", type: "standard" },
    ],
    domains: ["https://staging.example.com"],
    email: {
      type: "standard",
      host: "smtp.example.com",
      port: 587,
      username: "staging",
      sender_email: "auth-staging@example.com",
      sender_name: "Example (staging)",
    },
    users: [],
  };

  it("deploys dev and staging, each into its own project only", async () => {
    const upDev = await dev.stack.up({ color: "never" });
    expect(upDev.summary.resourceChanges).toEqual({ create: 7 });
    expect(upDev.outputs.environment).toEqual({ value: "dev", secret: false });
    const upStaging = await staging.stack.up({ color: "never" });
    expect(upStaging.summary.resourceChanges).toEqual({ create: 6 });

    expect(await snapshot(em, "p-dev")).toEqual(devState);
    expect(await snapshot(em, "p-staging")).toEqual(stagingState);
    // prod was never deployed: its project has no auth at all.
    expect((await snapshot(em, "p-prod")).integrations).toEqual([]);

    for (const s of [dev, staging]) {
      const preview = await s.stack.preview({ color: "never", expectNoChanges: true });
      expect(changesOf(preview.changeSummary)).toEqual({});
      const refresh = await s.stack.refresh({ color: "never", expectNoChanges: true });
      expect(changesOf(refresh.summary.resourceChanges)).toEqual({});
    }
  });

  it("destroying dev leaves staging untouched", async () => {
    const destroy = await dev.stack.destroy({ color: "never" });
    expect(destroy.summary.resourceChanges).toEqual({ delete: 7 });
    expect((await snapshot(em, "p-dev")).integrations).toEqual([]);
    expect(await snapshot(em, "p-staging")).toEqual(stagingState);
    const preview = await staging.stack.preview({ color: "never", expectNoChanges: true });
    expect(changesOf(preview.changeSummary)).toEqual({});
  });
});
