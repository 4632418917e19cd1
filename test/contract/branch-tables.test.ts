/**
 * A Better Auth branch's users are rows of `neon_auth."user"` in the branch's database, with the
 * columns of a real Managed Better Auth branch; its settings are a row of `neon_auth.project_config`;
 * there is no `users_sync`. The API and the table are one truth: what SQL changes is what the API
 * sees next, and the state keeps it across a restart with --state.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Client } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { B, caller, enable, IDS } from "./branch-helpers";
import { BRANCH, PROJECT, startHarness, UUID, type Harness } from "./emulator-helpers";
import { fillPath } from "../../src/schemas/endpoint";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "neon-emu-tables-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function uriOf(h: Harness, branch = BRANCH): Promise<string> {
  const r = await h.api("GET", `/projects/${PROJECT}/connection_uri?database_name=neondb&role_name=neondb_owner&branch_id=${branch}`);
  expect(r.status).toBe(200);
  return r.json.uri as string;
}

/** Runs statements on one connection; answers the rows of each. */
async function sql(uri: string, ...statements: [string, unknown[]?][]): Promise<Record<string, unknown>[][]> {
  const c = new Client({ connectionString: uri, connectionTimeoutMillis: 20_000 });
  await c.connect();
  try {
    const out: Record<string, unknown>[][] = [];
    for (const [text, params] of statements) out.push((await c.query(text, params)).rows);
    return out;
  } finally {
    await c.end();
  }
}

const USERS = `SELECT id::text, name, email, "emailVerified", image, role, banned, "banReason", "banExpires" FROM neon_auth."user" ORDER BY email`;

async function controlUsers(h: Harness): Promise<{ id: string; email: string; name: string; roles: string[] }[]> {
  const r = await h.control("GET", `/projects/${PROJECT}/branches/${BRANCH}/auth`);
  return r.json.neon_auth.users.map((u: any) => ({ id: u.id, email: u.email, name: u.name, roles: u.roles }));
}

