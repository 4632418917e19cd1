/**
 * Upgrading a stack written by 0.1.0: `up` with the package as released (packed from its commit),
 * then the package packed from this tree and the CHANGELOG's upgrade notes followed to the letter
 * (the `neon-auth:` configuration, `integration: auth` on every child). The `up` plans only what
 * the notes announce (its plan is the preview's): each child an update that records its integration,
 * nothing replaced or deleted, and it sends Neon no write.
 *
 * And a stack written by 0.2.0, on each face (the classes, and a YAML program on 0.2.0's plugin):
 * this version reads the children 0.2.0 recorded (their place beside their integration's identity)
 * as its own (the integration's `ref`), so preview and refresh show no change and `up` sends nothing.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { EngineEvent, Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { installPackage, repo } from "../../scripts/workspace.mts";
import type { EmulatorHandle } from "../../src/emulator";
import { yamlLanguageHost } from "../../scripts/sdk.mts";
import { changesOf, expectNoChanges, stackFor, useEmulatorStack, type E2eStack } from "./harness";
import { API_KEY, clearRequestLog, projectConfig, requestLog, snapshot } from "./neon";

/** The commit released as 0.1.0 (the repository has no tag for it). */
const V0_1_0 = "afb9206";
/** The commit released as 0.2.0: its CHANGELOG dates "0.2.0 — 2026-11-26" (no tag either). */
const V0_2_0 = "3db82cf";
const P = "p-upgrade";
const B = "br-main-p-upgrade";
const CHILDREN = ["AuthSdkKeys", "AuthUser", "EmailServer", "OAuthProvider", "RedirectDomain"];

/**
 * A released package, packed from its commit: its sources built with this checkout's compiler and
 * type definitions (types are not checked; only the emitted JavaScript matters), no network.
 */
function packAt(commit: string, tmp: string): string {
  try {
    execFileSync("git", ["-C", repo, "cat-file", "-e", `${commit}^{commit}`], { stdio: "ignore" });
  } catch {
    throw new Error(`commit ${commit} (a release) is not in this clone; a shallow clone needs \`git fetch --unshallow\``);
  }
  const src = path.join(tmp, `src-${commit}`);
  fs.mkdirSync(src);
  execFileSync("sh", ["-c", `git -C "$1" archive --format=tar ${commit} | tar -x -C "$2"`, "sh", repo, src]);
  fs.symlinkSync(path.join(repo, "node_modules"), path.join(src, "node_modules"));
  execFileSync(path.join(repo, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.build.json", "--noCheck"], { cwd: src });
  const name = execFileSync("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", tmp], { cwd: src, encoding: "utf8" })
    .trim()
    .split("\n")
    .pop()!;
  return path.join(tmp, name);
}

/**
 * A workspace of its own (the run's shared one must keep the current package): links to the
 * shared workspace's dependencies, and a real copy of the package, swapped in by `installPackage`.
 */
function ownWorkspace(tmp: string, shared: string, name = "workspace"): string {
  const ws = path.join(tmp, name);
  fs.mkdirSync(path.join(ws, "node_modules"), { recursive: true });
  fs.mkdirSync(path.join(ws, "programs"));
  for (const entry of fs.readdirSync(path.join(shared, "node_modules"))) {
    if (entry === "pulumi-neon-auth" || entry.startsWith(".")) continue;
    fs.symlinkSync(path.join(shared, "node_modules", entry), path.join(ws, "node_modules", entry));
  }
  return ws;
}

const KIND = "pulumi-nodejs:dynamic/neon-auth:";

/** What a preview or up does to each resource of the package that it changes, as `Kind op`. */
function stepsOf(events: EngineEvent[]): string[] {
  return events
    .flatMap((e) => (e.resourcePreEvent ? [e.resourcePreEvent.metadata] : []))
    .filter((m) => m.type.startsWith(KIND) && m.op !== "same")
    .map((m) => `${m.type.slice(KIND.length)} ${m.op}`)
    .sort();
}

/** Each resource of the package in state: its kind, its provider module, and the integration it records. */
async function stateOf(stack: Stack): Promise<[string, string | undefined, unknown][]> {
  const state = await stack.exportStack();
  return (state.deployment.resources as any[])
    .filter((r) => r.type.startsWith(KIND))
    .map((r): [string, string | undefined, unknown] => [
      r.type.slice(KIND.length),
      /require\("(pulumi-neon-auth\/dist\/[^"]+)"\)/.exec(r.inputs.__provider)?.[1],
      r.outputs.integration,
    ])
    .sort((a, b) => a[0].localeCompare(b[0]));
}

