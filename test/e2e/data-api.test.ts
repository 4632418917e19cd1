/**
 * DataApi through the real engine, on both faces (the classes; Pulumi YAML on the plugin), each on
 * one stack: a NeonAuth and the Data API bound to it, whose create loses its answer (one Data API,
 * not two); no changes after; a settings change previews as one update and sends one PATCH; drift
 * made at Neon shows on refresh and is repaired by up; another identity provider previews as a
 * replacement; a Data API bound to a branch without Neon Auth fails with Neon's error and leaves
 * nothing; destroy deletes the Data API before it disables Neon Auth and leaves nothing. The exact
 * bodies sent come from the emulator's log.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { attempt, changesOf, expectNoChanges, onFreshEmulator, pluginStack, useEmulatorStack, type E2eStack } from "./harness";
import { clearRequestLog, neonApi, neonConfig, newBranch, projectConfig, requestLog } from "./neon";
import { atEmulator, injectAtEmulator } from "./remote";

const DATA_API = "/projects/{project_id}/branches/{branch_id}/data-api/{database_name}";
const AUTH = "/projects/{project_id}/branches/{branch_id}/auth";
const SETTINGS = { dbSchemas: ["api"], dbMaxRows: 100, jwtRoleClaimKey: ".role" };
const WIRE = { db_schemas: ["api"], db_max_rows: 100, jwt_role_claim_key: ".role" };
const JWKS = { jwksUrl: "https://idp.example.com/.well-known/jwks.json", providerName: "Clerk", jwtAudience: "shop-api" };

/** The writes of the Data API and of Neon Auth the log holds, in order, with the Data API's bodies. */
async function writes(em: EmulatorHandle): Promise<{ call: string; body?: unknown }[]> {
  return (await requestLog(em))
    .filter((e: any) => e.method !== "GET" && (e.route === DATA_API || e.route === AUTH))
    .map((e: any) => ({ call: `${e.method} ${e.route === AUTH ? "auth" : "data-api"}`, ...(e.body === undefined ? {} : { body: e.body }) }));
}

const dataApiOf = async (em: EmulatorHandle, project: string, branch: string) => neonApi(em, "GET", `/projects/${project}/branches/${branch}/data-api/neondb`);

describe("DataApi on the classes", () => {
  const P = "p-data-api";
  const B = `br-main-${P}`;
  let em: EmulatorHandle;
  let e2e: E2eStack;
  const args = (api?: object) => ({ args: { value: JSON.stringify({ projectId: P, branchId: B, ...(api === undefined ? {} : { api }) }) } });
  useEmulatorStack({
    emulator: { seedProjects: [`${P}:${B}`], rateLimit: "off", logBodies: [DATA_API] },
    stack: (em) => ({ program: path.join(__dirname, "programs", "data-api"), config: { ...neonConfig(em), ...args({ settings: SETTINGS }) } }),
    ready: (s) => ({ em, e2e } = s),
  });

  it("bound to its NeonAuth: a lost create, one update, drift, another provider, destroy in order", { timeout: 600_000 }, async () => {
    injectAtEmulator(em, { kind: "lost", method: "POST", path: DATA_API });
    const up = await e2e.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toEqual({ create: 3 });
    await atEmulator(() => expect(em.faults.injected.lost).toBe(1));
    // One POST (its answer lost): the Data API it made was found, not made twice.
    expect(await writes(em)).toEqual([{ call: "POST auth" }, { call: "POST data-api", body: { auth_provider: "neon_auth", settings: WIRE } }]);
    const live = await dataApiOf(em, P, B);
    expect(live.json.settings).toMatchObject(WIRE);
    expect(up.outputs.url!.value).toBe(live.json.url);
    expect(up.outputs.availableSchemas!.value).toEqual(["public", "api"]);

    // A setting changed: one update, one PATCH with every setting the program names.
    await clearRequestLog(em);
    await e2e.stack.setAllConfig(args({ settings: { ...SETTINGS, dbMaxRows: 50, openapiMode: "ignore-privileges" } }));
    expect(changesOf((await e2e.stack.preview({ color: "never" })).changeSummary)).toEqual({ update: 1 });
    expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ update: 1, same: 2 });
    const patched = { settings: { ...WIRE, db_max_rows: 50, openapi_mode: "ignore-privileges" } };
    expect(await writes(em)).toEqual([{ call: "PATCH data-api", body: patched }]);

    // Drift made at Neon: refresh shows it, up writes the program's settings back.
    expect((await neonApi(em, "PATCH", `/projects/${P}/branches/${B}/data-api/neondb`, { settings: { db_max_rows: 999 } })).status).toBe(201);
    expect(changesOf((await e2e.stack.refresh({ color: "never" })).summary.resourceChanges)).toEqual({ update: 1 });
    await clearRequestLog(em);
    expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ update: 1, same: 2 });
    expect(await writes(em)).toEqual([{ call: "PATCH data-api", body: patched }]);
    expect((await dataApiOf(em, P, B)).json.settings.db_max_rows).toBe(50);
    await expectNoChanges(e2e.stack, 3);

    // Another identity provider: Neon cannot change it in place, so the preview says replace, naming the fields.
    await e2e.stack.setAllConfig(args({ settings: { ...SETTINGS, dbMaxRows: 50, openapiMode: "ignore-privileges" }, external: JWKS }));
    const diff = await e2e.stack.preview({ color: "never", diff: true });
    expect(changesOf(diff.changeSummary)).toEqual({ replace: 1 });
    expect(diff.stdout).toMatch(/\+-pulumi-nodejs:dynamic\/neon-auth:DataApi: \(replace\)/);
    // Exactly the fields that force it: the NeonAuth left, the provider's three came.
    const fields = [...diff.stdout.matchAll(/^ {6}([+-]) (\w+)\s*:/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(fields).toEqual(["- integration", "+ jwksUrl", "+ jwtAudience", "+ providerName"]);
    await e2e.stack.setAllConfig(args({ settings: { ...SETTINGS, dbMaxRows: 50, openapiMode: "ignore-privileges" } }));

    // Destroy: the Data API goes before Neon Auth is disabled under it; nothing is left at Neon.
    await clearRequestLog(em);
    expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 3 });
    expect(await writes(em)).toEqual([{ call: "DELETE data-api" }, { call: "DELETE auth" }]);
    expect((await dataApiOf(em, P, B)).status).toBe(404);
    expect((await neonApi(em, "GET", `/projects/${P}/branches/${B}/auth`)).status).toBe(404);
  });
});

