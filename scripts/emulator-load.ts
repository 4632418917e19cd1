/**
 * Load check of the emulator: N requests (default 2000) at C concurrent (default 50) with one API
 * key, against the compiled CLI run as its own process, so that its peak RSS (VmHWM) is the
 * emulator's alone. Prints total, statuses, the share of 429s next to the share the rate-limit
 * model predicts for the measured wall time, wall time and the emulator's peak RSS. Then the same
 * load with rate limits off, for raw throughput.
 *
 * With --hostile, instead: what any local process can throw at it without a key. N requests
 * (default 12000) with paths of 15 KB, half of them POSTs with a 64 KB body and a wrong key, and
 * the emulator's peak RSS afterwards (it must stay under 150 MB: the log keeps capped paths, and
 * no body is read before the key is checked).
 *
 *   npm run build   (or any build that produces dist/emulator/cli.js)
 *   node scripts/emulator-load.ts [--requests 2000] [--concurrency 50] [--cli dist/emulator/cli.js]
 *   node scripts/emulator-load.ts --hostile [--requests 12000] [--concurrency 50] [--path-bytes 15360]
 *
 * Plain node (type stripping): only erasable TypeScript syntax here.
 */
// CommonJS (the package is "type": "commonjs"), so require rather than import.
const { spawn } = require("node:child_process") as typeof import("node:child_process");
const fs = require("node:fs") as typeof import("node:fs");
const path = require("node:path") as typeof import("node:path");
const { SERVICE_RATE_LIMIT } = require("../dist/schemas/limits.js") as typeof import("../src/schemas/limits");

const args = process.argv.slice(2);
function opt(name: string, def: string): string {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? (args[i + 1] as string) : def;
}
const hostile = args.includes("--hostile");
const N = Number(opt("--requests", hostile ? "12000" : "2000"));
const C = Number(opt("--concurrency", "50"));
const cli = path.resolve(opt("--cli", path.join(__dirname, "..", "dist", "emulator", "cli.js")));
const KEY = "load-key";
const PROJECT = "p-load";
const { perMinute: PER_MINUTE, burst: BURST } = SERVICE_RATE_LIMIT;

interface Emu {
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

function startCli(rateLimit: string): Promise<Emu> {
  const child = spawn(
    process.execPath,
    [cli, "--api-key", KEY, "--seed-project", PROJECT, "--rate-limit", rateLimit, "--operation-delay", "0"],
    { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, NODE_PATH: path.join(__dirname, "..", "node_modules") } },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    child.on("exit", (code) => reject(new Error(`emulator exited with ${code}`)));
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) {
        resolve({
          url: out.split("\n")[0] as string,
          pid: child.pid as number,
          stop: () =>
            new Promise<void>((r) => {
              child.removeAllListeners("exit");
              child.on("exit", () => r());
              child.kill("SIGTERM");
            }),
        });
      }
    });
  });
}

function procStatus(pid: number, field: string): number {
  const text = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text);
  return m ? Number(m[1]) / 1024 : NaN;
}

