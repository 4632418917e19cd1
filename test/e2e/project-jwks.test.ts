/**
 * A project's JWKS URL of an external identity provider beside a branch's NeonAuth, on both faces,
 * through the engine: the first `up` loses the answer of the JWKS POST after Neon acted, and
 * converges on the one entry it made (no second POST); exact request bodies from the emulator's log;
 * no changes after; the entry declared twice fails at preview naming both; the entry removed at Neon
 * shows on refresh and `up` makes it again; destroy leaves nothing; one made outside the stack is
 * not taken over until `adopt`. The classes' entry covers the project, the plugin's one branch.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { jwksEndpoints as J } from "../../src/schemas/jwks";
import { changesOf, expectNoChanges, onFreshEmulator, pluginStack, programOnProject, stackFor, useEmulatorStack, type E2eStack } from "./harness";
import { branchSnapshot, clearRequestLog, neonApi, neonConfig, projectConfig, requestLog } from "./neon";
import { atEmulator, emulatorOnly, injectAtEmulator, REMOTE } from "./remote";

const CLERK = { jwks_url: "https://clerk.example.com/.well-known/jwks.json", provider_name: "Clerk", jwt_audience: "api://app" };

/** The routes whose request bodies the log keeps: none carries a secret. */
const LOGGED = ["/projects/{project_id}/jwks", "/projects/{project_id}/jwks/{jwks_id}", "/projects/{project_id}/branches/{branch_id}/auth"];

/** The writes of the log, as `METHOD template status[/fault]` and the body sent, in order. */
async function writes(em: EmulatorHandle): Promise<[string, unknown][]> {
  return (await requestLog(em)).filter((e: any) => e.method !== "GET").map((e: any) => [`${e.method} ${e.route} ${e.status}${e.fault ? `/${e.fault}` : ""}`, e.body]);
}

async function entries(em: EmulatorHandle, project: string): Promise<Record<string, unknown>[]> {
  const r = await neonApi(em, "GET", `/projects/${project}/jwks`);
  expect(r.status).toBe(200);
  return r.json.jwks;
}

/** How a face declares the entry a second time (`twice`), or with `adopt: true`. */
interface Face {
  twice(on: boolean): Promise<void>;
  adopt(): Promise<void>;
}

const failure = (run: Promise<unknown>) => run.then(() => "succeeded", (e: Error) => e.message);

/** The life of the stack, the same on both faces; `scope` is the entry's branch, if any. */
async function lifecycle(em: EmulatorHandle, e2e: E2eStack, project: string, branch: string, scope: { branch_id?: string }, face: Face): Promise<void> {
  await clearRequestLog(em);
  injectAtEmulator(em, { kind: "lost", method: J.addProjectJWKS.method, path: J.addProjectJWKS.path });
  const up = await e2e.stack.up({ color: "never" });
  expect(up.summary.resourceChanges).toEqual({ create: 3 });
  await atEmulator(() => expect(em.faults.injected.lost).toBe(1));
  const body = { ...CLERK, ...scope };
  // One POST, its answer lost: the entry it made is found, not made twice. The NeonAuth's POST beside it.
  expect((await writes(em)).sort()).toEqual([
    ["POST /projects/{project_id}/branches/{branch_id}/auth 201", { auth_provider: "better_auth" }],
    [`POST /projects/{project_id}/jwks 201${REMOTE ? "" : "/lost"}`, body],
  ]);
  const [made, ...more] = await entries(em, project);
  expect(more).toEqual([]);
  expect(made).toEqual({ id: made!.id, project_id: project, ...body, created_at: made!.created_at, updated_at: made!.created_at, role_names: [] });
  expect((await e2e.stack.outputs()).jwksId?.value).toBe(made!.id);
  expect((await branchSnapshot(em, project, branch)).auth?.auth_provider).toBe("better_auth");

  // One owner: the same entry declared twice fails at preview, naming both, with no write.
  await face.twice(true);
  await clearRequestLog(em);
  const declaredTwice = await failure(e2e.stack.preview({ color: "never" }));
  expect(declaredTwice).toContain("declare one JWKS entry (jwksUrl, providerName, jwtAudience): both would manage one object at Neon");
  // Each named by its URN (two components may each hold a resource of one name).
  expect([/ProjectJwks urn:pulumi:[^\s]*::clerk and /.test(declaredTwice), /and ProjectJwks urn:pulumi:[^\s]*::clerk-again /.test(declaredTwice)]).toEqual([true, true]);
  expect(await writes(em)).toEqual([]);
  await face.twice(false);

  // Removed at Neon (the console, another tool): refresh forgets it, up adds it again.
  expect((await neonApi(em, "DELETE", `/projects/${project}/jwks/${made!.id}`)).status).toBe(200);
  await clearRequestLog(em);
  expect(changesOf((await e2e.stack.refresh({ color: "never" })).summary.resourceChanges)).toEqual({ delete: 1 });
  expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ create: 1, same: 2 });
  expect(await writes(em)).toEqual([["POST /projects/{project_id}/jwks 201", body]]);
  const [again, ...second] = await entries(em, project);
  expect([second, again!.id === made!.id, again!.jwks_url]).toEqual([[], false, CLERK.jwks_url]);
  await expectNoChanges(e2e.stack, 3);

  await clearRequestLog(em);
  expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 3 });
  expect((await writes(em)).sort()).toEqual([
    ["DELETE /projects/{project_id}/branches/{branch_id}/auth 200", {}],
    [`DELETE /projects/{project_id}/jwks/{jwks_id} 200`, undefined],
  ]);
  expect(await entries(em, project)).toEqual([]);
  expect((await branchSnapshot(em, project, branch)).auth).toBeUndefined();

  // Made outside the stack: not taken over unasked (no POST of it), then taken over with `adopt`.
  const outside = await neonApi(em, "POST", `/projects/${project}/jwks`, body);
  expect(outside.status).toBe(201);
  await clearRequestLog(em);
  const refused = await failure(e2e.stack.up({ color: "never" }));
  expect(refused).toContain(`ProjectJwks ${CLERK.jwks_url} (Clerk) of project ${project}`);
  expect(refused).toContain("already exists and was not made by this stack");
  expect((await writes(em)).map(([w]) => w)).toEqual(["POST /projects/{project_id}/branches/{branch_id}/auth 201"]);
  await face.adopt();
  expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ create: 1, same: 2 });
  expect((await entries(em, project)).map((j) => j.id)).toEqual([outside.json.jwks.id]);
  expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 3 });
  expect(await entries(em, project)).toEqual([]);
}

