import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    reporters: ["default"],
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts", "test/contract/**/*.test.ts"],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          // Installs the packed package where e2e programs run (test/e2e/global-setup.ts).
          globalSetup: ["test/e2e/global-setup.ts"],
          // e2e tests drive the real Pulumi CLI; each can take minutes on a 2-core machine.
          testTimeout: 300_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
