import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // e2e tests drive the real Pulumi CLI; each can take minutes on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 600_000,
    reporters: ["default"],
    globalSetup: ["test/e2e/global-setup.ts"],
  },
});
