/**
 * The packed package as users install it: three new programs (TypeScript laid out like
 * `pulumi new typescript`, CommonJS JavaScript, ES module JavaScript), each with the pinned
 * @pulumi/pulumi and with the oldest the peer range admits. The TypeScript program type-checks
 * with 0 errors under the unchanged `pulumi new` tsconfig (strict, no esModuleInterop, no
 * skipLibCheck). The three declare the same stack: per version, one stack goes up on each program
 * in turn (the first creates it, the others change nothing and read the same outputs), then
 * shows no changes on a preview and a refresh, and is destroyed.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { dependencyWorkspace, installPackage } from "../../scripts/workspace.mts";
import type { EmulatorHandle } from "../../src/emulator";
import { expectNoChanges, stackFor, useEmulatorStack } from "./harness";
import { neonConfig, snapshot } from "./neon";

const FLAVOURS = ["ts", "cjs", "esm"] as const;
type Flavour = (typeof FLAVOURS)[number];

const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
/** The floor of the peer range (`^3.259.0`): the oldest @pulumi/pulumi a program may bring. */
const OLDEST = { "@pulumi/pulumi": (pkg.peerDependencies["@pulumi/pulumi"] as string).replace(/^\^/, "") };

const pulumiVersion = (workspace: string): string =>
  JSON.parse(fs.readFileSync(path.join(workspace, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")).version;

/** Runs the workspace's tsc; returns its output (empty when there is nothing to report). */
function tsc(workspace: string, project: string): { status: number; output: string } {
  try {
    const out = execFileSync(path.join(workspace, "node_modules", ".bin", "tsc"), ["--noEmit", "--pretty", "false", "-p", project], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    return { status: 0, output: out };
  } catch (err: any) {
    return { status: err.status ?? -1, output: `${err.stdout ?? ""}${err.stderr ?? ""}` };
  }
}

describe("installing the packed package into new programs", () => {
  let em: EmulatorHandle;
  const workspaces: Record<string, string> = {};

  beforeAll(() => {
    workspaces.pinned = inject("e2eWorkspace");
    // The same build the run's global setup packed, installed next to the oldest @pulumi/pulumi.
    workspaces.oldest = dependencyWorkspace(OLDEST);
    installPackage(workspaces.oldest, path.join(workspaces.pinned, "pulumi-neon-auth.tgz"));
  });

  useEmulatorStack({
    emulator: { seedProjects: ["pinned", "oldest"].map((w) => `p-install-${w}`) },
    ready: (s) => (em = s.em),
  });

  it("resolves two different @pulumi/pulumi versions", () => {
    expect(pulumiVersion(workspaces.pinned!)).toBe(pkg.devDependencies["@pulumi/pulumi"]);
    expect(pulumiVersion(workspaces.oldest!)).toBe(OLDEST["@pulumi/pulumi"]);
    expect(OLDEST["@pulumi/pulumi"]).not.toBe(pkg.devDependencies["@pulumi/pulumi"]);
  });

  /**
   * Puts `flavour`'s program in the stack's folder in place of the one before (the three are one
   * Pulumi project, `install`: one stack moves between them).
   */
  function useProgram(dir: string, flavour: Flavour): void {
    for (const f of fs.readdirSync(dir)) if (!f.startsWith("Pulumi.") || f === "Pulumi.yaml") fs.rmSync(path.join(dir, f), { recursive: true, force: true });
    fs.cpSync(path.join(__dirname, "programs", `install-${flavour}`), dir, { recursive: true });
  }

  /**
   * One stack per version, on the programs in turn: the TypeScript one creates the stack's three
   * resources; the CommonJS one, then the ES module one, each runs its up over them and changes
   * nothing, with the same outputs and the same providers recorded; then a no-change preview and
   * refresh, and destroy.
   */
  async function runFlavours(which: "pinned" | "oldest"): Promise<void> {
    const project = `p-install-${which}`;
    const e2e = await stackFor({
      asWritten: true,
      program: path.join(__dirname, "programs", "install-ts"),
      workspace: workspaces[which]!,
      stackName: "install",
      config: { ...neonConfig(em), projectId: { value: project }, branchId: { value: `br-main-${project}` } },
    });
    try {
      // The program's own tsconfig, as `pulumi new typescript` writes it: 0 errors.
      expect(tsc(workspaces[which]!, e2e.dir)).toEqual({ status: 0, output: "" });
      // The client subpath's types reach zod's, whose declarations need esModuleInterop.
      expect(tsc(workspaces[which]!, path.join(e2e.dir, "tsconfig.client.json"))).toEqual({ status: 0, output: "" });

      for (const flavour of FLAVOURS) {
        if (flavour !== "ts") useProgram(e2e.dir, flavour);
        const up = await e2e.stack.up({ color: "never" });
        expect(up.summary.result, flavour).toBe("succeeded");
        expect(up.summary.resourceChanges, flavour).toEqual(flavour === "ts" ? { create: 3 } : { same: 3 });
        expect(up.outputs.origin, flavour).toEqual({ value: "https://app.example.com", secret: false });
        expect(up.outputs.ownedBy, flavour).toEqual({ value: "neon", secret: false });
        expect(up.outputs.envVarNames, flavour).toEqual({
          value: ["NEXT_PUBLIC_STACK_PROJECT_ID", "NEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY", "STACK_SECRET_SERVER_KEY"],
          secret: false,
        });
        if (flavour !== "ts") expect(up.outputs.subpath, flavour).toEqual({ value: "function", secret: false });
        const snap = await snapshot(em, project);
        expect(snap.integrations).toEqual([{ auth_provider: "stack", branch_id: `br-main-${project}`, owned_by: "neon" }]);
        expect(snap.domains).toEqual(["https://app.example.com"]);

        // State records each provider as a require() of its module: the compatibility promise.
        const state = await e2e.stack.exportStack();
        const providers = (state.deployment.resources as any[])
          .filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/neon-auth:"))
          .map((r) => [r.type, /require\("(pulumi-neon-auth\/dist\/[^"]+)"\)/.exec(r.inputs.__provider)?.[1]]);
        expect(providers.sort(), flavour).toEqual([
          ["pulumi-nodejs:dynamic/neon-auth:AuthIntegration", "pulumi-neon-auth/dist/resources/providers/AuthIntegration.js"],
          ["pulumi-nodejs:dynamic/neon-auth:RedirectDomain", "pulumi-neon-auth/dist/resources/providers/RedirectDomain.js"],
        ]);
      }

      await expectNoChanges(e2e.stack, 3);

      const destroy = await e2e.stack.destroy({ color: "never" });
      expect(destroy.summary.resourceChanges).toEqual({ delete: 3 });
      const gone = await snapshot(em, project);
      expect([gone.integrations, gone.domains]).toEqual([[], []]);
    } finally {
      await e2e.cleanup();
    }
  }

  for (const which of ["pinned", "oldest"] as const) {
    it(`type-checks, and runs up in TS, then CJS, then ESM programs, then preview, refresh, destroy (${which} @pulumi/pulumi)`, async () => {
      await runFlavours(which);
    });
  }
});
