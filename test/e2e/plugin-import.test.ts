/**
 * `pulumi import` by id of every kind the plugin can import, with no prior state: a branch's Neon
 * Auth with each importable kind in it (NeonAuth, RedirectDomain, OAuthProvider, EmailServer,
 * OAuthClient) goes up, leaves the stack's state, comes back by `pulumi import --file` of type, name
 * and id only (no state in the file, which the dynamic resources need), and the same program then
 * previews and refreshes with no changes.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, onFreshEmulator, pluginStack } from "./harness";
import { branchSnapshot, clearRequestLog, neonConfig, requestLog } from "./neon";

const PROGRAM = path.join(__dirname, "programs", "plugin");

describe("pulumi import by id on the plugin", () => {
  it("imports each importable kind, after which the program shows no changes", { timeout: 600_000 }, async () => {
    const project = "p-plugin-import";
    const branch = `br-main-${project}`;
    const site = "https://app.example.com";
    const oauthServer = { enabled: true, loginPage: `${site}/sign-in`, consentPage: `${site}/consent` };
    const specs = [
      { kind: "NeonAuth", name: "auth", args: { projectId: project, branchId: branch, appName: "Imported", oauthServer } },
      { kind: "RedirectDomain", name: "app", args: { integration: "auth", domain: site } },
      { kind: "OAuthProvider", name: "google", args: { integration: "auth", providerId: "google" } },
      { kind: "EmailServer", name: "email", args: { integration: "auth", type: "shared" } },
      { kind: "OAuthClient", name: "cli", args: { integration: "auth", name: "CLI", type: "public", redirectUris: [`${site}/callback`] } },
    ];
    const stack = (em: EmulatorHandle) => pluginStack({ program: PROGRAM, config: { ...neonConfig(em), resources: { value: JSON.stringify(specs) } } }, "nodejs");
    await onFreshEmulator(project, stack, async ({ em, e2e }) => {
      const up = await e2e.stack.up({ color: "never" });
      expect(up.summary.resourceChanges).toEqual({ create: 6 });
      const ids = up.outputs.ids!.value as Record<string, string>;
      const before = await branchSnapshot(em, project, branch);

      // The stack forgets them (Neon keeps them), then takes them back by id alone.
      e2e.cli("state", "delete", `urn:pulumi:${e2e.stack.name}::plugin::neon-auth:index:NeonAuth::auth`, "--target-dependents", "--yes");
      expect(changesOf((await e2e.stack.preview({ color: "never" })).changeSummary)).toEqual({ create: 5 });
      const file = path.join(e2e.dir, "import.json");
      fs.writeFileSync(file, JSON.stringify({ resources: specs.map((s) => ({ type: `neon-auth:index:${s.kind}`, name: s.name, id: ids[s.name] })) }));
      await clearRequestLog(em);
      await e2e.run("import", "--file", file, "--yes", "--protect=false", "--generate-code=false", "--skip-preview", "--non-interactive");
      // Reads only: an import changes nothing at Neon.
      expect((await requestLog(em)).filter((r) => r.method !== "GET")).toEqual([]);
      await expectNoChanges(e2e.stack, 6);
      expect(await branchSnapshot(em, project, branch)).toEqual(before);

      expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 6 });
      expect((await branchSnapshot(em, project, branch)).auth).toBeUndefined();
    });
  });
});
