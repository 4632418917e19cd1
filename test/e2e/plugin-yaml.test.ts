/**
 * The YAML program the docs give (examples/yaml), run as it is through the real engine on the
 * `neon-auth` plugin, by Pulumi YAML's own language host (built from the Go module proxy,
 * scripts/sdk.mts): it goes up, previews and refreshes with no changes, updates with the changed
 * field named, meets drift and is destroyed. Pulumi YAML checks the program against the plugin's
 * schema as it runs it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { expectNoChanges, onFreshEmulator, pluginStack, updateDriftDestroy } from "./harness";
import { branchSnapshot, branchState, neonConfig, projectConfig } from "./neon";

const EXAMPLE = path.join(__dirname, "..", "..", "examples", "yaml");
const SECRET = "gh-yaml-secret-1";

describe("a YAML program on the neon-auth plugin", () => {
  it("manages a branch's Neon Auth: up, no-change preview and refresh, update, drift, destroy", { timeout: 600_000 }, async () => {
    const project = "p-yaml";
    const stack = (em: EmulatorHandle, branch: string) => pluginStack({ program: EXAMPLE, config: { ...neonConfig(em), ...projectConfig(project, branch, { githubClientSecret: SECRET }) } }, "yaml");
    await onFreshEmulator(project, stack, async ({ em, e2e, branch }) => {
      const up = await e2e.stack.up({ color: "never" });
      expect(up.summary.resourceChanges).toEqual({ create: 4 });
      const providers = { github: "standard", google: "shared" };
      const declared = branchState({ name: "Acme", localhost: true, verification: true, providers, domains: ["https://app.example.com"], email: { type: "shared" } });
      expect(await branchSnapshot(em, project, branch)).toEqual(declared);
      const base = (up.outputs.baseUrl!.value as string).replace(/\/$/, "");
      expect(up.outputs.jwksUrl!.value).toBe(`${base}/.well-known/jwks.json`);
      await expectNoChanges(e2e.stack, 4);

      const program = path.join(e2e.dir, "Pulumi.yaml");
      const rename = async () => fs.writeFileSync(program, fs.readFileSync(program, "utf8").replace("appName: Acme", "appName: Acme Two"));
      await updateDriftDestroy({ em, e2e, project, branch }, { rename, appName: "Acme Two", domain: "https://app.example.com", secret: SECRET });
    });
  });
});
