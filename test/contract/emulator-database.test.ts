/**
 * The emulator's Postgres is a real one: `pg` connects to the URI `connection_uri` answers and reads
 * `neon_auth.users_sync` with Neon's columns; rows follow the API's user creates and deletes (soft
 * delete), changes made at the emulator, a restart with --state, and the reachability switch.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Client } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createClient, NeonConfigError } from "../../src/client";
import { enableAuth, KEY_A, KEY_B, PROJECT, startHarness, UUID, type Harness } from "./emulator-helpers";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "neon-emu-db-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const URI = /^postgresql:\/\/neondb_owner:(npg_[0-9a-f]{24})@127\.0\.0\.1:(\d+)\/neondb\?sslmode=disable$/;

async function usersSync(uri: string) {
  const c = new Client({ connectionString: uri, connectionTimeoutMillis: 10_000 });
  await c.connect();
  try {
    const cols = await c.query(
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'neon_auth' AND table_name = 'users_sync' ORDER BY ordinal_position",
    );
    const rows = await c.query("SELECT id, email, name, created_at, updated_at, deleted_at, raw_json FROM neon_auth.users_sync ORDER BY email");
    return { cols: cols.rows.map((r) => `${r.column_name} ${r.data_type}`), rows: rows.rows };
  } finally {
    await c.end();
  }
}

async function uriOf(h: Harness): Promise<string> {
  const r = await h.api("GET", `/projects/${PROJECT}/connection_uri?database_name=neondb&role_name=neondb_owner`);
  expect(r.status).toBe(200);
  return r.json.uri as string;
}

describe("the emulated database", () => {
  it("serves neon_auth.users_sync over the wire protocol, following creates, deletes and changes", { timeout: 120_000 }, async () => {
    const h = await startHarness({ rateLimit: "off" });
    try {
      expect(h.emu.databases.running()).toEqual([]);
      await enableAuth(h);
      const ada = await h.api("POST", "/projects/auth/user", { body: { project_id: PROJECT, auth_provider: "stack", email: "ada@example.com", name: "Ada" } });
      const bob = await h.api("POST", "/projects/auth/user", { body: { project_id: PROJECT, auth_provider: "stack", email: "bob@example.com" } });
      expect(ada.json.id).toMatch(UUID);

      // Through the client's one-line method, as the provider asks for it.
      const client = createClient({ apiKey: KEY_A, baseUrl: h.emu.url });
      const { uri } = await client.getConnectionUri({ project_id: PROJECT, database_name: "neondb", role_name: "neondb_owner" });
      expect(uri).toMatch(URI);
      expect(await uriOf(h)).toBe(uri);
      expect(h.emu.databases.running()).toEqual([`${PROJECT}/br-main-${PROJECT}`]);

      const first = await usersSync(uri);
      expect(first.cols).toEqual([
        "id text",
        "email text",
        "name text",
        "created_at timestamp with time zone",
        "updated_at timestamp with time zone",
        "deleted_at timestamp with time zone",
        "raw_json jsonb",
      ]);
      expect(first.rows.map((r) => [r.id, r.email, r.name, r.deleted_at])).toEqual([
        [ada.json.id, "ada@example.com", "Ada", null],
        [bob.json.id, "bob@example.com", null, null],
      ]);
      expect(first.rows[0].raw_json).toMatchObject({ id: ada.json.id, primary_email: "ada@example.com", display_name: "Ada" });
      expect(first.rows[0].created_at).toBeInstanceOf(Date);

      expect((await h.api("DELETE", `/projects/${PROJECT}/auth/users/${bob.json.id}`)).status).toBe(204);
      expect((await h.control("PATCH", `/projects/${PROJECT}/users/${ada.json.id}`, { name: "Ada L." })).status).toBe(200);
      const after = await usersSync(uri);
      expect(after.rows.map((r) => [r.email, r.name, r.deleted_at === null])).toEqual([
        ["ada@example.com", "Ada L.", true],
        ["bob@example.com", null, false],
      ]);

      // Refused like Neon: a database or role the project does not have; bad query parameters.
      expect((await h.api("GET", `/projects/${PROJECT}/connection_uri?database_name=nope&role_name=neondb_owner`)).status).toBe(404);
      expect((await h.api("GET", `/projects/${PROJECT}/connection_uri?role_name=neondb_owner`)).json.message).toBe("database_name: is required");
      expect((await h.api("GET", `/projects/${PROJECT}/connection_uri?database_name=neondb&role_name=neondb_owner`, { key: KEY_B })).status).toBe(404);
      await expect(client.getConnectionUri({ project_id: PROJECT, database_name: "", role_name: "r" })).rejects.toThrow(NeonConfigError);
      await client.close();
    } finally {
      await h.close();
    }
  });

  it("keeps the rows and the password across a restart with --state; the switch makes it unreachable", { timeout: 120_000 }, async () => {
    const file = path.join(dir, "state.json");
    const a = await startHarness({ stateFile: file, rateLimit: "off" });
    await enableAuth(a);
    await a.api("POST", "/projects/auth/user", { body: { project_id: PROJECT, auth_provider: "stack", email: "keep@example.com" } });
    const before = URI.exec(await uriOf(a));
    await a.close();
    expect(fs.readFileSync(file, "utf8")).toContain(before?.[1]);

    const b = await startHarness({ stateFile: file, rateLimit: "off" });
    try {
      const uri = await uriOf(b);
      expect(URI.exec(uri)?.[1]).toBe(before?.[1]);
      expect((await usersSync(uri)).rows.map((r) => r.email)).toEqual(["keep@example.com"]);

      expect((await b.control("PUT", "/database", { reachable: false })).json).toEqual({ reachable: false, running: [] });
      const off = await uriOf(b);
      expect(off).toMatch(URI);
      await expect(usersSync(off)).rejects.toThrow(/ECONNREFUSED/);
      expect((await b.control("PUT", "/database", { reachable: true })).json.reachable).toBe(true);
      expect((await usersSync(await uriOf(b))).rows.length).toBe(1);
    } finally {
      await b.close();
    }
  });

  it("ends a branch's database when the branch is deleted; the default branch and one with children are not deleted", { timeout: 120_000 }, async () => {
    const h = await startHarness({ rateLimit: "off", operationDelayMs: 0 });
    try {
      const main = `br-main-${PROJECT}`;
      const made = await h.api("POST", `/projects/${PROJECT}/branches`, { body: { branch: { parent_id: main } } });
      const child = made.json.branch.id as string;
      const grandchild = (await h.api("POST", `/projects/${PROJECT}/branches`, { body: { branch: { parent_id: child } } })).json.branch.id as string;
      const uri = (await h.api("GET", `/projects/${PROJECT}/connection_uri?database_name=neondb&role_name=neondb_owner&branch_id=${grandchild}`)).json.uri as string;
      const c = new Client({ connectionString: uri, connectionTimeoutMillis: 10_000 });
      // The reset that ends the connection when the database goes is expected here.
      c.on("error", () => undefined);
      await c.connect();
      expect(h.emu.databases.running()).toEqual([`${PROJECT}/${grandchild}`]);

      const refused = async (branch: string) => [(await h.api("DELETE", `/projects/${PROJECT}/branches/${branch}`)).status, (await h.api("DELETE", `/projects/${PROJECT}/branches/${branch}`)).json.message];
      expect(await refused(main)).toEqual([400, `branch ${main}: the default or a root branch cannot be deleted`]);
      expect(await refused(child)).toEqual([400, `branch ${child}: delete its child branches first`]);
      expect((await h.api("DELETE", `/projects/${PROJECT}/branches/br-nope`)).status).toBe(404);

      const gone = await h.api("DELETE", `/projects/${PROJECT}/branches/${grandchild}`);
      expect([gone.status, gone.json.branch.id, gone.json.operations.map((o: any) => o.action)]).toEqual([200, grandchild, ["delete_timeline"]]);
      // Gone with its branch: the connection a client held is closed, and nothing runs.
      expect(h.emu.databases.running()).toEqual([]);
      await expect(c.query("SELECT 1")).rejects.toThrow();
      await c.end().catch(() => undefined);
      expect((await h.api("GET", `/projects/${PROJECT}/branches`)).json.branches.map((b: any) => b.id)).toEqual([main, child]);
    } finally {
      await h.close();
    }
  });
});
