/**
 * The `neon-auth` provider plugin (`pulumi-resource-neon-auth`, src/plugin/) through the real
 * engine, from a TypeScript program on its Node.js SDK (generated from the checkout's schema by
 * scripts/sdk.mts): one stack of both API generations goes up, previews and refreshes with no changes,
 * updates with `preview --diff` naming exactly the changed fields, meets drift, is imported by id,
 * and is destroyed (plugin-go.test.ts compares the plugin's requests with the dynamic resources').
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { changedFields, changesOf, expectNoChanges, pluginStack, type E2eStack, type stackFor } from "./harness";
import { branchSnapshot, emulator, neonConfig, outOfBand, providers, snapshot } from "./neon";

const PROGRAM = path.join(__dirname, "programs", "plugin");

interface Spec {
  kind: string;
  name: string;
  args: Record<string, unknown>;
  secret?: string[];
}


function branchStack(project: string, branch: string, o: { appName: string; secret: string }): Spec[] {
  return [
    { kind: "NeonAuth", name: "auth", args: { projectId: project, branchId: branch, appName: o.appName } },
    { kind: "RedirectDomain", name: "app", args: { integration: "auth", domain: "https://app.example.com" } },
    { kind: "OAuthProvider", name: "github", args: { integration: "auth", providerId: "github", clientId: "gh-id", clientSecret: o.secret }, secret: ["clientSecret"] },
  ];
}

function projectStack(project: string, branch: string, o: { domain: string }): Spec[] {
  return [
    { kind: "AuthIntegration", name: "project", args: { projectId: project, branchId: branch } },
    { kind: "RedirectDomain", name: "origin", args: { integration: "project", domain: o.domain } },
  ];
}

/** A stack of the program on the plugin, through its Node.js SDK (the dynamic surface ignores it). */
const onPlugin = (opts: Omit<Parameters<typeof stackFor>[0], "program">) => pluginStack({ ...opts, program: PROGRAM }, "nodejs");

const resources = (specs: Spec[]) => ({ resources: { value: JSON.stringify(specs) } });

async function setResources(e2e: E2eStack, specs: Spec[]): Promise<void> {
  await e2e.stack.setConfig("resources", { value: JSON.stringify(specs) });
}

/** The raw state file: what is kept on disk, secrets encrypted. */
const stateText = (e2e: E2eStack) => fs.readFileSync(path.join(e2e.backendDir, ".pulumi", "stacks", "plugin", `${e2e.stack.name}.json`), "utf8");

/**
 * One stack of both API generations (each on a project of its own): a branch's NeonAuth with a
 * domain and an OAuth provider, and a project-level integration with a domain.
 */
function bothStacks(o: { appName: string; secret: string; domain: string }): Spec[] {
  return [...branchStack(BRANCH_PROJECT, `br-main-${BRANCH_PROJECT}`, o), ...projectStack(PROJECT, `br-main-${PROJECT}`, o)];
}
const BRANCH_PROJECT = "p-plugin-branch";
const PROJECT = "p-plugin-project";

