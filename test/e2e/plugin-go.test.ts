/**
 * A Go program on the `neon-auth` provider plugin, through the real engine: the Go SDK generated
 * from the checkout's schema (scripts/sdk.mts, Pulumi's Go generator), the program built and run by
 * the project's language host (tools/language-host, as pulumi-language-go). Each API generation goes
 * up, previews and refreshes with no changes, updates, meets drift and is destroyed.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import type { ConfigMap } from "@pulumi/pulumi/automation";
import { changedFields, expectBranchUp, expectNoChanges, onFreshEmulator, pluginStack, updateDriftDestroy } from "./harness";
import { neonConfig, projectConfig, snapshot } from "./neon";

const PROGRAM = path.join(__dirname, "programs", "plugin-go");

const goStack = (config: ConfigMap) => pluginStack({ program: PROGRAM, config }, "go");

describe("a Go program on the neon-auth plugin", () => {
  it("manages a branch's Neon Auth: up, no-change preview and refresh, update, drift, destroy", { timeout: 900_000 }, async () => {
    const project = "p-go-branch";
    const stack = (em: EmulatorHandle, branch: string) =>
      goStack({
        ...neonConfig(em),
        ...projectConfig(project, branch, { githubSecret: "gh-go-secret-1" }),
        appName: { value: "One" },
        domain: { value: "https://go.example.com" },
      });
    await onFreshEmulator(project, stack, async ({ em, e2e, branch }) => {
      await expectBranchUp({ em, e2e, project, branch }, { name: "One", domain: "https://go.example.com" });
      const rename = () => e2e.stack.setConfig("appName", { value: "Two" });
      await updateDriftDestroy({ em, e2e, project, branch }, { rename, appName: "Two", domain: "https://go.example.com", secret: "gh-go-secret-1" });
    });
  });

  it("manages a project-level integration: up, no-change preview and refresh, a replaced domain, destroy", { timeout: 900_000 }, async () => {
    const project = "p-go-project";
    const stack = (em: EmulatorHandle, branch: string) =>
      goStack({ ...neonConfig(em), ...projectConfig(project, branch), generation: { value: "project" }, domain: { value: "https://one.example.com" } });
    await onFreshEmulator(project, stack, async ({ em, e2e, branch }) => {
      expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ create: 3 });
      expect(await snapshot(em, project)).toMatchObject({ integrations: [{ auth_provider: "stack", branch_id: branch }], domains: ["https://one.example.com"] });
      await expectNoChanges(e2e.stack, 3);

      await e2e.stack.setConfig("domain", { value: "https://two.example.com" });
      expect(changedFields(e2e.cli("preview", "--diff", "--color", "never"))).toEqual(["~ domain"]);
      expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ replace: 1, same: 2 });
      expect((await snapshot(em, project)).domains).toEqual(["https://two.example.com"]);
      await expectNoChanges(e2e.stack, 3);

      expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 3 });
      expect(await snapshot(em, project)).toMatchObject({ integrations: [], domains: [] });
    });
  });
});