describe("upgrading a stack written by 0.1.0", () => {
  let em: EmulatorHandle;
  let tmp: string;

  useEmulatorStack({ emulator: { seedProjects: [`${P}:${B}`], rateLimit: "off" }, ready: (s) => (em = s.em) });

  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-upgrade-"));
  });

  afterAll(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("shows only the updates the CHANGELOG announces, then converges with no write to Neon", async () => {
    const ws = ownWorkspace(tmp, inject("e2eWorkspace"));
    installPackage(ws, packAt(V0_1_0, tmp));
    const e2e = await stackFor({
      program: path.join(__dirname, "programs", "upgrade"),
      workspace: ws,
      config: {
        // Configuration as 0.1.0 read it.
        "neon:apiUrl": { value: em.url },
        "neon:apiKey": { value: API_KEY, secret: true },
        ...projectConfig(P, B, { clientSecret: "upgrade-client-secret-8c1e", smtpPassword: "upgrade-smtp-password-5d2a" }),
        smtp: { value: JSON.stringify({ type: "standard", host: "smtp.example.com", port: 587, username: "apikey", senderEmail: "auth@example.com", senderName: "Example Auth" }) },
      },
    });
    try {
      const first = await e2e.stack.up({ color: "never" });
      expect(first.summary.resourceChanges).toEqual({ create: 7 });
      const before = await snapshot(em, P);
      expect(before.providers).toEqual([{ id: "github", type: "standard" }]);
      expect(before.domains).toEqual(["https://app.example.com"]);
      expect(before.users).toEqual([{ email: "ada@example.com", name: "Ada" }]);
      // 0.1.0 already recorded each provider as a require() of its module, the path kept since.
      const provided = (kinds: string[], integration: unknown) =>
        kinds.map((k) => [k, `pulumi-neon-auth/dist/resources/providers/${k}.js`, integration]);
      expect(await stateOf(e2e.stack)).toEqual(provided(["AuthIntegration", ...CHILDREN].sort(), undefined));

      // The new package, the program and the configuration as the upgrade notes say.
      installPackage(ws, path.join(inject("e2eWorkspace"), "pulumi-neon-auth.tgz"));
      fs.rmSync(path.join(e2e.dir, "index.js"));
      fs.copyFileSync(path.join(__dirname, "programs", "upgrade-next", "index.ts"), path.join(e2e.dir, "index.ts"));
      // A stack that still names the old URL setting is stopped at preview, before any request.
      await clearRequestLog(em);
      await expect(e2e.stack.preview({ color: "never" })).rejects.toThrow(
        "neon:apiUrl is no longer read: that namespace belongs to the Pulumi Registry's neon provider. " +
          "Rename it: `pulumi config rm neon:apiUrl` and `pulumi config set neon-auth:apiUrl <url>`",
      );
      expect(await requestLog(em)).toEqual([]);
      await e2e.stack.removeAllConfig(["neon:apiUrl", "neon:apiKey"]);
      await e2e.stack.setAllConfig({
        "neon-auth:apiUrl": { value: em.url },
        "neon-auth:apiKey": { value: API_KEY, secret: true },
      });

      // The up's plan is the preview's: each child an update, nothing else.
      const events: EngineEvent[] = [];
      await clearRequestLog(em);
      const up = await e2e.stack.up({ color: "never", diff: true, onEvent: (e) => events.push(e) });
      expect(changesOf(up.summary.resourceChanges)).toEqual({ update: CHILDREN.length });
      expect(stepsOf(events)).toEqual(CHILDREN.map((k) => `${k} update`));
      expect((await requestLog(em)).filter((r) => r.method !== "GET")).toEqual([]);
      expect(await snapshot(em, P)).toEqual(before);
      // What the update recorded: the identity of the integration each child lives in.
      const integration = (await stateOf(e2e.stack)).find(([k]) => k === "AuthIntegration")!;
      expect(integration[1]).toBe("pulumi-neon-auth/dist/resources/providers/AuthIntegration.js");
      const outs = ((await e2e.stack.exportStack()).deployment.resources as any[]).find((r) => r.type === `${KIND}AuthIntegration`).outputs;
      const identity = { authProviderProjectId: outs.authProviderProjectId, createdAt: outs.createdAt };
      expect(identity.authProviderProjectId).toBe(first.outputs.authProviderProjectId!.value);
      // As the integration's ref (without an auth provider where a kind's requests name none).
      const ref = (k: string) => ({ projectId: P, ...(["EmailServer", "OAuthProvider"].includes(k) ? {} : { authProvider: "stack" }), ...identity });
      expect((await stateOf(e2e.stack)).filter(([k]) => k !== "AuthIntegration")).toEqual(CHILDREN.map((k) => provided([k], ref(k))[0]));

      await expectNoChanges(e2e.stack);
    } finally {
      await e2e.cleanup();
    }
  });
});