describe('neon_auth."user" of a Better Auth branch', () => {
  it("has Neon's columns and the API's users; SQL changes are what the API sees; --state keeps them; a reset empties them", { timeout: 240_000 }, async () => {
    const file = path.join(dir, "state.json");
    const h = await startHarness({ rateLimit: "off", stateFile: file });
    const call = caller(h);
    let restarted: Harness | undefined;
    try {
      await enable(h);
      // Made before the database runs: the state seeds the table at its start.
      const ann = await call(B.createBranchUser, IDS, { body: { email: "ann@example.com", name: "Ann" } });
      expect(ann.json.id).toMatch(UUID);
      const uri = await uriOf(h);
      const noName = await call(B.createBranchUser, IDS, { body: { email: "bo@example.com" } });
      expect((await call(B.setBranchUserRoles, { ...IDS, auth_user_id: ann.json.id }, { body: { roles: ["admin", "billing"] } })).status).toBe(200);

      const [cols, tables, users, config] = await sql(
        uri,
        [
          `SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'neon_auth' AND table_name = 'user' ORDER BY ordinal_position`,
        ],
        [`SELECT table_name FROM information_schema.tables WHERE table_schema = 'neon_auth' ORDER BY table_name`],
        [USERS],
        [`SELECT endpoint_id, name, trusted_origins, social_providers, allow_localhost FROM neon_auth.project_config`],
      );
      expect(cols!.map((c) => `${c.column_name} ${c.data_type} ${c.is_nullable}`)).toEqual([
        "id uuid NO",
        "name text NO",
        "email text NO",
        "emailVerified boolean NO",
        "image text YES",
        "createdAt timestamp with time zone NO",
        "updatedAt timestamp with time zone NO",
        "role text YES",
        "banned boolean YES",
        "banReason text YES",
        "banExpires timestamp with time zone YES",
      ]);
      expect(tables!.map((t) => t.table_name)).toEqual(["project_config", "user"]);
      expect(users).toEqual([
        { id: ann.json.id, name: "Ann", email: "ann@example.com", emailVerified: false, image: null, role: "admin,billing", banned: null, banReason: null, banExpires: null },
        { id: noName.json.id, name: "", email: "bo@example.com", emailVerified: false, image: null, role: "user", banned: null, banReason: null, banExpires: null },
      ]);
      const auth = (await h.control("GET", `/projects/${PROJECT}/branches/${BRANCH}/auth`)).json.auth;
      expect(config).toEqual([{ endpoint_id: auth.auth_provider_project_id, name: PROJECT, trusted_origins: [], social_providers: [{ id: "google", type: "shared" }], allow_localhost: true }]);

      // The configuration follows the API.
      expect((await call(B.addBranchDomain, IDS, { body: { domain: "https://app.example.com", auth_provider: "better_auth" } })).status).toBe(201);
      const [cfg] = await sql(uri, [`SELECT trusted_origins FROM neon_auth.project_config`]);
      expect(cfg).toEqual([{ trusted_origins: ["https://app.example.com"] }]);

      // SQL changes a role and a name, bans a user, deletes one and inserts another.
      await sql(
        uri,
        [`UPDATE neon_auth."user" SET role = 'user', name = 'Ann B.', banned = true, "banReason" = 'spam' WHERE email = 'ann@example.com'`],
        [`DELETE FROM neon_auth."user" WHERE email = 'bo@example.com'`],
        [`INSERT INTO neon_auth."user" (name, email, "emailVerified") VALUES ('Cy', 'cy@example.com', true)`],
      );
      const seen = await controlUsers(h);
      expect(seen.map((u) => [u.email, u.name, u.roles])).toEqual([
        ["ann@example.com", "Ann B.", ["user"]],
        ["cy@example.com", "Cy", []],
      ]);
      // The API sees the same: the deleted user is gone, the inserted address is taken (any case).
      const del = await call(B.deleteBranchUser, { ...IDS, auth_user_id: noName.json.id });
      expect(del.status).toBe(404);
      const dup = await call(B.createBranchUser, IDS, { body: { email: "CY@example.com" } });
      expect([dup.status, dup.json.message]).toEqual([409, "email: a user with email CY@example.com already exists"]);
      const cy = seen.find((u) => u.email === "cy@example.com")!;
      expect((await call(B.setBranchUserRoles, { ...IDS, auth_user_id: cy.id }, { body: { roles: ["admin"] } })).status).toBe(200);
      expect((await sql(uri, [`SELECT role FROM neon_auth."user" WHERE id = $1`, [cy.id]]))[0]).toEqual([{ role: "admin" }]);
      // A row SQL inserts after the API's last look is seen by the next request.
      await sql(uri, [`INSERT INTO neon_auth."user" (name, email, "emailVerified") VALUES ('Di', 'di@example.com', false)`]);
      expect((await h.api("POST", fillPath(B.createBranchUser.path, IDS), { body: { email: "di@example.com" } })).status).toBe(409);

      // A restart with the same state file seeds the same rows, SQL changes included.
      await h.close();
      restarted = await startHarness({ rateLimit: "off", stateFile: file });
      const [again] = await sql(await uriOf(restarted), [USERS]);
      expect(again!.map((u) => [u.email, u.name, u.role, u.banned, u.banReason])).toEqual([
        ["ann@example.com", "Ann B.", "user", true, "spam"],
        ["cy@example.com", "Cy", "admin", null, null],
        ["di@example.com", "Di", null, null, null],
      ]);

      // Disabling with delete_data drops the tables; no users_sync ever.
      expect((await caller(restarted)(B.disableBranchAuth, IDS, { body: { delete_data: true } })).status).toBeLessThan(300);
      const TABLES = `SELECT table_name FROM information_schema.tables WHERE table_schema = 'neon_auth' ORDER BY table_name`;
      expect((await sql(await uriOf(restarted), [TABLES]))[0]).toEqual([]);

      // Enabled again, then a reset: the running database goes with the emptied state, and the next one is empty.
      await enable(restarted);
      expect((await caller(restarted)(B.createBranchUser, IDS, { body: { email: "eve@example.com" } })).status).toBe(201);
      const uri2 = await uriOf(restarted);
      expect((await sql(uri2, [TABLES], [USERS]))!.map((rows) => rows.length)).toEqual([2, 1]);
      expect((await restarted.control("POST", "/reset")).status).toBe(200);
      expect(restarted.emu.databases.running()).toEqual([]);
      expect((await sql(await uriOf(restarted), [TABLES]))[0]).toEqual([]);
    } finally {
      await h.close();
      await restarted?.close();
    }
  });
});
