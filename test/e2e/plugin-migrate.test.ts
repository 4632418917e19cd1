/**
 * A stack of the dynamic resources moved onto the provider plugin without touching Neon: `pulumi
 * stack export`, `neon-auth-import --move-to-plugin`, `pulumi stack import`, the program switched to
 * the plugin's SDK under the same names; then preview, up and refresh change nothing, no write
 * reaches the API, and the moved stack updates and is destroyed through the plugin.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, moveToPlugin, onFreshEmulator, pluginStack } from "./harness";
import { branchSnapshot, clearRequestLog, neonConfig, requestLog } from "./neon";

const PROGRAM = path.join(__dirname, "programs", "plugin");

const specs = (project: string, branch: string, appName: string) => [
  { kind: "NeonAuth", name: "auth", args: { projectId: project, branchId: branch, appName } },
  { kind: "RedirectDomain", name: "app", args: { integration: "auth", domain: "https://app.example.com" } },
  { kind: "OAuthProvider", name: "github", args: { integration: "auth", providerId: "github", clientId: "gh-id", clientSecret: "gh-move-secret" }, secret: ["clientSecret"] },
];

describe("moving a stack from the dynamic resources onto the plugin", () => {
  it("changes nothing at Neon, and the moved stack works on the plugin", { timeout: 600_000 }, async () => {
    const project = "p-plugin-move";
    const stack = (em: EmulatorHandle, branch: string) =>
      pluginStack({ program: PROGRAM, config: { ...neonConfig(em), resources: { value: JSON.stringify(specs(project, branch, "Before")) }, surface: { value: "dynamic" } } }, "nodejs");
    await onFreshEmulator(project, stack, async ({ em, e2e, branch }) => {
      expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ create: 4 });
      const before = await branchSnapshot(em, project, branch);
      await clearRequestLog(em);

      await moveToPlugin(e2e);

      expect(changesOf((await e2e.stack.preview({ color: "never", expectNoChanges: true })).changeSummary)).toEqual({});
      // Records the plugin's settings (refresh and destroy use those of the last up).
      expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ same: 4 });
      await expectNoChanges(e2e.stack, 4);
      const types = JSON.parse(e2e.cli("stack", "export")).deployment.resources.map((r: { type: string }) => r.type);
      expect(types.filter((t: string) => t.includes("neon-auth")).sort()).toEqual([
        "neon-auth:index:NeonAuth",
        "neon-auth:index:OAuthProvider",
        "neon-auth:index:RedirectDomain",
        "pulumi:providers:neon-auth",
      ]);
      expect((await requestLog(em)).filter((r) => r.method !== "GET")).toEqual([]);
      expect(await branchSnapshot(em, project, branch)).toEqual(before);

      await e2e.stack.setConfig("resources", { value: JSON.stringify(specs(project, branch, "After")) });
      expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ update: 1, same: 3 });
      expect((await branchSnapshot(em, project, branch)).auth?.name).toBe("After");
      expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 4 });
      expect((await branchSnapshot(em, project, branch)).auth).toBeUndefined();
    });
  });
});
