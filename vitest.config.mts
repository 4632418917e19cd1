import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    reporters: ["default"],
    // Vitest's default on 2 cores is one file at a time (cores - 1). An e2e file spends most of its
    // time waiting on the Pulumi CLI and its plugins, so three files at once keep both cores busy
    // and bring `make test` well under 30 minutes.
    maxWorkers: 3,
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
