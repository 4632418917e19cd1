/**
 * Interrupted runs recover as the README says, on both faces.
 * - The plugin, the CLI killed (`kill -9`, the CLI alone) right after Neon Auth was enabled: the
 *   plugin, orphaned, stops instead of writing the remaining settings that no engine would record;
 *   then `pulumi cancel`, the import file of the pending creates (`pendingImportFile`, which knows the
 *   plugin's `neon-auth:index:*` types), `pulumi refresh --clear-pending-creates`, `pulumi import
 *   --file`, `up`: converged, then no changes.
 * - The plugin alone killed at the same moment: the engine sees the create fail and keeps no pending
 *   operation, so the next `up` meets Neon Auth as someone else's; its error names the exact
 *   `pulumi import`, which run as named makes the next `up` converge.
 * - The classes, the CLI alone killed at the same moment: the dynamic provider starts no write after
 *   (emulator request log), and the same recovery converges.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { pendingImportFile } from "../../src/import/importFile";
import { changesOf, expectNoChanges, pluginStack, stackFor, useEmulatorStack, type E2eStack } from "./harness";
import { API_KEY, branchSnapshot, clearRequestLog, neonConfig, projectConfig, requestLog } from "./neon";
import { emulatorOnly } from "./remote";

const EXAMPLE = path.join(__dirname, "..", "..", "examples", "yaml");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function enables(em: EmulatorHandle, p: string): Promise<string[]> {
  return (await requestLog(em)).filter((e: any) => e.method === "POST" && e.path === `/api/v2/projects/${p}/branches/br-main-${p}/auth`).map((e: any) => String(e.status));
}

const writes = async (em: EmulatorHandle) => (await requestLog(em)).filter((e: any) => e.method !== "GET").map((e: any) => `${e.method} ${e.route}`);

/**
 * `pulumi up` as a user starts it (a process group of its own), stopped by `kill` once Neon Auth is
 * enabled: the app name's answer is held back 10 s, so the kill lands between enabling and the
 * settings. Resolves when the CLI has exited; the rest of its group is the caller's to end.
 */
async function upInterrupted(em: EmulatorHandle, e2e: E2eStack, p: string, kill: (cli: ChildProcess) => void): Promise<ChildProcess> {
  em.injectFaults({ kind: "latency", ms: 10_000, method: "PATCH", path: "/projects/{project_id}/branches/{branch_id}/auth/config" });
  const child = spawn("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive", "--color", "never", "--cwd", e2e.dir, "--stack", e2e.stack.name], {
    env: { ...process.env, ...e2e.env },
    detached: true,
    stdio: "ignore",
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  for (let i = 0; i < 2400 && (await enables(em, p)).length === 0; i++) await sleep(50);
  expect(await enables(em, p)).toEqual(["201"]);
  await sleep(500);
  kill(child);
  await exited;
  return child;
}

/** What is left of the run's process group, should anything be. */
function endGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    // Nothing was.
  }
}

/**
 * The processes under `root` whose command line names `name` (read from /proc): the engine may run
 * a plugin more than once (one instance serves the YAML host's schema).
 */
function descendants(root: number, name: string): number[] {
  const parentOf = (pid: number) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      return 0;
    }
  };
  const under = (pid: number): boolean => pid > 1 && (pid === root || under(parentOf(pid)));
  const named = (pid: number) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(name);
    } catch {
      return false;
    }
  };
  const found = fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number).filter((pid) => named(pid) && under(pid));
  if (found.length === 0) throw new Error(`no process ${name} under ${root}`);
  return found;
}

/** The README's recovery from pending creates: cancel, the import file, refresh --clear-pending-creates, import. */
async function recoverPending(em: EmulatorHandle, e2e: E2eStack, expected: unknown): Promise<void> {
  await e2e.run("cancel", "--yes");
  const file = await pendingImportFile(JSON.parse(await e2e.run("stack", "export")), { apiKey: API_KEY, apiUrl: em.url });
  expect(file).toEqual(expected);
  fs.writeFileSync(path.join(e2e.dir, "import.json"), JSON.stringify(file));
  await e2e.run("refresh", "--yes", "--skip-preview", "--clear-pending-creates");
  await e2e.run("import", "--yes", "--file", path.join(e2e.dir, "import.json"), "--generate-code=false");
}

/** The `up` after the recovery: the changes it makes; Neon Auth was enabled once, named as declared; then no changes. */
async function converges(em: EmulatorHandle, e2e: E2eStack, p: string, changes: Record<string, number>): Promise<void> {
  expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual(changes);
  expect(await enables(em, p)).toEqual(["201"]);
  expect((await branchSnapshot(em, p, `br-main-${p}`)).auth).toEqual({ name: "Acme", auth_provider: "better_auth" });
  await expectNoChanges(e2e.stack);
}

