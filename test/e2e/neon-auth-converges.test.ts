/**
 * A NeonAuth create that does not finish leaves a state the next `up` completes, never a 409 loop:
 * the enabling POST's answer lost (the same `up` finds auth it saw absent just before, and goes on);
 * a setting refused right after enabling (the engine records the NeonAuth with what was written,
 * the next `up` writes the rest); the CLI killed right after enabling (the documented recovery:
 * `pulumi cancel`, the import file of the pending creates (`pendingImportFile`), `pulumi refresh
 * --clear-pending-creates`, `pulumi import --file`, `up`).
 * (A setting combination the service refuses, webhooks enabled without a URL, is a row of
 * test/bad-inputs.ts: refused by the checks of both faces.)
 */
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { describe, expect } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { pendingImportFile } from "../../src/import/importFile";
import { changesOf, expectNoChanges, killTree, stackFor, type E2eStack } from "./harness";
import { API_KEY, clearRequestLog, emulator, neonConfig, newBranch, requestLog } from "./neon";
import { emulatorOnlyIt } from "./remote";

const PROGRAM = path.join(__dirname, "programs", "branch-auth");
const P = "p-nac-conv";
const ENABLE = "/projects/{project_id}/branches/{branch_id}/auth";
const SETTINGS = { appName: "Acme", allowLocalhost: false, magicLink: { enabled: true, expiresIn: 15 } };

async function live(em: EmulatorHandle, b: string) {
  const get = async (p: string) => (await fetch(`${em.url}/projects/${P}/branches/${b}/auth${p}`, { headers: { authorization: `Bearer ${API_KEY}` } })).json() as Promise<any>;
  const [integration, plugins] = await Promise.all([get(""), get("/plugins")]);
  return { name: integration.name, allow_localhost: plugins.allow_localhost, magic_link: plugins.magic_link };
}
const DECLARED = { name: "Acme", allow_localhost: false, magic_link: { enabled: true, expires_in: 15, disable_sign_up: false } };

/** The POSTs that enabled auth on a branch, as `status[/fault]`. */
async function enables(em: EmulatorHandle, b: string): Promise<string[]> {
  return (await requestLog(em))
    .filter((e: any) => e.method === "POST" && e.path === `/api/v2/projects/${P}/branches/${b}/auth`)
    .map((e: any) => `${e.status}${e.fault ? `/${e.fault}` : ""}`);
}

/**
 * Each test gets an emulator of its own, so that no fault or request of one reaches another's log,
 * and `stackOn` makes its stacks there (on a branch, declaring `settings`); all are torn down
 * whatever the test did.
 */
async function withEmulator(test: (em: EmulatorHandle, stackOn: (b: string, settings?: object) => Promise<E2eStack>) => Promise<void>): Promise<void> {
  const em = await emulator({ seedProjects: [`${P}:br-main-${P}`], rateLimit: "off" });
  const stacks: E2eStack[] = [];
  const stackOn = async (b: string, settings: object = SETTINGS) => {
    const s = await stackFor({
      program: PROGRAM,
      stackName: b,
      config: { ...neonConfig(em), args: { value: JSON.stringify({ projectId: P, branchId: b, ...settings }), secret: true } },
    });
    stacks.push(s);
    return s;
  };
  try {
    await test(em, stackOn);
  } finally {
    for (const s of stacks) await s.cleanup();
    await em.close();
  }
}

const branch = (em: EmulatorHandle, name: string) => newBranch(em, P, name);

