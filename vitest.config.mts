import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    reporters: ["default"],
    // Vitest's default on 2 cores is one file at a time (cores - 1). An e2e file spends much of its
    // time waiting (on the Pulumi CLI and its plugins, on a lock or an operation that takes its
    // time): with three files at once both cores were busy 89% of a run (2,507 s of CPU in 1,407 s),
    // so a fourth fills the rest.
    maxWorkers: 4,
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts", "test/contract/**/*.test.ts"],
          testTimeout: 30_000,
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