/** What each face's program of 0.2.0 declares: an AuthIntegration and a NeonAuth, with children. */
const FACES = {
  classes: { program: "upgrade-020", resources: 13 },
  plugin: { program: "upgrade-020-yaml", resources: 10 },
} as const;

describe("upgrading a stack written by 0.2.0", () => {
  let em: EmulatorHandle;
  let tmp: string;
  let released: string;
  const seeds = ["p-up-classes", "p-up-classes-b", "p-up-plugin", "p-up-plugin-b"];

  useEmulatorStack({ emulator: { seedProjects: seeds.map((p) => `${p}:br-main-${p}`), rateLimit: "off" }, ready: (s) => (em = s.em) });

  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-upgrade-020-"));
    released = packAt(V0_2_0, tmp);
  });

  afterAll(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it.each(["classes", "plugin"] as const)("on the %s: no change at preview or refresh, no request at up, then destroy", async (face) => {
    const ws = ownWorkspace(tmp, inject("e2eWorkspace"), face);
    installPackage(ws, released);
    const p = `p-up-${face}`;
    // The plugin is the one on PATH: the installed package's (0.2.0's, then this version's).
    const env = face === "plugin" ? { PATH: [path.join(ws, "node_modules", ".bin"), yamlLanguageHost(), process.env.PATH].join(path.delimiter) } : undefined;
    const e2e: E2eStack = await stackFor({
      program: path.join(__dirname, "programs", FACES[face].program),
      workspace: ws,
      ...(env ? { env } : {}),
      config: {
        "neon-auth:apiUrl": { value: em.url },
        "neon-auth:apiKey": { value: API_KEY, secret: true },
        projectId: { value: p },
        branchId: { value: `br-main-${p}` },
        branchProjectId: { value: `${p}-b` },
        branchBranchId: { value: `br-main-${p}-b` },
        clientSecret: { value: "upgrade-client-secret-020", secret: true },
      },
    });
    try {
      const first = await e2e.stack.up({ color: "never" });
      expect(first.summary.resourceChanges).toEqual({ create: FACES[face].resources + 1 });
      const recorded = await childIntegrations(e2e.stack);

      installPackage(ws, path.join(inject("e2eWorkspace"), "pulumi-neon-auth.tgz"));
      await clearRequestLog(em);
      await expectNoChanges(e2e.stack);
      await clearRequestLog(em);
      const up = await e2e.stack.up({ color: "never" });
      expect(changesOf(up.summary.resourceChanges)).toEqual({});
      expect(await requestLog(em)).toEqual([]);
      // Each child now records its integration as the integration's ref, the same on both faces.
      const now = await childIntegrations(e2e.stack);
      expect(Object.keys(now)).toEqual(Object.keys(recorded));
      for (const [name, ref] of Object.entries(now)) {
        expect(ref, name).toMatchObject({ projectId: name.startsWith("branch") || name === "partner" ? `${p}-b` : p, authProviderProjectId: expect.any(String), createdAt: expect.any(String) });
      }

      const destroy = await e2e.stack.destroy({ color: "never" });
      expect(changesOf(destroy.summary.resourceChanges)).toEqual({ delete: FACES[face].resources + 1 });
    } finally {
      await e2e.cleanup();
    }
  });
});

/** Each child's recorded `integration` output, by resource name. */
async function childIntegrations(stack: Stack): Promise<Record<string, unknown>> {
  const state = await stack.exportStack();
  return Object.fromEntries(
    (state.deployment.resources as any[])
      .filter((r) => r.outputs?.integration !== undefined)
      .map((r) => [r.urn.split("::").pop(), r.outputs.integration])
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}
