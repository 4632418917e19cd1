/**
 * A project's JWKS URLs on the emulator (`/projects/{project_id}/jwks`): the list, an addition that
 * answers the operation applying it and locks the project meanwhile, removal, and the refusals.
 * Every answer is checked against Neon's OpenAPI document (emulator-helpers.ts). Sources: the
 * emulator's fidelity ledger.
 */
import { describe, expect, it } from "vitest";
import { createClient, NeonApiError, NeonConfigError } from "../../src/client";
import { BRANCH, ISO_UTC, KEY_A, KEY_B, manualClock, PROJECT, startHarness, UUID, useHarness } from "./emulator-helpers";

const clock = manualClock();
const h = useHarness({ clock, operationDelayMs: 500, rateLimit: "off" });
const LIST = `/projects/${PROJECT}/jwks`;
const CLERK = { jwks_url: "https://clerk.example.com/.well-known/jwks.json", provider_name: "Clerk" };

describe("JWKS URLs of a project", () => {
  it("adds an entry with the apply_config operation that applies it, which locks the project's writes until it finishes", async () => {
    const r = await h.api("POST", `/projects/${PROJECT}/jwks`, { body: { ...CLERK, jwt_audience: "api://app" } });
    expect(r.status).toBe(201);
    const { jwks, operations } = r.json;
    expect(jwks.id).toMatch(UUID);
    expect(jwks).toEqual({ id: jwks.id, project_id: PROJECT, ...CLERK, jwt_audience: "api://app", created_at: "2025-01-01T12:00:00Z", updated_at: "2025-01-01T12:00:00Z", role_names: [] });
    expect(operations.map((o: Record<string, unknown>) => [o.action, o.branch_id, o.status])).toEqual([["apply_config", BRANCH, "running"]]);

    const locked = await h.api("POST", `/projects/${PROJECT}/jwks`, { body: CLERK });
    expect([locked.status, locked.json.message]).toEqual([423, "project already has running conflicting operations, scheduling of new ones is prohibited"]);
    expect((await h.api("DELETE", `/projects/${PROJECT}/jwks/${jwks.id}`)).status).toBe(423);
    // Reads are not locked.
    expect((await h.api("GET", `/projects/${PROJECT}/jwks`)).json.jwks.map((j: { id: string }) => j.id)).toEqual([jwks.id]);

    await clock.advance(500);
    const op = await h.api("GET", `/projects/${PROJECT}/operations/${operations[0].id}`);
    expect(op.json.operation.status).toBe("finished");
    const gone = await h.api("DELETE", `/projects/${PROJECT}/jwks/${jwks.id}`);
    expect([gone.status, gone.json]).toEqual([200, jwks]);
    expect((await h.api("GET", LIST)).json).toEqual({ jwks: [] });
    const again = await h.api("DELETE", `/projects/${PROJECT}/jwks/${jwks.id}`);
    expect([again.status, again.json.message]).toEqual([404, `JWKS ${jwks.id} not found in project ${PROJECT}`]);
  });

  it("scopes an entry to a branch (its operation runs there); the same URL twice is two entries", async () => {
    const branch = await h.api("POST", `/projects/${PROJECT}/branches`, { body: { branch: { name: "dev" } } });
    const dev = branch.json.branch.id as string;
    await clock.advance(500);
    const a = await h.api("POST", `/projects/${PROJECT}/jwks`, { body: { ...CLERK, branch_id: dev } });
    expect([a.status, a.json.jwks.branch_id, a.json.operations[0].branch_id]).toEqual([201, dev, dev]);
    await clock.advance(500);
    const b = await h.api("POST", `/projects/${PROJECT}/jwks`, { body: CLERK });
    expect("branch_id" in b.json.jwks).toBe(false);
    await clock.advance(500);
    const list = (await h.api("GET", LIST)).json.jwks as { id: string; branch_id?: string; jwks_url: string }[];
    expect(list.map((j) => [j.id, j.branch_id, j.jwks_url])).toEqual([
      [a.json.jwks.id, dev, CLERK.jwks_url],
      [b.json.jwks.id, undefined, CLERK.jwks_url],
    ]);
    for (const j of list) expect((await h.api("DELETE", `/projects/${PROJECT}/jwks/${j.id}`)).status).toBe(200);
  });

  it("refuses a URL that is not https, a missing provider name, an unknown branch or project, another key's project", async () => {
    const refused = async (body: unknown, key = KEY_A, project = PROJECT) => {
      const r = await h.api("POST", `/projects/${project}/jwks`, { body, key });
      return [r.status, r.json.message];
    };
    expect(await refused({ ...CLERK, jwks_url: "http://clerk.example.com/jwks.json" })).toEqual([400, "jwks_url: must be an https:// URL"]);
    expect(await refused({ jwks_url: CLERK.jwks_url })).toEqual([400, "provider_name: is required"]);
    expect(await refused({ ...CLERK, branch_id: "br-none" })).toEqual([404, `branch br-none not found in project ${PROJECT}`]);
    expect(await refused(CLERK, KEY_A, "p-none")).toEqual([404, "project p-none not found"]);
    expect(await refused(CLERK, KEY_B)).toEqual([404, `project ${PROJECT} not found`]);
    expect((await h.api("GET", LIST, { key: KEY_B })).status).toBe(404);
    // Strict, the emulator refuses the deprecated fields this package never sends.
    expect(await refused({ ...CLERK, role_names: ["authenticated"] })).toEqual([400, "role_names: is not a known field"]);
    expect((await h.api("GET", LIST)).json).toEqual({ jwks: [] });
  });
});

describe("the client's three methods", () => {
  it("add (then wait for its operations), list and delete; a bad URL is refused before sending", async () => {
    const emu = await startHarness({ rateLimit: "off" });
    const client = createClient({ apiKey: KEY_A, baseUrl: emu.emu.url, pacing: false });
    try {
      const { jwks, operations } = await client.addProjectJWKS(PROJECT, { ...CLERK, branch_id: BRANCH });
      await client.waitForOperations(operations);
      expect([jwks.branch_id, jwks.created_at]).toEqual([BRANCH, expect.stringMatching(ISO_UTC)]);
      expect(await client.getProjectJWKS(PROJECT)).toEqual([jwks]);
      expect(await client.deleteProjectJWKS(PROJECT, jwks.id)).toEqual(jwks);
      expect(await client.getProjectJWKS(PROJECT)).toEqual([]);
      const missing = await client.deleteProjectJWKS(PROJECT, jwks.id).catch((e: unknown) => e);
      expect([missing instanceof NeonApiError, (missing as NeonApiError).status]).toEqual([true, 404]);
      const bad = await client.addProjectJWKS(PROJECT, { ...CLERK, jwks_url: "ftp://x.example.com/jwks" }).catch((e: unknown) => e);
      expect([bad instanceof NeonConfigError, (bad as Error).message]).toEqual([true, "invalid request for POST /projects/{project_id}/jwks: jwks_url: must be an https:// URL"]);
    } finally {
      await client.close();
      await emu.close();
    }
  });
});
