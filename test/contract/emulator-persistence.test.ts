/** --state: everything survives a restart; the file is written atomically and is always valid JSON. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator";
import { enableAuth, KEY_A, PROJECT, startHarness } from "./emulator-helpers";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "neon-emu-state-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("state persistence", () => {
  it("keeps every object across a restart with the same file", async () => {
    const file = path.join(dir, "state.json");
    const a = await startHarness({ stateFile: file, rateLimit: "off" });
    const keys = await enableAuth(a);
    const user = await a.api("POST", "/projects/auth/user", { body: { project_id: PROJECT, auth_provider: "stack", email: "keep@example.com" } });
    await a.api("POST", `/projects/${PROJECT}/auth/oauth_providers`, { body: { id: "google" } });
    await a.api("POST", `/projects/${PROJECT}/auth/domains`, { body: { domain: "https://keep.example.com", auth_provider: "stack" } });
    const smtp = { type: "standard", host: "smtp.keep", port: 2525, username: "u", password: "pw", sender_email: "s@keep.co", sender_name: "Keep" };
    await a.api("PATCH", `/projects/${PROJECT}/auth/email_server`, { body: smtp });
    const t = await a.api("POST", "/projects/auth/transfer_ownership", { body: { project_id: PROJECT, auth_provider: "stack" } });
    const extra = await a.api("POST", "/projects", { body: { project: { name: "extra" } } });
    const before = (await a.control("GET", "/state?secrets=true")).json;
    await a.close();

    const text = fs.readFileSync(file, "utf8");
    expect(text).not.toContain(KEY_A);
    expect(fs.readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);

    const b = await startHarness({ stateFile: file, rateLimit: "off" });
    try {
      expect((await b.control("GET", "/state?secrets=true")).json).toEqual(before);
      const list = await b.api("GET", `/projects/${PROJECT}/auth/integrations`);
      expect(list.json.data[0]).toMatchObject({ auth_provider_project_id: keys.auth_provider_project_id, transfer_status: "initiated" });
      expect((await b.api("GET", `/projects/${PROJECT}/auth/oauth_providers`)).json).toEqual({ providers: [{ id: "google", type: "shared" }] });
      expect((await b.api("GET", `/projects/${PROJECT}/auth/domains`)).json.domains).toEqual([
        { domain: "https://keep.example.com", auth_provider: "stack" },
      ]);
      const { password: _pw, ...noPw } = smtp;
      expect((await b.api("GET", `/projects/${PROJECT}/auth/email_server`)).json).toEqual(noPw);
      expect((await b.control("GET", `/projects/${PROJECT}/users_sync`)).json.rows.map((r: any) => r.id)).toEqual([user.json.id]);
      expect((await b.api("GET", `/projects/${extra.json.project.id}`)).json.project.name).toBe("extra");
      // The transfer code still works after the restart.
      const code = new URL(t.json.url).searchParams.get("code");
      expect((await b.control("POST", "/transfers/confirm", { code })).status).toBe(200);
      // A second key does not inherit the first key's projects.
      expect((await b.api("GET", `/projects/${PROJECT}`, { key: "test-key-b" })).status).toBe(404);
    } finally {
      await b.close();
    }
  });

  it("the state file is valid JSON at every moment under concurrent mutations", async () => {
    const file = path.join(dir, "busy.json");
    const h = await startHarness({ stateFile: file, rateLimit: "off" });
    await enableAuth(h);
    let reads = 0;
    let bad = 0;
    let polling = true;
    const poller = (async () => {
      while (polling) {
        if (fs.existsSync(file)) {
          try {
            JSON.parse(fs.readFileSync(file, "utf8"));
            reads++;
          } catch {
            bad++;
          }
        }
        await new Promise((r) => setImmediate(r));
      }
    })();
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        h.api("POST", "/projects/auth/user", { body: { project_id: PROJECT, auth_provider: "stack", email: `u${i}@example.com` } }),
      ),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    await h.emu.flush();
    polling = false;
    await poller;
    await h.close();
    expect(bad).toBe(0);
    expect(reads).toBeGreaterThan(0);
    const saved = JSON.parse(fs.readFileSync(file, "utf8"));
    expect(saved.projects[PROJECT].integrations.stack.users).toHaveLength(200);
    expect(fs.readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("refuses to start on a corrupt state file and leaves it untouched", async () => {
    const file = path.join(dir, "corrupt.json");
    fs.writeFileSync(file, '{"version":1,"projects":{');
    await expect(startEmulator({ stateFile: file })).rejects.toThrow(/is not valid JSON/);
    expect(fs.readFileSync(file, "utf8")).toBe('{"version":1,"projects":{');
  });

  it("removes temp files left by a killed emulator at start", async () => {
    const file = path.join(dir, "stale.json");
    const stale = path.join(dir, ".stale.json.99999.1.tmp");
    fs.writeFileSync(stale, '{"half":');
    const e = await startEmulator({ stateFile: file });
    await e.close();
    expect(fs.existsSync(stale)).toBe(false);
  });
});
