/**
 * Neon's Data API on the emulator (`…/branches/{branch_id}/data-api/{database_name}`): the four
 * operations with the OpenAPI document's shapes (every answer checked against it), Neon's errors,
 * one Data API per branch and database, and what branching, reset and restore do to it. Sources:
 * the emulator's fidelity ledger.
 */
import { describe, expect, it } from "vitest";
import { DATA_API_INITIAL } from "../../src/emulator/branch/dataApi";
import { hostingEndpoints as H } from "../../src/schemas/endpointsProject";
import { B, caller, enable, IDS, useBranchHarness } from "./branch-helpers";
import { createClient } from "../../src/client";
import { calls } from "../../src/kinds";
import { fakeContext } from "../unit/fake-context";
import { KEY_A, manualClock, PROJECT, type Harness } from "./emulator-helpers";

const clock = manualClock();
let h: Harness;
let call: ReturnType<typeof caller>;
useBranchHarness({ clock, operationDelayMs: 500, rateLimit: "off" }, (t) => ({ h, call } = t));

const DB = { ...IDS, database_name: "neondb" };
const URL_OF = (branch: string) => `https://ep-${branch.replace(/^br-/, "")}.apirest.c-2.us-east-2.aws.neon.tech/neondb/rest/v1`;
const DEFAULTS = DATA_API_INITIAL;

async function branchOf(parent: string): Promise<string> {
  const r = await call(H.createBranch, { project_id: PROJECT }, { body: { branch: { name: "preview", parent_id: parent } } });
  await clock.advance(500);
  return r.json.branch.id as string;
}