describe("DataApi in Pulumi YAML on the plugin", () => {
  it("bound to its NeonAuth: a lost create, one update, a Data API on a branch without Neon Auth refused, destroy", { timeout: 600_000 }, async () => {
    const P = "p-data-api-yaml";
    const stack = (em: EmulatorHandle, branch: string) =>
      pluginStack({ program: path.join(__dirname, "programs", "data-api-yaml"), config: { ...neonConfig(em), ...projectConfig(P, branch) } }, "yaml");
    await onFreshEmulator(
      P,
      stack,
      async ({ em, e2e, branch }) => {
        // A branch made before Neon Auth is enabled on its parent: it has none (a branch made after would inherit it).
        const bare = await newBranch(em, P, "no-auth");
        injectAtEmulator(em, { kind: "lost", method: "POST", path: DATA_API });
        const up = await e2e.stack.up({ color: "never" });
        expect(up.summary.resourceChanges).toEqual({ create: 3 });
        await atEmulator(() => expect(em.faults.injected.lost).toBe(1));
        expect(await writes(em)).toEqual([{ call: "POST auth" }, { call: "POST data-api", body: { auth_provider: "neon_auth", settings: WIRE } }]);
        expect(up.outputs.url!.value).toBe((await dataApiOf(em, P, branch)).json.url);

        const program = path.join(e2e.dir, "Pulumi.yaml");
        const source = fs.readFileSync(program, "utf8");
        await clearRequestLog(em);
        fs.writeFileSync(program, source.replace("dbMaxRows: 100", "dbMaxRows: 50"));
        expect(changesOf((await e2e.stack.preview({ color: "never" })).changeSummary)).toEqual({ update: 1 });
        expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ update: 1, same: 2 });
        expect(await writes(em)).toEqual([{ call: "PATCH data-api", body: { settings: { ...WIRE, db_max_rows: 50 } } }]);

        // Bound to the Neon Auth of a branch that has none (a NeonAuth of another stack, disabled since): Neon's 400, nothing made.
        const orphan = `  orphan:\n    type: neon-auth:index:DataApi\n    properties:\n      integration:\n        projectId: ${P}\n        branchId: ${bare}\n        authProviderProjectId: gone-0000\n        createdAt: "2026-01-01T00:00:00Z"\noutputs:`;
        fs.writeFileSync(program, source.replace("dbMaxRows: 100", "dbMaxRows: 50").replace("outputs:", orphan));
        const failed = await attempt(e2e, "up", "--yes", "--skip-preview");
        expect(failed.code).not.toBe(0);
        expect(failed.out).toContain(`auth_provider: Neon Auth is not enabled on branch ${bare}; enable it first (POST …/auth) or use "external" with a jwks_url`);
        expect((await dataApiOf(em, P, bare)).status).toBe(404);
        fs.writeFileSync(program, source.replace("dbMaxRows: 100", "dbMaxRows: 50"));
        await expectNoChanges(e2e.stack, 3);

        await clearRequestLog(em);
        expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 3 });
        expect(await writes(em)).toEqual([{ call: "DELETE data-api" }, { call: "DELETE auth" }]);
        expect((await dataApiOf(em, P, branch)).status).toBe(404);
      },
      { rateLimit: "off", logBodies: [DATA_API] },
    );
  });
});
