/**
 * A Go program on the `neon-auth` provider plugin, through the real engine: the Go SDK generated
 * from the checkout's schema (scripts/sdk.mts, Pulumi's Go generator), the program built and run by
 * the project's language host (tools/language-host, as pulumi-language-go). One stack of both API
 * generations, each on a project of its own, goes up, previews and refreshes with no changes,
 * updates in place and by replacement, meets drift and is destroyed; its up (with the no-change
 * preview and refresh) and its destroy send the same requests as the same stack in TypeScript on the
 * package's classes.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { ConfigMap } from "@pulumi/pulumi/automation";
import type { EmulatorHandle } from "../../src/emulator";
import { changedFields, changesOf, expectNoChanges, pluginStack, stackFor, type E2eStack } from "./harness";
import { branchSnapshot, clearRequestLog, emulator, neonConfig, outOfBand, projectConfig, providers, requestLog, snapshot } from "./neon";

const PROGRAM = path.join(__dirname, "programs", "plugin-go");
/** Where the stack's two generations are: a branch's Neon Auth, and a project-level integration. */
const BRANCH = { project: "p-go-branch", branch: "br-main-p-go-branch" };
const PROJECT = { project: "p-go-project", branch: "br-main-p-go-project" };

const goStack = (config: ConfigMap) => pluginStack({ program: PROGRAM, config }, "go");

describe("a Go program on the neon-auth plugin", () => {
  it("manages a branch's Neon Auth and a project-level integration in one stack: up, no-change preview and refresh, update, a replaced domain, drift, destroy; the same requests as on the classes", { timeout: 900_000 }, async () => {
    const { project, branch } = BRANCH;
    const { project: other, branch: otherBranch } = PROJECT;
    const em = await emulator({ seedProjects: [`${project}:${branch}`, `${other}:${otherBranch}`] });
    let e2e: E2eStack | undefined;
    try {
      e2e = await goStack({
        ...neonConfig(em),
        ...projectConfig(project, branch, { githubSecret: "gh-go-secret-1" }),
        appName: { value: "One" },
        domain: { value: "https://go.example.com" },
        generation: { value: "both" },
        integrationProjectId: { value: other },
        integrationBranchId: { value: otherBranch },
        integrationDomain: { value: "https://one.example.com" },
      });
      await clearRequestLog(em);
      const up = await e2e.stack.up({ color: "never" });
      await expectNoChanges(e2e.stack, 6);
      const requests = { up: await requestsSince(em) };
      expect(up.summary.resourceChanges).toEqual({ create: 6 });
      expect(await branchSnapshot(em, project, branch)).toMatchObject({ auth: { name: "One", auth_provider: "better_auth" }, domains: ["https://go.example.com"], providers: providers({ github: "standard", google: "shared" }) });
      expect(await snapshot(em, other)).toMatchObject({ integrations: [{ auth_provider: "stack", branch_id: otherBranch }], domains: ["https://one.example.com"] });

      // The app's name in place; the project's domain replaced.
      await e2e.stack.setAllConfig({ appName: { value: "Two" }, integrationDomain: { value: "https://two.example.com" } });
      const diff = e2e.cli("preview", "--diff", "--color", "never");
      expect(changedFields(diff)).toEqual(["~ appName", "~ domain"]);
      expect(diff).toContain("+-neon-auth:index:RedirectDomain: (replace)");
      expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ update: 1, replace: 1, same: 4 });
      expect((await branchSnapshot(em, project, branch)).auth?.name).toBe("Two");
      expect((await snapshot(em, other)).domains).toEqual(["https://two.example.com"]);

      // Drift: the branch's domain removed outside the stack is dropped by refresh, made again by up.
      expect(await outOfBand(em, "DELETE", `/projects/${project}/branches/${branch}/auth/domains`, { auth_provider: "better_auth", domains: [{ domain: "https://go.example.com" }] })).toBe(200);
      expect(changesOf((await e2e.stack.refresh({ color: "never" })).summary.resourceChanges)).toEqual({ delete: 1 });
      expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ create: 1, same: 5 });
      await expectNoChanges(e2e.stack, 6);

      const stacks = path.join(e2e.backendDir, ".pulumi", "stacks");
      for (const dir of fs.readdirSync(stacks)) expect(fs.readFileSync(path.join(stacks, dir, `${e2e.stack.name}.json`), "utf8")).not.toContain("gh-go-secret-1");

      await clearRequestLog(em);
      expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 6 });
      const destroy = await requestsSince(em);
      expect((await branchSnapshot(em, project, branch)).auth).toBeUndefined();
      expect(await snapshot(em, other)).toMatchObject({ integrations: [], domains: [] });

      // The same stack in TypeScript on the package's classes sends the same requests.
      expect(requests.up.length).toBeGreaterThan(0);
      expect({ ...requests, destroy }).toEqual(await onTheClasses());
    } finally {
      await e2e?.cleanup();
      await em.close();
    }
  });
});

/** Method and path of every API request since the log was cleared, sorted. */
const requestsSince = async (em: EmulatorHandle) => (await requestLog(em)).map((r) => `${r.method} ${r.path}`).sort();

/**
 * The requests of the Go program's first up (with its no-change preview and refresh) and of a
 * destroy, from the same stack on the dynamic resources: test/e2e/programs/plugin with
 * `surface: dynamic`, on an emulator of its own with the same projects.
 */
async function onTheClasses(): Promise<{ up: string[]; destroy: string[] }> {
  const em = await emulator({ seedProjects: [`${BRANCH.project}:${BRANCH.branch}`, `${PROJECT.project}:${PROJECT.branch}`] });
  const specs = [
    { kind: "NeonAuth", name: "auth", args: { projectId: BRANCH.project, branchId: BRANCH.branch, appName: "One" } },
    { kind: "OAuthProvider", name: "github", args: { integration: "auth", providerId: "github", clientId: "gh-id", clientSecret: "gh-go-secret-1" }, secret: ["clientSecret"] },
    { kind: "RedirectDomain", name: "app", args: { integration: "auth", domain: "https://go.example.com" } },
    { kind: "AuthIntegration", name: "integration", args: { projectId: PROJECT.project, branchId: PROJECT.branch } },
    { kind: "RedirectDomain", name: "origin", args: { integration: "integration", domain: "https://one.example.com" } },
  ];
  let e2e: E2eStack | undefined;
  try {
    e2e = await stackFor({ program: path.join(__dirname, "programs", "plugin"), config: { ...neonConfig(em), resources: { value: JSON.stringify(specs) }, surface: { value: "dynamic" } } });
    await clearRequestLog(em);
    await e2e.stack.up({ color: "never" });
    await expectNoChanges(e2e.stack, 6);
    const up = await requestsSince(em);
    await clearRequestLog(em);
    await e2e.stack.destroy({ color: "never" });
    return { up, destroy: await requestsSince(em) };
  } finally {
    await e2e?.cleanup();
    await em.close();
  }
}