describe("the Data API of a branch's database", () => {
  it("creates, reads, merges an update, deletes; 404 before and after, 409 for a second", async () => {
    expect((await call(B.getProjectBranchDataAPI, DB)).status).toBe(404);
    await enable(h);
    const made = await call(B.createProjectBranchDataAPI, DB, { body: { auth_provider: "neon_auth", add_default_grants: true, settings: { db_schemas: ["api"], db_max_rows: 50 } } });
    expect([made.status, made.json]).toEqual([201, { url: URL_OF(IDS.branch_id) }]);
    const read = await call(B.getProjectBranchDataAPI, DB);
    expect(read.json).toEqual({ url: URL_OF(IDS.branch_id), status: "ready", settings: { ...DEFAULTS, db_schemas: ["api"], db_max_rows: 50 }, available_schemas: ["public", "api"] });

    const again = await call(B.createProjectBranchDataAPI, DB, { body: { auth_provider: "neon_auth" } });
    expect([again.status, again.json.message]).toEqual([409, `Data API already exists for database "neondb" on branch ${IDS.branch_id}`]);

    const upd = await call(B.updateProjectBranchDataAPI, DB, { body: { settings: { openapi_mode: "ignore-privileges", jwt_role_claim_key: ".app_role" } } });
    expect([upd.status, upd.json]).toEqual([201, {}]);
    expect((await call(B.getProjectBranchDataAPI, DB)).json.settings).toEqual({ ...DEFAULTS, db_schemas: ["api"], db_max_rows: 50, openapi_mode: "ignore-privileges", jwt_role_claim_key: ".app_role" });

    expect((await call(B.deleteProjectBranchDataAPI, DB)).status).toBe(200);
    expect((await call(B.getProjectBranchDataAPI, DB)).status).toBe(404);
    expect((await call(B.deleteProjectBranchDataAPI, DB)).status).toBe(404);
    expect((await call(B.updateProjectBranchDataAPI, DB, { body: { settings: { db_max_rows: 5 } } })).status).toBe(404);
  });

  it("refuses neon_auth on a branch without Neon Auth, external without a JWKS URL, a JWKS URL without external, bad settings; an unknown database is 404", async () => {
    const noAuth = await call(B.createProjectBranchDataAPI, DB, { body: { auth_provider: "neon_auth" } });
    expect([noAuth.status, noAuth.json.message]).toEqual([400, `auth_provider: Neon Auth is not enabled on branch ${IDS.branch_id}; enable it first (POST …/auth) or use "external" with a jwks_url`]);
    const bare = await call(B.createProjectBranchDataAPI, DB, { body: { auth_provider: "external" } });
    expect([bare.status, bare.json.message]).toEqual([400, 'jwks_url: is required when auth_provider is "external"']);
    const stray = await call(B.createProjectBranchDataAPI, DB, { body: { jwks_url: "https://idp.example.com/.well-known/jwks.json" } });
    expect([stray.status, stray.json.message]).toEqual([400, 'jwks_url: is taken only with auth_provider "external"']);
    const mode = await call(B.createProjectBranchDataAPI, DB, { body: { settings: { openapi_mode: "everything" } } });
    expect(mode.status).toBe(400);
    expect(mode.json.message).toContain("openapi_mode");
    const rows = await call(B.createProjectBranchDataAPI, DB, { body: { settings: { db_max_rows: -1 } } });
    expect(rows.status).toBe(400);
    expect(rows.json.message).toContain("db_max_rows");
    const elsewhere = await call(B.createProjectBranchDataAPI, { ...DB, database_name: "otherdb" }, { body: {} });
    expect([elsewhere.status, elsewhere.json.message]).toEqual([404, `database "otherdb" not found on branch ${IDS.branch_id}`]);
    // Nothing was made by any of them.
    expect((await call(B.getProjectBranchDataAPI, DB)).status).toBe(404);

    const ext = await call(B.createProjectBranchDataAPI, DB, {
      body: { auth_provider: "external", jwks_url: "https://idp.example.com/.well-known/jwks.json", provider_name: "Clerk", jwt_audience: "api" },
    });
    expect(ext.status).toBe(201);
  });

  it("is not copied into a new branch; a reset from the parent keeps the branch's own", async () => {
    await enable(h);
    await call(B.createProjectBranchDataAPI, DB, { body: { auth_provider: "neon_auth" } });
    const child = await branchOf(IDS.branch_id);
    const CHILD = { project_id: PROJECT, branch_id: child, database_name: "neondb" };
    expect((await call(B.getProjectBranchDataAPI, CHILD)).status).toBe(404);
    // The child has the parent's Neon Auth (branching authentication), so neon_auth is accepted there.
    expect((await call(B.createProjectBranchDataAPI, CHILD, { body: { auth_provider: "neon_auth", settings: { db_max_rows: 7 } } })).status).toBe(201);

    expect((await call(H.restoreBranch, { project_id: PROJECT, branch_id: child }, { body: { source_branch_id: IDS.branch_id } })).status).toBe(200);
    await clock.advance(500);
    expect((await call(B.getProjectBranchDataAPI, CHILD)).json.settings.db_max_rows).toBe(7);
    expect((await call(B.getProjectBranchDataAPI, DB)).json.settings.db_max_rows).toBe(1000);
    // Neon Auth disabled under it: the Data API stays (it is the branch's, not the integration's).
    await call(B.disableBranchAuth, IDS, { body: {} });
    expect((await call(B.getProjectBranchDataAPI, DB)).status).toBe(200);
  });

  it("the kind reads one by id as an import does: every setting, its url and status; a database without one is gone", async () => {
    await call(B.createProjectBranchDataAPI, DB, { body: { settings: { db_max_rows: 20 } } });
    const ctx = fakeContext(createClient({ apiKey: KEY_A, baseUrl: h.emu.url, pacing: false }));
    const read = await calls("DataApi", ctx).read(`${PROJECT}/${IDS.branch_id}/neondb`, {});
    const settings = { dbSchemas: ["public"], dbAnonRole: "anonymous", dbMaxRows: 20, dbExtraSearchPath: "", dbAggregatesEnabled: true, jwtRoleClaimKey: ".role", jwtCacheMaxLifetime: 0, openapiMode: "disabled", serverCorsAllowedOrigins: "", serverTimingEnabled: false };
    const inputs = { projectId: PROJECT, branchId: IDS.branch_id, database: "neondb", addDefaultGrants: false, skipAuthSchema: false, ...settings };
    expect(read.inputs).toEqual(inputs);
    expect(read.props).toEqual({ ...inputs, url: URL_OF(IDS.branch_id), status: "ready", availableSchemas: ["public"] });
    // A program that manages one setting reads back that one only.
    expect((await calls("DataApi", ctx).read(`${PROJECT}/${IDS.branch_id}/neondb`, { ...inputs, dbMaxRows: 20, dbSchemas: undefined, dbAnonRole: undefined })).props?.dbSchemas).toBeUndefined();
    await call(B.deleteProjectBranchDataAPI, DB);
    expect(await calls("DataApi", ctx).read(`${PROJECT}/${IDS.branch_id}/neondb`, inputs)).toEqual({});
  });
});