/** The file's emulator (a project to each test), its request log cleared for `test`, and a stack on it, torn down after `test`. */
function useProjects(...projects: string[]) {
  let em: EmulatorHandle;
  useEmulatorStack({ emulator: { seedProjects: projects.map((p) => `${p}:br-main-${p}`), rateLimit: "off" }, ready: (s) => (em = s.em) });
  return async (stackOn: (em: EmulatorHandle) => Promise<E2eStack>, test: (em: EmulatorHandle, e2e: E2eStack) => Promise<void>): Promise<void> => {
    await clearRequestLog(em);
    const e2e = await stackOn(em);
    try {
      await test(em, e2e);
    } finally {
      await e2e.cleanup();
    }
  };
}

const yamlStack = (p: string, secret: string) => (em: EmulatorHandle) => pluginStack({ program: EXAMPLE, config: { ...neonConfig(em), ...projectConfig(p, `br-main-${p}`, { githubClientSecret: secret }) } }, "yaml");

emulatorOnly("a fault the emulator injects")("an interrupted run recovers as the README says", () => {
  const onProject = useProjects("p-plugin-killed", "p-plugin-died", "p-classes-killed");

  it("the plugin, the CLI killed right after enabling: the plugin stops; the pending create imported, then up converges", { timeout: 600_000 }, async () => {
    const p = "p-plugin-killed";
    await onProject(yamlStack(p, "gh-killed-secret-3b9e"), async (em, e2e) => {
      const child = await upInterrupted(em, e2e, p, (cli) => process.kill(cli.pid!, "SIGKILL"));
      // A plugin left running would get the held answer 10 s later and go on with the next setting
      // (email and password). It stopped with its engine instead: the request it had in flight went
      // with it (the emulator drops a request whose client left during its delay), and nothing followed.
      await sleep(15_000);
      endGroup(child);
      expect(await writes(em)).toEqual(["POST /projects/{project_id}/branches/{branch_id}/auth"]);
      em.faults.reset();

      const pending = JSON.parse(await e2e.run("stack", "export")).deployment.pending_operations ?? [];
      expect(pending.map((o: any) => [o.type, o.resource.type])).toEqual([["creating", "neon-auth:index:NeonAuth"]]);
      await recoverPending(em, e2e, { resources: [{ type: "neon-auth:index:NeonAuth", name: "auth", id: `${p}/br-main-${p}` }] });
      // The NeonAuth gets its settings, its children are made; Neon Auth was enabled once.
      await converges(em, e2e, p, { update: 1, create: 2 });
    });
  });

  it("the plugin alone killed right after enabling: nothing pending; the next up names the exact import; run as named, up converges", { timeout: 600_000 }, async () => {
    const p = "p-plugin-died";
    await onProject(yamlStack(p, "gh-died-secret-8c4d"), async (em, e2e) => {
      const child = await upInterrupted(em, e2e, p, (cli) => descendants(cli.pid!, "pulumi-resource-neon-auth").forEach((pid) => process.kill(pid, "SIGKILL")));
      endGroup(child);
      em.faults.reset();
      // The engine saw the create fail: it keeps no pending operation, so pendingImportFile would find nothing.
      expect(JSON.parse(await e2e.run("stack", "export")).deployment.pending_operations ?? []).toEqual([]);
      const failed = await e2e.stack.up({ color: "never" }).then(
        () => "succeeded",
        (err: Error) => err.message,
      );
      const step = /`(pulumi import [^`]+)`/.exec(failed)?.[1];
      expect(step, failed).toBe(`pulumi import neon-auth:index:NeonAuth auth '${p}/br-main-${p}' --generate-code=false --yes`);
      // Run as named (the quotes are the shell's).
      await e2e.run(...step!.split(" ").slice(1).map((a) => a.replace(/^'(.*)'$/, "$1")));
      await converges(em, e2e, p, { update: 1, create: 2 });
    });
  });

  it("the classes, the CLI alone killed right after enabling: the provider starts no write after; recovered, then up converges", { timeout: 600_000 }, async () => {
    const p = "p-classes-killed";
    const args = { projectId: p, branchId: `br-main-${p}`, settings: { appName: "Acme" }, domains: ["https://app.example.com"], oauth: [], users: [], noEmail: true };
    const classes = (em: EmulatorHandle) => stackFor({ program: path.join(__dirname, "programs", "neon-auth-children"), config: { ...neonConfig(em), args: { value: JSON.stringify(args), secret: true } } });
    await onProject(classes, async (em, e2e) => {
      const child = await upInterrupted(em, e2e, p, (cli) => process.kill(cli.pid!, "SIGKILL"));
      // The dynamic provider outlives the CLI (its process is not the CLI's child's group leader),
      // and would send the held write and the next ones; it stops with its engine instead.
      await sleep(15_000);
      endGroup(child);
      expect(await writes(em)).toEqual(["POST /projects/{project_id}/branches/{branch_id}/auth"]);
      em.faults.reset();
      await recoverPending(em, e2e, {
        resources: [expect.objectContaining({ type: "pulumi-nodejs:dynamic/neon-auth:NeonAuth", name: "auth", id: `${p}/br-main-${p}` })],
      });
      await converges(em, e2e, p, { update: 1, create: 1 });
    });
  });
});