describe("NeonAuth converges after a create that did not finish", () => {
  emulatorOnlyIt("a lost answer and a refused setting the emulator injects")("answer lost, then a setting refused after enabling: each converges", { timeout: 600_000 }, () =>
    withEmulator(async (em, stackOn) => {
      // Made before auth exists anywhere: a branch made from a parent with auth inherits it.
      const b2 = await branch(em, "settings-refused");
      // 1. The enabling POST acts, its answer is lost: the same `up` takes over what it enabled.
      const b1 = `br-main-${P}`;
      const one = await stackOn(b1);
      em.injectFaults({ kind: "lost", method: "POST", path: ENABLE });
      const up1 = await one.stack.up({ color: "never" });
      expect(changesOf(up1.summary.resourceChanges)).toEqual({ create: 2 }); // with the stack itself
      expect(await enables(em, b1)).toEqual(["201/lost"]);
      expect(await live(em, b1)).toEqual(DECLARED);
      await expectNoChanges(one.stack);

      // 2. A setting refused right after enabling: the NeonAuth is in state with what was
      // written; the next `up` writes the rest (no 409: nothing is created again).
      const two = await stackOn(b2);
      em.injectFaults({ kind: "error", status: 400, method: "PATCH", path: "/projects/{project_id}/branches/{branch_id}/auth/allow_localhost" });
      const failed = await two.stack.up({ color: "never" }).then(
        () => "succeeded",
        (e: Error) => e.message,
      );
      expect(failed).toContain(`NeonAuth: Neon Auth is enabled on branch ${b2}, but setting allowLocalhost failed; the next \`pulumi up\` sets it again.`);
      expect((await live(em, b2)).allow_localhost).toBe(true);
      await clearRequestLog(em);
      const up2 = await two.stack.up({ color: "never" });
      expect(changesOf(up2.summary.resourceChanges)).toEqual({ update: 1 });
      expect(await enables(em, b2)).toEqual([]);
      const writes = (await requestLog(em)).filter((e: any) => e.method !== "GET").map((e: any) => `${e.method} ${e.route}`);
      expect(writes).toEqual(["PATCH /projects/{project_id}/branches/{branch_id}/auth/allow_localhost", "PATCH /projects/{project_id}/branches/{branch_id}/auth/plugins/magic-link"]);
      expect(await live(em, b2)).toEqual(DECLARED);
      await expectNoChanges(two.stack);
    }),
  );

  emulatorOnlyIt("a write the emulator holds back, so that the CLI is killed mid-create")("the CLI killed right after enabling: imported as the README says, then up converges", { timeout: 600_000 }, () =>
    withEmulator(async (em, stackOn) => {
      // The first setting's answer held back 30 s, so the kill lands between enabling and settings.
      const b3 = await branch(em, "killed");
      const three = await stackOn(b3);
      em.injectFaults({ kind: "latency", ms: 30_000, method: "PATCH", path: "/projects/{project_id}/branches/{branch_id}/auth/config" });
      const cli = async (...args: string[]) =>
        (await promisify(execFile)("pulumi", [...args, "--cwd", three.dir, "--stack", three.stack.name, "--color", "never", "--non-interactive"], { env: { ...process.env, ...three.env }, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })).stdout;
      const child = spawn("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive", "--color", "never", "--cwd", three.dir, "--stack", three.stack.name], {
        env: { ...process.env, ...three.env },
        detached: true,
        stdio: "ignore",
      });
      const exited = new Promise((resolve) => child.on("exit", resolve));
      for (let i = 0; i < 1200 && (await enables(em, b3)).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await enables(em, b3)).toEqual(["201"]);
      await new Promise((r) => setTimeout(r, 500));
      killTree(child.pid!);
      await exited;
      em.faults.reset();
      const pending = JSON.parse(await cli("stack", "export")).deployment.pending_operations ?? [];
      expect(pending.map((o: any) => [o.type, o.resource.type])).toEqual([["creating", "pulumi-nodejs:dynamic/neon-auth:NeonAuth"]]);
      await cli("cancel", "--yes");
      // The recovery the README gives: the pending creates the dead run did make, imported from a
      // file the package writes; the rest cleared.
      const file = await pendingImportFile(JSON.parse(await cli("stack", "export")), { apiKey: API_KEY, apiUrl: em.url });
      expect(file.resources.map((r) => [r.type, r.name, r.id])).toEqual([["pulumi-nodejs:dynamic/neon-auth:NeonAuth", "auth", `${P}/${b3}`]]);
      fs.writeFileSync(path.join(three.dir, "import.json"), JSON.stringify(file));
      await cli("refresh", "--yes", "--skip-preview", "--clear-pending-creates");
      await cli("import", "--yes", "--file", path.join(three.dir, "import.json"), "--generate-code=false");
      const up3 = await three.stack.up({ color: "never" });
      expect(changesOf(up3.summary.resourceChanges)).toEqual({ update: 1 });
      expect(await enables(em, b3)).toEqual(["201"]);
      expect(await live(em, b3)).toEqual(DECLARED);
      await expectNoChanges(three.stack);
    }),
  );
});