describe("a project's JWKS URL beside a NeonAuth — the classes", () => {
  const P = "p-jwks";
  const s = useEmulatorStack({ ...programOnProject("project-jwks", P, { emulator: { rateLimit: "off", logBodies: LOGGED } }) });

  it("converges after a lost answer with one entry, has one owner, shows drift, repairs it, destroys all, adopts only when asked", { timeout: 600_000 }, async () => {
    await lifecycle(s.em, s.e2e, P, `br-main-${P}`, {}, {
      twice: (on) => s.e2e.stack.setConfig("twice", { value: String(on) }),
      adopt: () => s.e2e.stack.setConfig("adopt", { value: "true" }),
    });
  });
});

describe("a project's JWKS URL beside a NeonAuth — the plugin", () => {
  const P = "p-jwks-yaml";
  const B = `br-main-${P}`;
  const s = useEmulatorStack({ emulator: { seedProjects: [`${P}:${B}`], rateLimit: "off", logBodies: LOGGED } });

  it("converges after a lost answer with one entry, has one owner, shows drift, repairs it, destroys all, adopts only when asked", { timeout: 600_000 }, async () => {
    const e2e = await pluginStack({ program: path.join(__dirname, "programs", "project-jwks-yaml"), config: { ...neonConfig(s.em), ...projectConfig(P, B) } }, "yaml");
    const program = path.join(e2e.dir, "Pulumi.yaml");
    const base = fs.readFileSync(program, "utf8");
    // The same entry again: a copy of the program's `clerk` resource under another name.
    const clerk = base.slice(base.indexOf("  clerk:\n"), base.indexOf("outputs:"));
    const again = base.replace("outputs:", `${clerk.replace("  clerk:", "  clerk-again:")}outputs:`);
    try {
      await lifecycle(s.em, e2e, P, B, { branch_id: B }, {
        twice: async (on) => fs.writeFileSync(program, on ? again : base),
        adopt: () => e2e.stack.setConfig("adopt", { value: "true" }),
      });
    } finally {
      await e2e.cleanup();
    }
  });
});

/** The stack of each face on a half-made test's project: the TypeScript program or the YAML one. */
const HALF_MADE: Record<string, (em: EmulatorHandle, project: string) => Promise<E2eStack>> = {
  classes: (em, project) => stackFor({ program: path.join(__dirname, "programs", "project-jwks"), config: { ...neonConfig(em), ...projectConfig(project, `br-main-${project}`) } }),
  plugin: (em, project) => pluginStack({ program: path.join(__dirname, "programs", "project-jwks-yaml"), config: { ...neonConfig(em), ...projectConfig(project, `br-main-${project}`) } }, "yaml"),
};

/** Operations that run a second, so that the package polls the one applying the entry. */
const SLOW_OPERATIONS = { rateLimit: "off", operationDelayMs: 1_000 } as const;

emulatorOnly("an operation the emulator fails on purpose")("a half-made ProjectJwks", () => {
  for (const [name, stackOn] of Object.entries(HALF_MADE)) {
    it(`— the ${name}: recorded when the operation applying it cannot be read; the next up completes it, destroy removes it`, { timeout: 600_000 }, async () => {
      const P = `p-jwks-half-${name}`;
      await onFreshEmulator(P, (em) => stackOn(em, P), async ({ em, e2e }) => {
        em.injectFaults({ kind: "error", method: "GET", path: "/projects/{project_id}/operations/{operation_id}", status: 404 });
        const failed = await failure(e2e.stack.up({ color: "never" }));
        expect(failed).toContain("ProjectJwks: the JWKS entry");
        expect(failed).toContain("was added, but the operation applying it failed");
        const [made, ...more] = await entries(em, P);
        expect(more).toEqual([]);
        // The engine kept it (initialization failed): the next up takes it from there, adding nothing.
        expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ update: 1, same: 2 });
        expect((await entries(em, P)).map((j) => j.id)).toEqual([made!.id]);
        await expectNoChanges(e2e.stack, 3);
        expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 3 });
        expect(await entries(em, P)).toEqual([]);
      }, SLOW_OPERATIONS);
    });
  }
});
