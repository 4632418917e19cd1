/**
 * `POST …/branches/{branch_id}/restore` and Neon Auth: a reset from the parent overwrites the
 * branch's auth and users with the parent's as of now, keeps no backup, and leaves the branch its
 * id, name and auth endpoint; an instant restore of a root branch puts back its auth and users as
 * they were at a time, and keeps the state before in a backup branch (which the branch's children
 * move to); the refusals Neon documents. Sources: the emulator's fidelity ledger (reset-from-parent,
 * branch-restore, the OpenAPI document's BranchRestoreRequest).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Client } from "pg";
import { describe, expect, it } from "vitest";
import { hostingEndpoints as H } from "../../src/schemas/endpointsProject";
import { B, caller, enable, IDS, useBranchHarness } from "./branch-helpers";
import { BRANCH, KEY_B, manualClock, PROJECT, startHarness, type Harness } from "./emulator-helpers";

const clock = manualClock();
let h: Harness;
let call: ReturnType<typeof caller>;

useBranchHarness({ clock, operationDelayMs: 500, rateLimit: "off" }, (t) => ({ h, call } = t));

const ids = (branch: string) => ({ project_id: PROJECT, branch_id: branch });
/** A time as Neon prints it (seconds); requests send milliseconds where they matter. */
const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
const USERS = `SELECT id::text, name, email, role FROM neon_auth."user" ORDER BY email`;
const MCP = "https://mcp.example.com/mcp";

async function sql(branch: string, text: string): Promise<Record<string, unknown>[]> {
  const r = await h.api("GET", `/projects/${PROJECT}/connection_uri?database_name=neondb&role_name=neondb_owner&branch_id=${branch}`);
  expect(r.status).toBe(200);
  const c = new Client({ connectionString: r.json.uri, connectionTimeoutMillis: 20_000 });
  await c.connect();
  try {
    return (await c.query(text)).rows;
  } finally {
    await c.end();
  }
}

async function newBranch(parent?: string, name = "preview"): Promise<string> {
  const r = await call(H.createBranch, { project_id: PROJECT }, { body: { branch: { name, ...(parent === undefined ? {} : { parent_id: parent }) } } });
  expect(r.status).toBe(201);
  await clock.advance(500);
  return r.json.branch.id as string;
}

const restore = (branch: string, body: Record<string, unknown>) => call(H.restoreBranch, ids(branch), { body });

/** Everything the branch's integration holds (secrets included) but what is its endpoint's own, and its users. */
async function settingsOf(branch: string) {
  const dump = (await h.control("GET", `/projects/${PROJECT}/branches/${branch}/auth?secrets=true`)).json;
  const { auth_provider_project_id: _id, created_at: _at, created_ms: _ms, ...settings } = dump.auth;
  return { settings, users: dump.neon_auth.users.map((u: any) => ({ id: u.id, email: u.email, name: u.name, roles: u.roles })) };
}

/** The branch's auth endpoint, as `GET …/auth` answers it. */
async function endpointOf(branch: string) {
  const { auth_provider_project_id, base_url, jwks_url, created_at } = (await call(B.getBranchAuth, ids(branch))).json;
  return { auth_provider_project_id, base_url, jwks_url, created_at };
}

async function branches(): Promise<Record<string, any>[]> {
  return (await call(H.listBranches, { project_id: PROJECT })).json.branches;
}

const secretValid = async (branch: string, client_id: string, client_secret: string) =>
  (await h.control("POST", `/projects/${PROJECT}/branches/${branch}/oauth_client_secret_check`, { client_id, client_secret })).json.valid as boolean;

/** The OAuth server on the root branch, and one confidential client of it. */
async function oauthClient(branch = BRANCH): Promise<{ client_id: string; client_secret: string }> {
  await call(B.updateBranchOAuthServerPlugin, ids(branch), { body: { enabled: true, mcp: { resource: MCP }, resources: [MCP] } });
  const r = await call(B.createBranchOAuthClient, ids(branch), { body: { name: "Dashboard", type: "confidential", redirect_uris: ["https://app.example.com/cb"], resources: [MCP] } });
  expect(r.status).toBe(201);
  return r.json;
}

