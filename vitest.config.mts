import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    reporters: ["default"],
    // Vitest's default on 2 cores is one file at a time (cores - 1). An e2e file spends much of its
    // time waiting on the Pulumi CLI and its plugins, so three files at once keep both cores busy.
    // A fourth gained nothing (clean runs: 1,407 s with three, 1,403 s with four; CPU 2,507 s and
    // 2,518 s, the files' own by test/e2e/cpu.ts).
    maxWorkers: 3,
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts", "test/contract/**/*.test.ts"],
          testTimeout: 30_000,
          // A beforeAll may do a file's shared work (bad-input.test.ts checks every group once):
          // vitest's 10 s default for hooks ran out on a loaded machine where the tests themselves had room.
          hookTimeout: 30_000,
          setupFiles: ["test/e2e/cpu.ts"],
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          // Installs the packed package where e2e programs run (test/e2e/global-setup.ts).
          globalSetup: ["test/e2e/global-setup.ts"],
          setupFiles: ["test/e2e/cpu.ts"],
          // e2e tests drive the real Pulumi CLI; each can take minutes on a 2-core machine.
          testTimeout: 300_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
