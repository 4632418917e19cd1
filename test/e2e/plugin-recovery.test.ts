/**
 * The README's recovery from an interrupted run works for a stack on the provider plugin: the CLI
 * killed (`kill -9`, the CLI alone) right after Neon Auth was enabled; the plugin, orphaned, stops
 * instead of writing the remaining settings that no engine would record; then `pulumi cancel`, the import file of the pending
 * creates (`pendingImportFile`, which knows the plugin's `neon-auth:index:*` types), `pulumi refresh
 * --clear-pending-creates`, `pulumi import --file`, `up`: converged, then no changes.
 */
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { pendingImportFile } from "../../src/import/importFile";
import { changesOf, expectNoChanges, pluginStack } from "./harness";
import { API_KEY, branchSnapshot, emulator, neonConfig, projectConfig, requestLog } from "./neon";
import { emulatorOnly } from "./remote";

const P = "p-plugin-killed";
const B = `br-main-${P}`;
const EXAMPLE = path.join(__dirname, "..", "..", "examples", "yaml");

async function enables(em: EmulatorHandle): Promise<string[]> {
  return (await requestLog(em)).filter((e: any) => e.method === "POST" && e.path === `/api/v2/projects/${P}/branches/${B}/auth`).map((e: any) => String(e.status));
}

emulatorOnly("a fault the emulator injects")("an interrupted run on the plugin", () => {
  it("the CLI killed right after enabling: recovered as the README says, then up converges", { timeout: 600_000 }, async () => {
    const em = await emulator({ seedProjects: [`${P}:${B}`], rateLimit: "off" });
    const e2e = await pluginStack({ program: EXAMPLE, config: { ...neonConfig(em), ...projectConfig(P, B, { githubClientSecret: "gh-killed-secret-3b9e" }) } }, "yaml");
    const cli = async (...args: string[]) =>
      (await promisify(execFile)("pulumi", [...args, "--cwd", e2e.dir, "--stack", e2e.stack.name, "--color", "never", "--non-interactive"], { env: { ...process.env, ...e2e.env }, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })).stdout;
    try {
      // The app name's answer held back 10 s, so the kill lands between enabling and the settings.
      em.injectFaults({ kind: "latency", ms: 10_000, method: "PATCH", path: "/projects/{project_id}/branches/{branch_id}/auth/config" });
      const child = spawn("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive", "--color", "never", "--cwd", e2e.dir, "--stack", e2e.stack.name], {
        env: { ...process.env, ...e2e.env },
        detached: true,
        stdio: "ignore",
      });
      const exited = new Promise((resolve) => child.on("exit", resolve));
      for (let i = 0; i < 2400 && (await enables(em)).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await enables(em)).toEqual(["201"]);
      await new Promise((r) => setTimeout(r, 500));
      process.kill(child.pid!, "SIGKILL");
      await exited;
      // A plugin left running would get the held answer 10 s later and go on with the next setting
      // (email and password). It stopped with its engine instead: the request it had in flight went
      // with it (the emulator drops a request whose client left during its delay), and nothing followed.
      await new Promise((r) => setTimeout(r, 15_000));
      try {
        process.kill(-child.pid!, "SIGKILL"); // what is left of the run's process group, should anything be
      } catch {
        // Nothing was.
      }
      const writes = (await requestLog(em)).filter((e: any) => e.method !== "GET").map((e: any) => `${e.method} ${e.route}`);
      expect(writes).toEqual(["POST /projects/{project_id}/branches/{branch_id}/auth"]);
      em.faults.reset();

      const pending = JSON.parse(await cli("stack", "export")).deployment.pending_operations ?? [];
      expect(pending.map((o: any) => [o.type, o.resource.type])).toEqual([["creating", "neon-auth:index:NeonAuth"]]);
      await cli("cancel", "--yes");
      const file = await pendingImportFile(JSON.parse(await cli("stack", "export")), { apiKey: API_KEY, apiUrl: em.url });
      expect(file).toEqual({ resources: [{ type: "neon-auth:index:NeonAuth", name: "auth", id: `${P}/${B}` }] });
      fs.writeFileSync(path.join(e2e.dir, "import.json"), JSON.stringify(file));
      await cli("refresh", "--yes", "--skip-preview", "--clear-pending-creates");
      await cli("import", "--yes", "--file", path.join(e2e.dir, "import.json"), "--generate-code=false");

      // The NeonAuth gets its settings, its children are made; Neon Auth was enabled once.
      expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ update: 1, create: 2 });
      expect(await enables(em)).toEqual(["201"]);
      expect((await branchSnapshot(em, P, B)).auth).toEqual({ name: "Acme", auth_provider: "better_auth" });
      await expectNoChanges(e2e.stack);
    } finally {
      await e2e.cleanup();
      await em.close();
    }
  });
});
