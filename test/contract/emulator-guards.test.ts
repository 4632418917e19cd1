/**
 * The emulator against a hostile neighbour: a DNS-rebound or cross-site page, an unauthenticated
 * client, and a symlink planted beside the state file.
 */
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startEmulator } from "../../src/emulator";
import { atomicWrite } from "../../src/emulator/core/stateFile";
import { enableAuth, KEY_A, PROJECT, startHarness, type Harness } from "./emulator-helpers";

// The temp names of state writes are random; for the symlink test the test picks them.
const picked = vi.hoisted(() => [] as string[]);
vi.mock("node:crypto", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:crypto")>();
  return {
    ...real,
    randomBytes: (n: number) => (n === 12 && picked.length > 0 ? Buffer.from(picked.shift()!, "hex") : real.randomBytes(n)),
  };
});

interface Raw {
  status: number;
  text: string;
}

/** A request with exactly the given headers (fetch would not let a test set Host). */
function raw(port: number, method: string, p: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path: p, headers, setHost: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "neon-emu-guards-"));
const stateFile = path.join(dir, "state.json");
let h: Harness;
let secret: string;
let host: string;

beforeAll(async () => {
  h = await startHarness({ stateFile, rateLimit: "off" });
  secret = (await enableAuth(h)).secret_server_key!;
  await h.emu.flush();
  host = `127.0.0.1:${h.emu.port}`;
});
afterAll(async () => {
  await h.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("rebinding and cross-site requests are refused", () => {
  const attacker = { host: "attacker.example", origin: "http://attacker.example" };

  it("a rebound page cannot read secrets, reset, or use the API; the state file stays as it was", async () => {
    const before = fs.readFileSync(stateFile, "utf8");
    const port = h.emu.port;
    const tries: [string, Promise<Raw>][] = [
      ["state with secrets, rebound Host", raw(port, "GET", "/_emulator/state?secrets=true", { host: `attacker.example:${port}`, origin: `http://attacker.example:${port}` })],
      ["state, rebound Host without port", raw(port, "GET", "/_emulator/state", { host: attacker.host })],
      ["reset, simple cross-site POST", raw(port, "POST", "/_emulator/reset", { host, origin: attacker.origin, "content-type": "text/plain" }, "{}")],
      ["reset, Sec-Fetch-Site cross-site", raw(port, "POST", "/_emulator/reset", { host, "sec-fetch-site": "cross-site", "content-type": "application/json" }, "{}")],
      ["reset, sandboxed page (Origin null)", raw(port, "POST", "/_emulator/reset", { host, origin: "null", "content-type": "application/json" }, "{}")],
      ["reset, another local port's page", raw(port, "POST", "/_emulator/reset", { host, origin: "http://127.0.0.1:1", "content-type": "application/json" }, "{}")],
      ["faults, no Host", raw(port, "PUT", "/_emulator/faults", { "content-type": "application/json" }, '{"error":1}')],
      ["API with a valid key, rebound Host", raw(port, "DELETE", `/api/v2/projects/${PROJECT}/auth/integration/stack`, { host: `attacker.example:${port}`, authorization: `Bearer ${KEY_A}` })],
      ["API with a valid key, cross-site", raw(port, "DELETE", `/api/v2/projects/${PROJECT}/auth/integration/stack`, { host, authorization: `Bearer ${KEY_A}`, "sec-fetch-site": "cross-site" })],
      ["API with a valid key, foreign Origin", raw(port, "DELETE", `/api/v2/projects/${PROJECT}/auth/integration/stack`, { host, authorization: `Bearer ${KEY_A}`, origin: attacker.origin })],
    ];
    const results = await Promise.all(tries.map(async ([what, p]) => [what, (await p).status, (await p).text] as const));
    // Node itself answers 400 to an HTTP/1.1 request without Host; everything else is ours, 403.
    expect(results.map(([what, status]) => [what, status])).toEqual(tries.map(([what]) => [what, what === "faults, no Host" ? 400 : 403]));
    for (const [, , text] of results) expect(text).not.toContain(secret);
    await h.emu.flush();
    expect(fs.readFileSync(stateFile, "utf8")).toBe(before);
    expect(h.emu.state().projects.find((p: { id: string }) => p.id === PROJECT)?.integrations).toHaveLength(1);
  });

  it("a control write without application/json is refused with 415, and changes nothing", async () => {
    const r = await raw(h.emu.port, "POST", "/_emulator/reset", { host }, "");
    expect([r.status, JSON.parse(r.text).message]).toEqual([415, "content-type: control writes must be sent as application/json"]);
    const form = await raw(h.emu.port, "POST", "/_emulator/reset", { host, "content-type": "application/x-www-form-urlencoded" }, "a=1");
    expect(form.status).toBe(415);
    expect(h.emu.state().projects.find((p: { id: string }) => p.id === PROJECT)?.integrations).toHaveLength(1);
  });

  it("secrets need the control token or an API key; plain state and the loopback names stay open", async () => {
    const port = h.emu.port;
    const none = await raw(port, "GET", "/_emulator/state?secrets=true", { host });
    expect(none.status).toBe(401);
    expect(JSON.parse(none.text).message).toBe(
      "secrets: send Authorization: Bearer <control token> (printed when the emulator starts) or one of its API keys",
    );
    const wrong = await raw(port, "GET", "/_emulator/state?secrets=true", { host, authorization: "Bearer not-the-token" });
    expect(wrong.status).toBe(401);
    for (const auth of [h.emu.controlToken, KEY_A]) {
      const ok = await raw(port, "GET", "/_emulator/state?secrets=true", { host, authorization: `Bearer ${auth}` });
      expect(ok.status).toBe(200);
      expect(ok.text).toContain(secret);
    }
    for (const name of [`localhost:${port}`, `[::1]:${port}`, `127.0.0.2:${port}`, `LOCALHOST:${port}`]) {
      expect([name, (await raw(port, "GET", "/_emulator/state", { host: name })).status]).toEqual([name, 200]);
    }
    expect((await raw(port, "GET", "/_emulator/state", { host: `localhost:${port + 1}` })).status).toBe(403);
    expect((await raw(port, "GET", "/_emulator/state", { host, "sec-fetch-site": "same-origin", origin: `http://${host}` })).status).toBe(200);
  });

  it("an extra Host may be allowed explicitly (a container's published name)", async () => {
    const e = await startEmulator({ allowedHosts: ["emulator.test:8080"] });
    try {
      expect((await raw(e.port, "GET", "/_emulator/health", { host: "emulator.test:8080" })).status).toBe(200);
      expect((await raw(e.port, "GET", "/_emulator/health", { host: "emulator.test:8081" })).status).toBe(403);
    } finally {
      await e.close();
    }
  });
});

describe("unauthenticated clients", () => {
  it("are answered 401 before their body is read, and the log keeps a capped path", async () => {
    await h.control("DELETE", "/requests");
    const longPath = `/api/v2/projects/${"x".repeat(7_000)}/auth/domains`;
    const r = await raw(h.emu.port, "POST", longPath, { host, "content-type": "application/json", "content-length": "1048576" });
    expect(r.status).toBe(401);
    const log = (await h.control("GET", "/requests")).json.requests;
    expect(log).toHaveLength(1);
    expect(log[0].path).toBe(`${longPath.slice(0, 256)}...(${longPath.length} characters)`);
    expect(log[0].route).toBe("/projects/{project_id}/auth/domains");
  });

  it("request heads over 8 KB are refused by the parser, before any of our code runs", async () => {
    await h.control("DELETE", "/requests");
    const r = await raw(h.emu.port, "GET", `/api/v2/projects/${"x".repeat(15_000)}/auth/domains`, { host });
    expect(r.status).toBe(431);
    expect((await h.control("GET", "/requests")).json.requests).toEqual([]);
  });
});

describe("the state file", () => {
  it("nothing is written through a symlink planted at a temp name", async () => {
    const file = path.join(dir, "planted.json");
    const target = path.join(dir, "world-readable.txt");
    const names = ["aa".repeat(12), "bb".repeat(12)];
    for (const n of names) fs.symlinkSync(target, path.join(dir, `.planted.json.${process.pid}.${n}.tmp`));
    // Every name it will pick is planted: the write fails, and nothing reaches the target.
    picked.push(...names, ...names, names[0]!);
    await expect(atomicWrite(file, '{"secret":"s3cr3t-value"}')).rejects.toThrow(/EEXIST/);
    expect(fs.existsSync(target)).toBe(false);
    expect(fs.existsSync(file)).toBe(false);
    // One planted name, then a free one: the write lands in the state file only.
    picked.push(names[0]!, "cc".repeat(12));
    await atomicWrite(file, '{"secret":"s3cr3t-value"}');
    expect(fs.existsSync(target)).toBe(false);
    expect(fs.readFileSync(file, "utf8")).toBe('{"secret":"s3cr3t-value"}');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.lstatSync(path.join(dir, `.planted.json.${process.pid}.${names[0]}.tmp`)).isSymbolicLink()).toBe(true);
  });

  it("an existing state file readable by others is tightened to 0600 when opened", async () => {
    const file = path.join(dir, "loose.json");
    fs.writeFileSync(file, JSON.stringify({ version: 1, projects: {}, transfers: {} }), { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    const e = await startEmulator({ stateFile: file });
    await e.close();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it("a state file that is a symlink is refused", async () => {
    const real = path.join(dir, "real.json");
    fs.writeFileSync(real, JSON.stringify({ version: 1, projects: {}, transfers: {} }));
    const link = path.join(dir, "link.json");
    fs.symlinkSync(real, link);
    await expect(startEmulator({ stateFile: link })).rejects.toThrow(`state file ${link} is a symbolic link; give the path of a regular file`);
  });
});
