/**
 * The CLI, run as a real process: the emulator is compiled once (only src/emulator and what it
 * imports) into a temporary folder, then spawned with `node`.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { Client } from "pg";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = path.resolve(__dirname, "../..");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "neon-emu-cli-"));
const outDir = path.join(tmp, "build");
const cli = path.join(outDir, "emulator", "cli.js");
const children: ChildProcess[] = [];

beforeAll(() => {
  const tsconfig = path.join(tmp, "tsconfig.json");
  fs.writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: path.join(repo, "tsconfig.build.json"),
      compilerOptions: {
        rootDir: path.join(repo, "src"),
        outDir,
        declaration: false,
        sourceMap: false,
        typeRoots: [path.join(repo, "node_modules", "@types")],
      },
      files: [path.join(repo, "src", "emulator", "cli.ts")],
      include: [],
    }),
  );
  execFileSync(process.execPath, [path.join(repo, "node_modules", "typescript", "bin", "tsc"), "-p", tsconfig], {
    stdio: ["ignore", "inherit", "inherit"],
  });
}, 120_000);

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(args: string[], env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, [cli, ...args], {
    // The compiled files live outside the repo: resolve zod from the repo's node_modules.
    env: { ...process.env, NODE_PATH: path.join(repo, "node_modules"), NEON_EMULATOR_API_KEYS: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 10 s; stderr: ${err}`)), 10_000);
    const check = () => {
      if (out.includes("\n")) {
        clearTimeout(timer);
        resolve({ child, url: out.split("\n")[0] as string, stdout: () => out, stderr: () => err, exited });
      }
    };
    child.stdout!.on("data", check);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      if (!out.includes("\n")) reject(new Error(`exited with ${code} before printing the URL; stderr: ${err}`));
    });
  });
}

function exitOf(args: string[]): { status: number | null; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(process.execPath, [cli, ...args], {
      env: { ...process.env, NODE_PATH: path.join(repo, "node_modules") },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    return { status: 0, stdout, stderr: "" };
  } catch (e) {
    const x = e as { status: number | null; stdout: string; stderr: string };
    return { status: x.status, stdout: x.stdout, stderr: x.stderr };
  }
}

describe("neon-auth-emulator CLI", () => {
  it("starts the compiled file with a shebang", () => {
    expect(fs.readFileSync(cli, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  it("prints exactly the base URL, serves seeded projects, persists, and exits 0 on SIGTERM", async () => {
    const state = path.join(tmp, "cli-state.json");
    const r = await run(["--api-key", "cli-key", "--seed-project", "p-cli:br-cli", "--seed-project", "p-two", "--state", state, "--operation-delay", "0"]);
    expect(r.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2$/);
    const auth = { authorization: "Bearer cli-key", "content-type": "application/json" };
    const branches: any = await (await fetch(`${r.url}/projects/p-cli/branches`, { headers: auth })).json();
    expect(branches.branches.map((b: any) => [b.id, b.default])).toEqual([["br-cli", true]]);
    const two: any = await (await fetch(`${r.url}/projects/p-two/branches`, { headers: auth })).json();
    expect(two.branches[0].id).toBe("br-main-p-two");
    const created = await fetch(`${r.url}/projects/auth/create`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ auth_provider: "stack", project_id: "p-cli", branch_id: "br-cli" }),
    });
    expect(created.status).toBe(201);

    r.child.kill("SIGTERM");
    expect(await r.exited).toEqual({ code: 0, signal: null });
    expect(r.stdout()).toBe(`${r.url}\n`);
    const saved = JSON.parse(fs.readFileSync(state, "utf8"));
    expect(Object.keys(saved.projects)).toEqual(["p-cli", "p-two"]);
    expect(Object.keys(saved.projects["p-cli"].integrations)).toEqual(["stack"]);
    expect(fs.readFileSync(state, "utf8")).not.toContain("cli-key");
  });

  it("uses the default key with a note on stderr, or keys from NEON_EMULATOR_API_KEYS", async () => {
    const d = await run([]);
    expect((await fetch(`${d.url}/projects`, { headers: { authorization: "Bearer neon-emulator-key" } })).status).toBe(200);
    expect(d.stderr()).toContain('no --api-key given; accepting the default key "neon-emulator-key"');
    d.child.kill("SIGINT");
    expect((await d.exited).code).toBe(0);

    const e = await run([], { NEON_EMULATOR_API_KEYS: "env-a, env-b" });
    expect((await fetch(`${e.url}/projects`, { headers: { authorization: "Bearer env-b" } })).status).toBe(200);
    expect((await fetch(`${e.url}/projects`, { headers: { authorization: "Bearer neon-emulator-key" } })).status).toBe(401);
    e.child.kill("SIGTERM");
    await e.exited;
  });

  it("applies --rate-limit and --faults", async () => {
    const r = await run(["--api-key", "k", "--rate-limit", "off", "--faults", "error=1"]);
    const res = await fetch(`${r.url}/projects`, { headers: { authorization: "Bearer k" } });
    expect(res.status).toBe(503);
    const faults = await (await fetch(r.url.replace("/api/v2", "/_emulator/faults"))).json();
    expect(faults).toEqual({ error: 1, reset: 0, lost: 0, lock: 0, latency: null, next: [] });
    r.child.kill("SIGTERM");
    await r.exited;
  });

  it("with --no-control answers no control route (404, as Neon would) and serves the API as before", async () => {
    const r = await run(["--api-key", "k", "--rate-limit", "off", "--no-control"]);
    const control = await fetch(r.url.replace("/api/v2", "/_emulator/requests"));
    const api = await fetch(`${r.url}/projects`, { headers: { authorization: "Bearer k" } });
    expect([control.status, api.status]).toEqual([404, 200]);
    r.child.kill("SIGTERM");
    await r.exited;
  });

  it("ignores unknown request fields, or with --strict refuses them naming the field", async () => {
    const body = JSON.stringify({ project: { name: "p" }, extra: true });
    for (const [args, status, message] of [
      [[], 201, undefined],
      [["--strict"], 400, "extra: is not a known field"],
    ] as const) {
      const r = await run(["--api-key", "k", "--rate-limit", "off", ...args]);
      const res = await fetch(`${r.url}/projects`, { method: "POST", headers: { authorization: "Bearer k", "content-type": "application/json" }, body });
      const json = (await res.json()) as { message?: string };
      expect([res.status, json.message]).toEqual([status, message]);
      r.child.kill("SIGTERM");
      await r.exited;
    }
  });

  it("gives back a branch database's memory when its project is deleted: 10 projects made and deleted stay within 1.2 times the first", { timeout: 600_000 }, async () => {
    const r = await run(["--api-key", "cli-key", "--operation-delay", "0", "--rate-limit", "off"]);
    const headers = { authorization: "Bearer cli-key", "content-type": "application/json" };
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${r.url}${p}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      return { status: res.status, json: (await res.json()) as any };
    };
    /** What the emulator and every process it started hold (each database is one), and how many it started. */
    const tree = () => {
      // A process that ends while it is read is no longer there: it counts for nothing.
      const read = (file: string) => {
        try {
          return fs.readFileSync(file, "utf8");
        } catch {
          return "";
        }
      };
      const pids = [r.child.pid!];
      for (let i = 0; i < pids.length; i++) {
        const tasks = read(`/proc/${pids[i]}/status`) === "" ? [] : fs.readdirSync(`/proc/${pids[i]}/task`);
        for (const task of tasks) {
          const kids = read(`/proc/${pids[i]}/task/${task}/children`).trim();
          if (kids !== "") pids.push(...kids.split(" ").map(Number));
        }
      }
      const rss = pids.map((pid) => Number(/VmRSS:\s+(\d+) kB/.exec(read(`/proc/${pid}/status`))?.[1] ?? 0));
      return { kb: rss.reduce((a, b) => a + b, 0), children: rss.slice(1).filter((kb) => kb > 0).length };
    };
    const cycle = async () => {
      const made = await call("POST", "/projects", { project: {} });
      expect(made.status).toBe(201);
      const id = made.json.project.id as string;
      const uri = (await call("GET", `/projects/${id}/connection_uri?database_name=neondb&role_name=neondb_owner`)).json.uri as string;
      const c = new Client({ connectionString: uri, connectionTimeoutMillis: 30_000 });
      await c.connect();
      await c.query("CREATE TABLE notes AS SELECT g AS n, repeat('x', 100) AS t FROM generate_series(1, 10000) g");
      expect((await c.query("SELECT count(*)::int AS n FROM notes")).rows).toEqual([{ n: 10000 }]);
      await c.end();
      expect(tree().children).toBe(1);
      expect((await call("DELETE", `/projects/${id}`)).status).toBe(200);
      // The database's process ends once the deletion is stored: wait for it, a bounded number of looks.
      for (let look = 0; tree().children > 0 && look < 600; look++) await new Promise((res) => setTimeout(res, 50));
      expect(tree().children).toBe(0);
      return tree().kb;
    };
    try {
      const first = await cycle();
      let last = first;
      for (let i = 1; i < 10; i++) last = await cycle();
      expect({ first, last, within: last <= 1.2 * first }).toEqual({ first, last, within: true });
    } finally {
      r.child.kill("SIGKILL");
      await r.exited;
    }
  });

  it("rejects bad arguments with exit code 2 and usage", () => {
    const bad = exitOf(["--rate-limit", "fast"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--rate-limit must be off or spec");
    expect(exitOf(["--bogus"]).status).toBe(2);
    expect(exitOf(["--faults", "boom=1"]).status).toBe(1);
    const help = exitOf(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("--seed-project ID[:BR]");
  });

  it("a SIGKILL during a storm of writes never leaves a half-written state file", async () => {
    const state = path.join(tmp, "killed.json");
    let persisted = 0;
    for (let round = 0; round < 3; round++) {
      const r = await run(["--api-key", "k", "--seed-project", "p-kill", "--state", state, "--rate-limit", "off", "--operation-delay", "0"]);
      const h = { authorization: "Bearer k", "content-type": "application/json" };
      if (round === 0) {
        const created = await fetch(`${r.url}/projects/auth/create`, {
          method: "POST",
          headers: h,
          body: JSON.stringify({ auth_provider: "stack", project_id: "p-kill", branch_id: "br-main-p-kill" }),
        });
        expect(created.status).toBe(201);
        // Wait until the integration is on disk, so that the storm below has something to add to.
        const deadline = Date.now() + 5_000;
        while (!(fs.existsSync(state) && fs.readFileSync(state, "utf8").includes('"stack"')) && Date.now() < deadline) {
          await new Promise((res) => setTimeout(res, 10));
        }
      }
      let ok = 0;
      const storm = Array.from({ length: 300 }, (_, i) =>
        fetch(`${r.url}/projects/auth/user`, {
          method: "POST",
          headers: h,
          body: JSON.stringify({ project_id: "p-kill", auth_provider: "stack", email: `r${round}-${i}@example.com` }),
        }).then(
          (res) => {
            if (res.status === 201) ok++;
            if (ok === 100) r.child.kill("SIGKILL");
          },
          () => undefined,
        ),
      );
      await Promise.all(storm);
      if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill("SIGKILL");
      expect((await r.exited).signal).toBe("SIGKILL");
      const saved = JSON.parse(fs.readFileSync(state, "utf8"));
      const users = saved.projects["p-kill"].integrations.stack.users as unknown[];
      expect(users.length).toBeLessThanOrEqual(300 * (round + 1));
      // What a finished write had put on disk is never lost by a later kill.
      expect(users.length).toBeGreaterThanOrEqual(persisted);
      persisted = users.length;
    }
    // A restart reads the file and cleans up any temp file the killed process left.
    const again = await run(["--api-key", "k", "--state", state]);
    const rows: any = await (await fetch(again.url.replace("/api/v2", "/_emulator/projects/p-kill/users_sync"))).json();
    expect(rows.rows.length).toBe(persisted);
    expect(fs.readdirSync(tmp).filter((n) => n.startsWith(".killed.json."))).toEqual([]);
    again.child.kill("SIGTERM");
    expect((await again.exited).code).toBe(0);
  });
});
