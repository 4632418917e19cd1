/**
 * `pulumi import` by id of every kind the plugin can import, with no prior state: a branch's Neon
 * Auth with each importable kind in it (NeonAuth, RedirectDomain, OAuthProvider, EmailServer,
 * OAuthClient) goes up and leaves the stack's state; `neon-auth-import` (`branchImportFile`) lists what the branch holds
 * (type, name and id only: no state, which the dynamic resources need), `pulumi import --file` takes
 * it all back, and the same program then previews and refreshes with no changes.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, onFreshEmulator, pluginStack } from "./harness";
import { API_KEY, branchSnapshot, clearRequestLog, neonConfig, requestLog } from "./neon";

const PROGRAM = path.join(__dirname, "programs", "plugin");

describe("pulumi import by id on the plugin", () => {
  it("imports each importable kind, after which the program shows no changes", { timeout: 600_000 }, async () => {
    const project = "p-plugin-import";
    const branch = `br-main-${project}`;
    const site = "https://app.example.com";
    const oauthServer = { enabled: true, loginPage: `${site}/sign-in`, consentPage: `${site}/consent` };
    const specs = [
      { kind: "NeonAuth", name: "auth", args: { projectId: project, branchId: branch, appName: "Imported", oauthServer } },
      { kind: "RedirectDomain", name: "domain-app-example-com", args: { integration: "auth", domain: site } },
      { kind: "OAuthProvider", name: "google", args: { integration: "auth", providerId: "google" } },
      { kind: "EmailServer", name: "email", args: { integration: "auth", type: "shared" } },
      { kind: "OAuthClient", name: "client-cli", args: { integration: "auth", name: "CLI", type: "public", redirectUris: [`${site}/callback`] } },
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
      await clearRequestLog(em);
      // The first of the two commands that adopt a branch (the package's neon-auth-import, branchImportFile).
      const importer = path.join(inject("e2eWorkspace"), "node_modules", ".bin", "neon-auth-import");
      const env = { ...process.env, NEON_API_KEY: API_KEY, NEON_API_URL: em.url };
      const whole = JSON.parse((await promisify(execFile)(importer, ["--project", project, "--branch", branch], { env, encoding: "utf8" })).stdout);
      // Everything the program declares, by the names it gives them, and nothing else.
      const expected = specs.map((s) => ({ type: `neon-auth:index:${s.kind}`, name: s.name, id: ids[s.name] }));
      expect(whole.resources).toEqual(expected);
      const file = path.join(e2e.dir, "import.json");
      fs.writeFileSync(file, JSON.stringify(whole));
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