describe("reset from parent", () => {
  it("the branch's auth and users become the parent's as of now; its id, name and auth endpoint stay; no backup", { timeout: 240_000 }, async () => {
    await enable(h);
    for (const [e, body] of [
      [B.addBranchDomain, { domain: "https://app.example.com", auth_provider: "better_auth" }],
      [B.addBranchOAuthProvider, { id: "github", client_id: "gh-id", client_secret: "gh-secret-1" }],
      [B.updateBranchMagicLinkPlugin, { enabled: true }],
      [B.updateBranchAppName, { name: "Prod" }],
    ] as const) expect((await call(e, IDS, { body })).status).toBeLessThan(300);
    const client = await oauthClient();
    const ann = (await call(B.createBranchUser, IDS, { body: { email: "ann@example.com", name: "Ann" } })).json.id;
    await call(B.setBranchUserRoles, { ...IDS, auth_user_id: ann }, { body: { roles: ["admin"] } });

    const child = await newBranch();
    const CHILD = ids(child);
    // The child's table runs, so the reset must rewrite a live table, not only the state.
    expect((await sql(child, USERS)).map((u) => u.email)).toEqual(["ann@example.com"]);
    // Work on the child: its own origin, name, users (by API and by SQL); a provider and the client gone.
    await call(B.addBranchDomain, CHILD, { body: { domain: "https://preview.example.com", auth_provider: "better_auth" } });
    await call(B.updateBranchAppName, CHILD, { body: { name: "Preview" } });
    await call(B.deleteBranchOAuthProvider, { ...CHILD, oauth_provider_id: "github" });
    await call(B.deleteBranchOAuthClient, { ...CHILD, client_id: client.client_id });
    await call(B.updateBranchAllowLocalhost, CHILD, { body: { allow_localhost: false } });
    await call(B.createBranchUser, CHILD, { body: { email: "pat@example.com", name: "Pat" } });
    await sql(child, `INSERT INTO neon_auth."user" (name, email, "emailVerified", role) VALUES ('Sam', 'sam@example.com', true, 'user')`);
    const endpoint = await endpointOf(child);
    // The parent moves on after the branching: a reset takes the parent as it is now.
    await call(B.createBranchUser, IDS, { body: { email: "cy@example.com", name: "Cy" } });
    await call(B.updateBranchAppName, IDS, { body: { name: "Prod 2" } });
    await clock.advance(1_000);
    // The table first: once it runs, the record lists the users in the table's order.
    const parentRows = await sql(BRANCH, USERS);
    const parent = await settingsOf(BRANCH);
    expect(parentRows.map((u) => [u.email, u.role])).toEqual([["ann@example.com", "admin"], ["cy@example.com", "user"]]);

    const r = await restore(child, { source_branch_id: BRANCH });
    expect(r.status).toBe(200);
    expect(r.json.branch).toMatchObject({ id: child, name: "preview", parent_id: BRANCH, default: false, current_state: "resetting", last_reset_at: at(clock.now()) });
    expect(r.json.operations.map((o: any) => [o.action, o.status, o.branch_id])).toEqual([["create_timeline", "running", child]]);
    // The operation locks the project's writes while it runs.
    expect((await call(B.addBranchDomain, CHILD, { body: { domain: "https://late.example.com", auth_provider: "better_auth" } })).status).toBe(423);
    await clock.advance(500);
    expect((await call(H.getBranch, CHILD)).json.branch).toMatchObject({ id: child, name: "preview", parent_id: BRANCH, current_state: "ready", last_reset_at: at(clock.now() - 500) });

    // Everything of Neon Auth is the parent's: settings, providers with their credentials, domains,
    // plugins, the OAuth server and its clients (secrets too), app name, and the users in the table.
    expect(await settingsOf(child)).toEqual(parent);
    expect(await sql(child, USERS)).toEqual(parentRows);
    expect(await sql(child, "SELECT name, trusted_origins FROM neon_auth.project_config")).toEqual([{ name: "Prod 2", trusted_origins: ["https://app.example.com"] }]);
    expect(await secretValid(child, client.client_id, client.client_secret)).toBe(true);
    // The branch's endpoint does not change ("your connection details do not change").
    expect(await endpointOf(child)).toEqual(endpoint);
    // No backup: the project has the same two branches; the parent is as it was.
    expect((await branches()).map((b) => b.id).sort()).toEqual([BRANCH, child].sort());
    expect(await settingsOf(BRANCH)).toEqual(parent);

    // Afterwards the two are independent again.
    await call(B.createBranchUser, CHILD, { body: { email: "new@example.com" } });
    expect((await sql(BRANCH, USERS)).map((u) => u.email)).toEqual(["ann@example.com", "cy@example.com"]);
  });

  it("from a parent without auth: the branch's integration and users are gone", { timeout: 240_000 }, async () => {
    const child = await newBranch();
    await enable(h, ids(child));
    await call(B.createBranchUser, ids(child), { body: { email: "pat@example.com" } });
    expect((await sql(child, USERS)).map((u) => u.email)).toEqual(["pat@example.com"]);
    expect((await restore(child, { source_branch_id: BRANCH })).status).toBe(200);
    await clock.advance(500);
    expect((await call(B.getBranchAuth, ids(child))).status).toBe(404);
    expect((await h.control("GET", `/projects/${PROJECT}/branches/${child}/auth`)).json).toMatchObject({ auth: null, neon_auth: null });
    expect(await sql(child, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'neon_auth'")).toEqual([]);
  });
});

describe("instant restore of a root branch", () => {
  it("puts back the auth and users of a time; the backup holds the state before and the children; restoring from the backup rolls back", { timeout: 240_000 }, async () => {
    await enable(h);
    await call(B.updateBranchAppName, IDS, { body: { name: "Before" } });
    const ann = (await call(B.createBranchUser, IDS, { body: { email: "ann@example.com", name: "Ann" } })).json.id;
    const early = await oauthClient();
    expect((await sql(BRANCH, USERS)).map((u) => u.email)).toEqual(["ann@example.com"]);
    await clock.advance(60_000);
    const then = new Date(clock.now()).toISOString();
    const before = await settingsOf(BRANCH);
    const rowsBefore = await sql(BRANCH, USERS);
    await clock.advance(60_000);
    // After that time: a new name, a user by SQL, a role, a domain, the first client's secret
    // rotated, a second client, and a child branch.
    await call(B.updateBranchAppName, IDS, { body: { name: "After" } });
    await sql(BRANCH, `INSERT INTO neon_auth."user" (name, email, "emailVerified", role) VALUES ('Bo', 'bo@example.com', true, 'user')`);
    await call(B.setBranchUserRoles, { ...IDS, auth_user_id: ann }, { body: { roles: ["admin"] } });
    await call(B.addBranchDomain, IDS, { body: { domain: "https://app.example.com", auth_provider: "better_auth" } });
    const rotated = (await call(B.rotateBranchOAuthClientSecret, { ...IDS, client_id: early.client_id })).json.client_secret as string;
    const client = (await call(B.createBranchOAuthClient, IDS, { body: { name: "Later", type: "confidential", redirect_uris: ["https://app.example.com/cb"], resources: [MCP] } })).json;
    const child = await newBranch();
    await clock.advance(60_000);
    const after = await settingsOf(BRANCH);
    const rowsAfter = await sql(BRANCH, USERS);
    const endpoint = await endpointOf(BRANCH);

    const name = `main_old_${at(clock.now())}`;
    const r = await restore(BRANCH, { source_branch_id: BRANCH, source_timestamp: then, preserve_under_name: name });
    expect(r.status).toBe(200);
    expect(r.json.branch).toMatchObject({ id: BRANCH, name: "main", default: true, current_state: "resetting", last_reset_at: at(clock.now()) });
    expect("parent_id" in r.json.branch).toBe(false);
    await clock.advance(500);

    // The branch: its auth and users as they were then, under its own endpoint.
    expect(await settingsOf(BRANCH)).toEqual(before);
    expect(await sql(BRANCH, USERS)).toEqual(rowsBefore);
    expect(await endpointOf(BRANCH)).toEqual(endpoint);
    // The first client is back with the secret it had then (the rotation after that time is undone);
    // the second one is gone.
    expect((await call(B.listBranchOAuthClients, IDS)).json.clients.map((c: any) => c.client_id)).toEqual([early.client_id]);
    expect([await secretValid(BRANCH, early.client_id, early.client_secret), await secretValid(BRANCH, early.client_id, rotated)]).toEqual([true, false]);

    // The backup: a root branch with the state before the restore (its own endpoint: two branches
    // never share one), and the children.
    const all = await branches();
    const backup = all.find((b) => b.name === name)!;
    expect(backup).toMatchObject({ name, default: false });
    expect("parent_id" in backup).toBe(false);
    expect(all.find((b) => b.id === child)).toMatchObject({ parent_id: backup.id });
    expect(await settingsOf(backup.id)).toEqual(after);
    expect(await sql(backup.id, USERS)).toEqual(rowsAfter);
    expect((await endpointOf(backup.id)).auth_provider_project_id).not.toBe(endpoint.auth_provider_project_id);
    expect([await secretValid(backup.id, client.client_id, client.client_secret), await secretValid(backup.id, early.client_id, rotated)]).toEqual([true, true]);
    expect(await secretValid(BRANCH, client.client_id, client.client_secret)).toBe(false);

    // Rolling back: the backup as the source, at its head (the branch has no children any more).
    await clock.advance(1_000);
    expect((await restore(BRANCH, { source_branch_id: backup.id })).status).toBe(200);
    await clock.advance(500);
    expect(await settingsOf(BRANCH)).toEqual(after);
    expect(await sql(BRANCH, USERS)).toEqual(rowsAfter);
    expect(await endpointOf(BRANCH)).toEqual(endpoint);
    expect((await branches()).length).toBe(3);
  });
});

describe("the history", () => {
  it("is kept in the state file: a restarted emulator restores to a time before the restart", { timeout: 60_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "neon-emu-restore-"));
    const file = path.join(dir, "state.json");
    const own = manualClock();
    try {
      const first = await startHarness({ stateFile: file, clock: own, rateLimit: "off" });
      const name = async (hh: Harness) => (await hh.api("GET", `/projects/${PROJECT}/branches/${BRANCH}/auth`)).json.name;
      await first.api("POST", `/projects/${PROJECT}/branches/${BRANCH}/auth`, { body: { auth_provider: "better_auth" } });
      await first.api("PATCH", `/projects/${PROJECT}/branches/${BRANCH}/auth/config`, { body: { name: "Then" } });
      await own.advance(60_000);
      const then = new Date(own.now()).toISOString();
      await own.advance(60_000);
      await first.api("PATCH", `/projects/${PROJECT}/branches/${BRANCH}/auth/config`, { body: { name: "Now" } });
      await first.close();

      const second = await startHarness({ stateFile: file, clock: own, rateLimit: "off" });
      try {
        expect(await name(second)).toBe("Now");
        const r = await second.api("POST", `/projects/${PROJECT}/branches/${BRANCH}/restore`, { body: { source_branch_id: BRANCH, source_timestamp: then, preserve_under_name: "old" } });
        expect(r.status).toBe(200);
        expect(await name(second)).toBe("Then");
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("refusals", () => {
  it("the branch itself without a time, its own history without a backup name, children, a non-root source in time, an LSN, times outside the history", { timeout: 120_000 }, async () => {
    await enable(h);
    const child = await newBranch();
    const grandchild = await newBranch(child, "grandchild");
    await clock.advance(1_000);
    const now = clock.now();
    const cases: [string, Record<string, unknown>, number, string][] = [
      // A root branch has no parent: the nearest thing to a reset is its own head.
      [BRANCH, { source_branch_id: BRANCH }, 400, `source_timestamp: is required when source_branch_id is the branch itself (${BRANCH}); a root branch cannot be reset from a parent`],
      [BRANCH, { source_branch_id: BRANCH, source_timestamp: at(now - 500) }, 400, "preserve_under_name: is required when restoring a branch to its own history"],
      [BRANCH, { source_branch_id: BRANCH, source_timestamp: at(now - 500), preserve_under_name: "" }, 400, "preserve_under_name: is required when restoring a branch to its own history"],
      [child, { source_branch_id: BRANCH }, 400, `preserve_under_name: is required: branch ${child} has children (${grandchild}), which move to the preserved branch; or delete them first`],
      [grandchild, { source_branch_id: child, source_timestamp: at(now - 500) }, 400, `source_timestamp: a point-in-time restore needs a root branch as its source; ${child} was made from ${BRANCH}`],
      [BRANCH, { source_branch_id: BRANCH, source_lsn: "0/1A2B3C", preserve_under_name: "old" }, 400, "source_lsn: the emulator keeps no write-ahead log, so it cannot restore to an LSN; give source_timestamp instead"],
      [BRANCH, { source_branch_id: BRANCH, source_timestamp: at(now + 60_000), preserve_under_name: "old" }, 400, `source_timestamp: ${at(now + 60_000)} is in the future`],
      // Before the project existed: its history starts when it was seeded (2 s ago: two branchings and a second).
      [BRANCH, { source_branch_id: BRANCH, source_timestamp: at(now - 3_600_000), preserve_under_name: "old" }, 400, `source_timestamp: ${at(now - 3_600_000)} is outside the history of branch ${BRANCH} (kept: from ${at(now - 2_000)})`],
      [BRANCH, { source_branch_id: BRANCH, source_timestamp: "yesterday", preserve_under_name: "old" }, 400, "source_timestamp: must be an RFC 3339 date-time, e.g. 2024-02-26T12:00:00Z"],
      [BRANCH, { source_branch_id: "br-nope" }, 404, `source branch br-nope not found in project ${PROJECT}`],
      ["br-nope", { source_branch_id: BRANCH }, 404, `branch br-nope not found in project ${PROJECT}`],
    ];
    const refused: [number, string][] = [];
    for (const [branch, body] of cases) {
      const r = await restore(branch, body);
      refused.push([r.status, r.json.message]);
    }
    expect(refused).toEqual(cases.map(([, , status, message]) => [status, message]));
    // Refusals change nothing: no branch, no operation, no reset.
    expect((await branches()).map((b) => [b.id, b.last_reset_at]).sort()).toEqual([[BRANCH, undefined], [child, undefined], [grandchild, undefined]].sort());
    expect((await h.api("GET", `/projects/${PROJECT}/operations`)).json.operations.map((o: any) => o.action)).toEqual(["create_branch", "create_branch"]);

    // Another key's project is not there; an operation that runs locks the project.
    expect((await call(H.restoreBranch, IDS, { body: { source_branch_id: BRANCH }, key: KEY_B })).status).toBe(404);
    await call(H.createBranch, { project_id: PROJECT }, { body: { branch: { name: "busy" } } });
    const locked = await restore(grandchild, { source_branch_id: child });
    expect([locked.status, locked.json.message]).toEqual([423, "project already has running conflicting operations, scheduling of new ones is prohibited"]);
  });

  it("a time older than the project's history window (one day) is refused, though a version of it was kept", { timeout: 60_000 }, async () => {
    await enable(h);
    await clock.advance(86_400_000 + 60_000);
    const r = await restore(BRANCH, { source_branch_id: BRANCH, source_timestamp: at(clock.now() - 86_400_000 - 1_000), preserve_under_name: "old" });
    expect([r.status, r.json.message]).toEqual([400, `source_timestamp: ${at(clock.now() - 86_400_000 - 1_000)} is outside the history of branch ${BRANCH} (kept: from ${at(clock.now() - 86_400_000)})`]);
  });
});