async function runLoad(rateLimit: string) {
  const emu = await startCli(rateLimit);
  const h = { authorization: `Bearer ${KEY}`, "content-type": "application/json", accept: "application/json" };
  const setup = await fetch(`${emu.url}/projects/auth/create`, {
    method: "POST",
    headers: h,
    body: JSON.stringify({ auth_provider: "stack", project_id: PROJECT, branch_id: `br-main-${PROJECT}` }),
  });
  if (setup.status !== 201) throw new Error(`setup failed: ${setup.status}`);
  const control = emu.url.replace("/api/v2", "/_emulator");
  await fetch(`${control}/requests`, { method: "DELETE", headers: { "content-type": "application/json" } });
  // Let the account bucket fill up again, so the run starts from a full burst of 40.
  if (rateLimit === "spec") await new Promise((r) => setTimeout(r, Math.ceil((60_000 / PER_MINUTE) * 2) + 100));

  const mix = [
    (i: number) => fetch(`${emu.url}/projects/${PROJECT}`, { headers: h }),
    (i: number) => fetch(`${emu.url}/projects/${PROJECT}/auth/integrations`, { headers: h }),
    (i: number) => fetch(`${emu.url}/projects/${PROJECT}/auth/domains`, { headers: h }),
    (i: number) =>
      fetch(`${emu.url}/projects/auth/user`, {
        method: "POST",
        headers: h,
        body: JSON.stringify({ project_id: PROJECT, auth_provider: "stack", email: `load-${rateLimit}-${i}@example.com` }),
      }),
  ];
  const byStatus: Record<string, number> = {};
  let next = 0;
  let rssPeakSampled = 0;
  const sampler = setInterval(() => {
    rssPeakSampled = Math.max(rssPeakSampled, procStatus(emu.pid, "VmRSS"));
  }, 20);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next < N) {
        const i = next++;
        const res = await (mix[i % mix.length] as (i: number) => Promise<Response>)(i);
        await res.arrayBuffer();
        byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
      }
    }),
  );
  const wallMs = performance.now() - t0;
  clearInterval(sampler);
  const peakRssMb = procStatus(emu.pid, "VmHWM");
  const stats = await (await fetch(`${control}/stats`)).json();
  await emu.stop();

  const n429 = byStatus["429"] ?? 0;
  const allowed = Math.min(N, BURST + (wallMs / 1000) * (PER_MINUTE / 60));
  return {
    rateLimit,
    total: N,
    concurrency: C,
    byStatus,
    serverCountedTotal: (stats as { total: number }).total,
    n429,
    share429: n429 / N,
    expectedShare429: rateLimit === "spec" ? 1 - allowed / N : 0,
    wallMs: Math.round(wallMs),
    requestsPerSecond: Math.round(N / (wallMs / 1000)),
    emulatorPeakRssMb: Math.round(peakRssMb * 10) / 10,
    emulatorRssSampledMaxMb: Math.round(rssPeakSampled * 10) / 10,
  };
}

async function runHostile() {
  const emu = await startCli("spec");
  const longPath = `/projects/${"x".repeat(Number(opt("--path-bytes", String(15 * 1024))))}/auth/domains`;
  const body = JSON.stringify({ domain: `https://${"a".repeat(60)}.example.com`, pad: "p".repeat(64 * 1024) });
  const byStatus: Record<string, number> = {};
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next < N) {
        const i = next++;
        const res =
          i % 2 === 0
            ? await fetch(`${emu.url}${longPath}`)
            : await fetch(`${emu.url}${longPath}`, {
                method: "POST",
                headers: { authorization: "Bearer wrong-key", "content-type": "application/json" },
                body,
              });
        await res.arrayBuffer();
        byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
      }
    }),
  );
  const wallMs = performance.now() - t0;
  const peakRssMb = procStatus(emu.pid, "VmHWM");
  const control = emu.url.replace("/api/v2", "/_emulator");
  const log = (await (await fetch(`${control}/requests`)).json()) as { requests: unknown[] };
  await emu.stop();
  console.log(
    [
      `hostile: ${N} unauthenticated requests with ${longPath.length}-character paths (half POSTs with ${body.length}-byte bodies), ${C} concurrent`,
      `  statuses: ${JSON.stringify(byStatus)}; wall time ${Math.round(wallMs)} ms`,
      `  request log kept ${log.requests.length} entries, ${JSON.stringify(log).length} bytes as JSON`,
      `  emulator peak RSS (VmHWM): ${Math.round(peakRssMb * 10) / 10} MB (limit 150 MB: ${peakRssMb < 150 ? "within" : "OVER"})`,
    ].join("\n"),
  );
}

async function main() {
  if (!fs.existsSync(cli)) {
    console.error(`${cli} not found: build first (npm run build)`);
    process.exit(1);
  }
  if (hostile) return runHostile();
  for (const mode of ["spec", "off"]) {
    const r = await runLoad(mode);
    console.log(
      [
        `rate-limit=${r.rateLimit}: ${r.total} requests, ${r.concurrency} concurrent, one key`,
        `  statuses: ${JSON.stringify(r.byStatus)} (emulator counted ${r.serverCountedTotal})`,
        `  429s: ${r.n429} = ${(r.share429 * 100).toFixed(1)}%` +
          (r.rateLimit === "spec"
            ? `; model predicts ${(r.expectedShare429 * 100).toFixed(1)}% (allowed = 40 + wall_s × 700/60)`
            : ""),
        `  wall time: ${r.wallMs} ms (${r.requestsPerSecond} req/s)`,
        `  emulator peak RSS (VmHWM): ${r.emulatorPeakRssMb} MB; max sampled VmRSS during run: ${r.emulatorRssSampledMaxMb} MB`,
      ].join("\n"),
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
