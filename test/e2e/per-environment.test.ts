/**
 * examples/per-environment: dev and staging stacks of one NeonAuth program against one emulator;
 * each manages only its own branch, and tearing one down leaves the other as it was.
 */
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { expectNoChanges, sharedBackend, useEmulatorStack, type E2eStack } from "./harness";
import { branchSnapshot, branchState, branchUserRows, neonConfig, secretConfig } from "./neon";

const PROGRAM = path.resolve(__dirname, "../../examples/per-environment");

describe("per-environment stacks (examples/per-environment)", () => {
  let em: EmulatorHandle;
  let dev: E2eStack;
  let staging: E2eStack;
  const backend = sharedBackend();

  useEmulatorStack({
    emulator: { seedProjects: ["p-dev:br-main-p-dev", "p-staging:br-main-p-staging", "p-prod:br-main-p-prod"] },
    stack: (em) => ({ program: PROGRAM, stackName: "dev", backendDir: backend.dir, config: neonConfig(em) }),
    ready: (s) => ({ em, e2e: dev } = s),
    ...backend.teardown,
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

  const devState = branchState({ name: "Example (dev)", localhost: true, verification: false, providers: { google: "shared" }, domains: ["https://dev.example.com"], email: { type: "shared" } });
  const stagingEmail = { type: "standard", host: "smtp.example.com", port: 587, username: "staging", password: "", sender_email: "auth-staging@example.com", sender_name: "Example (staging)" };
  const stagingDomains = ["https://*.preview.example.com", "https://staging.example.com"];
  const stagingState = branchState({ name: "Example (staging)", localhost: false, verification: true, providers: { github: "standard", google: "standard" }, domains: stagingDomains, email: stagingEmail });
  const users = async (project: string) => (await branchUserRows(em, project, `br-main-${project}`)).map(({ email, name, role }) => ({ email, name, role }));

  it("deploys dev and staging, each onto its own branch only", async () => {
    const upDev = await dev.stack.up({ color: "never" });
    // The stack, the NeonAuth, a domain, Google, the email server and one admin.
    expect(upDev.summary.resourceChanges).toEqual({ create: 6 });
    expect(upDev.outputs.environment).toEqual({ value: "dev", secret: false });
    const upStaging = await staging.stack.up({ color: "never" });
    // The stack, the NeonAuth, two domains, Google, GitHub and the email server.
    expect(upStaging.summary.resourceChanges).toEqual({ create: 7 });

    expect(await branchSnapshot(em, "p-dev", "br-main-p-dev")).toEqual(devState);
    expect(await users("p-dev")).toEqual([{ email: "dev-admin@example.com", name: "", role: "admin" }]);
    expect(await branchSnapshot(em, "p-staging", "br-main-p-staging")).toEqual(stagingState);
    expect(await users("p-staging")).toEqual([]);
    // prod was never deployed: its branch has no auth at all.
    expect((await branchSnapshot(em, "p-prod", "br-main-p-prod")).auth).toBeUndefined();

    for (const s of [dev, staging]) await expectNoChanges(s.stack);
  });

  it("destroying dev leaves staging untouched", async () => {
    const destroy = await dev.stack.destroy({ color: "never" });
    expect(destroy.summary.resourceChanges).toEqual({ delete: 6 });
    expect((await branchSnapshot(em, "p-dev", "br-main-p-dev")).auth).toBeUndefined();
    expect(await branchSnapshot(em, "p-staging", "br-main-p-staging")).toEqual(stagingState);
    await expectNoChanges(staging.stack);
  });
});