describe("the neon-auth provider plugin: a branch stack (NeonAuth) and a project-level one (AuthIntegration) in one", () => {
  it("goes up, updates with named fields, replaces a changed domain, meets drift, imports by id and is destroyed", { timeout: 600_000 }, async () => {
    const [project, branch] = [BRANCH_PROJECT, `br-main-${BRANCH_PROJECT}`];
    const em = await emulator({ seedProjects: [`${project}:${branch}`, `${PROJECT}:br-main-${PROJECT}`] });
    let e2e: E2eStack | undefined;
    try {
      e2e = await onPlugin({ config: { ...neonConfig(em), ...resources(bothStacks({ appName: "One", secret: "gh-secret-1", domain: "https://one.example.com" })) } });
      const up = await e2e.stack.up({ color: "never" });
      expect(up.summary.resourceChanges).toEqual({ create: 6 });
      expect(await branchSnapshot(em, project, branch)).toMatchObject({ auth: { name: "One", auth_provider: "better_auth" }, domains: ["https://app.example.com"], providers: providers({ github: "standard", google: "shared" }) });
      expect(await snapshot(em, PROJECT)).toMatchObject({ integrations: [{ auth_provider: "stack", branch_id: `br-main-${PROJECT}` }], domains: ["https://one.example.com"] });
      expect(up.outputs.ids!.value).toEqual({
        auth: `${project}/${branch}`,
        app: `${project}/${branch}/https://app.example.com`,
        github: `${project}/${branch}/github`,
        project: `${PROJECT}/stack`,
        origin: `${PROJECT}/https://one.example.com`,
      });
      await expectNoChanges(e2e.stack, 6);

      // An update: the app's name in place, the provider's secret rotated, the project's domain replaced.
      await setResources(e2e, bothStacks({ appName: "Two", secret: "gh-secret-2", domain: "https://two.example.com" }));
      const diff = e2e.cli("preview", "--diff", "--color", "never");
      expect(changedFields(diff)).toEqual(["~ appName", "~ clientSecret", "~ domain"]);
      expect(diff).toContain('~ appName: "One" => "Two"');
      expect(diff).toContain("~ clientSecret: [secret] => [secret]");
      expect(diff).toContain("+-neon-auth:index:RedirectDomain: (replace)");
      expect(diff).not.toContain("gh-secret");
      const update = await e2e.stack.up({ color: "never" });
      expect(update.summary.resourceChanges).toEqual({ update: 2, replace: 1, same: 3 });
      expect((await branchSnapshot(em, project, branch)).auth?.name).toBe("Two");
      expect((await snapshot(em, PROJECT)).domains).toEqual(["https://two.example.com"]);

      // Drift: each domain removed outside the stack is dropped by refresh, made again by up.
      expect(await outOfBand(em, "DELETE", `/projects/${project}/branches/${branch}/auth/domains`, { auth_provider: "better_auth", domains: [{ domain: "https://app.example.com" }] })).toBe(200);
      expect(await outOfBand(em, "DELETE", `/projects/${PROJECT}/auth/domains`, { auth_provider: "stack", domains: [{ domain: "https://two.example.com" }] })).toBe(200);
      const refresh = await e2e.stack.refresh({ color: "never" });
      expect(changesOf(refresh.summary.resourceChanges)).toEqual({ delete: 2 });
      const again = await e2e.stack.up({ color: "never" });
      expect(again.summary.resourceChanges).toEqual({ create: 2, same: 4 });
      expect((await branchSnapshot(em, project, branch)).domains).toEqual(["https://app.example.com"]);
      expect((await snapshot(em, PROJECT)).domains).toEqual(["https://two.example.com"]);

      // Import by id, with no prior state: the program then previews no change.
      e2e.cli("state", "delete", `urn:pulumi:${e2e.stack.name}::plugin::neon-auth:index:RedirectDomain::app`, "--yes");
      const id = `${project}/${branch}/https://app.example.com`;
      await e2e.run("import", "neon-auth:index:RedirectDomain", "app", id, "--yes", "--protect=false", "--generate-code=false", "--skip-preview", "--non-interactive");
      await expectNoChanges(e2e.stack, 6);

      const state = stateText(e2e);
      for (const secret of ["gh-secret-1", "gh-secret-2", "e2e-key-4f1d2c9a7b"]) expect(state).not.toContain(secret);

      const destroy = await e2e.stack.destroy({ color: "never" });
      expect(destroy.summary.resourceChanges).toEqual({ delete: 6 });
      expect((await branchSnapshot(em, project, branch)).auth).toBeUndefined();
      expect(await snapshot(em, PROJECT)).toMatchObject({ integrations: [], domains: [] });
    } finally {
      await e2e?.cleanup();
      await em.close();
    }
  });
});
