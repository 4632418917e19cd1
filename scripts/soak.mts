/**
 * Soak: update cycles of the full example against the emulator under random faults, for a
 * while (default 30 minutes). Each cycle flips the configuration (rotates the GitHub client
 * secret, toggles a redirect domain, changes the SMTP port, rotates the SDK keys every third
 * cycle), runs `pulumi up`, and checks that the emulator holds exactly the declared state (no
 * object lost, none leaked). It samples the memory of the dynamic-provider process during each
 * `up` (one such process lives per `up`, so "flat" means its per-cycle peak stays flat). At the
 * end it destroys the stack under the same faults and checks that nothing is left.
 *
 *   eval "$(scripts/env)"; node scripts/soak.mts [--minutes 30] [--faults SPEC] [--extra-domains 20]
 *
 * AuthUser creates whose answer is lost stop with the documented error; the soak reconciles
 * them as the README says (delete the stray user found in users_sync, re-run) and counts
 * them. Any other failure counts as a failure. Exit code 1 when anything was off.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { apiConfig, copyProgram, prepareWorkspace, pulumiEnv, repo } from "./workspace.mts";

const require = createRequire(import.meta.url);

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const MINUTES = Number(arg("minutes", "30"));
const FAULTS = arg("faults", "error=0.05,reset=0.05,lost=0.05,lock=0.05,latency=0-300");
const EXTRA = Number(arg("extra-domains", "20"));
const KEY = "soak-key-0b7d3e";
const PROJECT = "p-soak";
const BRANCH = "br-main-p-soak";

const log = (line: string) => process.stderr.write(`soak: ${line}\n`);
const workspace = prepareWorkspace(log);
const emulatorModule = require(path.join(workspace, "node_modules", "pulumi-neon-auth", "dist", "emulator", "index.js"));
const { LocalWorkspace } = require(path.join(repo, "node_modules", "@pulumi", "pulumi", "automation"));

const em = await emulatorModule.startEmulator({
  port: 0,
  apiKeys: [KEY],
  seedProjects: [`${PROJECT}:${BRANCH}`],
  rateLimit: "spec",
  faults: FAULTS,
  strict: true,
});
const faultSettings = emulatorModule.parseFaultSpec(FAULTS);
const noFaults = emulatorModule.parseFaultSpec("");

async function calm<T>(f: () => Promise<T>): Promise<T> {
  em.faults.set(noFaults);
  try {
    return await f();
  } finally {
    em.faults.set(faultSettings);
  }
}

async function get(p: string): Promise<any> {
  const res = await fetch(`${em.url}${p}`, { headers: { authorization: `Bearer ${KEY}` } });
  if (res.status === 404) return undefined;
  if (res.status !== 200) throw new Error(`GET ${p}: ${res.status}`);
  return res.json();
}

async function usersSync(): Promise<{ id: string; email: string; name: string | null }[]> {
  const res = await fetch(`${em.controlUrl}/projects/${PROJECT}/users_sync`);
  return res.status === 200 ? ((await res.json()) as any).rows : [];
}

/** What the emulator holds, in a comparable form. */
async function actual() {
  return calm(async () => ({
    integrations: ((await get(`/projects/${PROJECT}/auth/integrations`))?.data ?? []).map((i: any) => `${i.auth_provider}:${i.branch_id}`),
    providers: ((await get(`/projects/${PROJECT}/auth/oauth_providers`))?.providers ?? []).map((p: any) => `${p.id}:${p.type}`).sort(),
    domains: ((await get(`/projects/${PROJECT}/auth/domains`))?.domains ?? []).map((d: any) => d.domain).sort(),
    email: (await get(`/projects/${PROJECT}/auth/email_server`)) ?? null,
    users: (await usersSync()).map((u) => `${u.email}:${u.name}`).sort(),
  }));
}

interface Flip {
  secret: string;
  port: number;
  toggle: boolean;
  rotation: string;
}

function declared(f: Flip) {
  const domains = ["https://app.example.com", "https://staging.example.com", "http://localhost:3000"];
  for (let i = 1; i <= EXTRA; i++) domains.push(`https://app-${i}.example.com`);
  if (f.toggle) domains.push("https://toggle.example.com");
  return {
    integrations: [`stack:${BRANCH}`],
    providers: ["github:standard", "google:shared"],
    domains: domains.sort(),
    email: { type: "standard", host: "smtp.example.com", port: f.port, username: "apikey", sender_email: "auth@example.com", sender_name: "Example Auth" },
    users: ["ada@example.com:Ada Lovelace", "grace@example.com:Grace Hopper"],
  };
}

/** Peak memory of this soak's dynamic-provider processes alive now (kB): those running in its program folder. */
function providerMemory(): { rss: number; hwm: number } {
  let rss = 0;
  let hwm = 0;
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!cmdline.includes("dynamic-provider") || fs.readlinkSync(`/proc/${pid}/cwd`) !== dir) continue;
      const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
      rss = Math.max(rss, Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0));
      hwm = Math.max(hwm, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {
      // The process ended between listing and reading.
    }
  }
  return { rss, hwm };
}

const dir = copyProgram(workspace, path.join(repo, "examples", "full-setup"));
const backendDir = fs.mkdtempSync(path.join(workspace, "programs", "soak-state-"));
const env = pulumiEnv(backendDir, "soak-passphrase");
const stack = await LocalWorkspace.createOrSelectStack({ stackName: "soak", workDir: dir }, { envVars: env });
await stack.setAllConfig({
  ...apiConfig(em.url, KEY),
  projectId: { value: PROJECT },
  branchId: { value: BRANCH },
  smtpPassword: { value: "soak-smtp-pw", secret: true },
  extraDomains: { value: String(EXTRA) },
});

const figures = {
  minutes: MINUTES,
  faults: FAULTS,
  extraDomains: EXTRA,
  cycles: 0,
  ups: 0,
  userReconciliations: 0,
  otherFailures: [] as string[],
  mismatches: [] as string[],
  perCycle: [] as { cycle: number; ups: number; seconds: number; providerPeakRssKb: number; providerHwmKb: number }[],
};

/** `up` until it succeeds; AuthUser's documented error is reconciled, anything else counted. */
async function converge(cycle: number): Promise<{ ups: number; rss: number; hwm: number }> {
  let rss = 0;
  let hwm = 0;
  const timer = setInterval(() => {
    const m = providerMemory();
    rss = Math.max(rss, m.rss);
    hwm = Math.max(hwm, m.hwm);
  }, 200);
  try {
    for (let ups = 1; ; ups++) {
      figures.ups++;
      const failures = new Map<string, string>();
      const onEvent = (e: any) => {
        const d = e.diagnosticEvent;
        if (d?.severity === "error" && d.urn && !d.urn.includes("::pulumi:pulumi:Stack::")) failures.set(d.urn, d.message);
      };
      const ok = await stack.up({ color: "never", continueOnError: true, onEvent }).then(
        () => true,
        (e: Error) => {
          if (failures.size === 0) failures.set("(none)", e.message.slice(-2000));
          return false;
        },
      );
      if (ok) return { ups, rss, hwm };
      for (const [urn, message] of failures) {
        const lostUser = /AuthUser (\S+): the create request may have reached Neon but its answer was lost/.exec(message);
        if (!lostUser) {
          figures.otherFailures.push(`cycle ${cycle}: ${urn}: ${message.trim().slice(0, 500)}`);
          continue;
        }
        for (const row of (await usersSync()).filter((r) => r.email === lostUser[1])) {
          await calm(() => fetch(`${em.url}/projects/${PROJECT}/auth/users/${row.id}`, { method: "DELETE", headers: { authorization: `Bearer ${KEY}` } }));
        }
        figures.userReconciliations++;
      }
      if (ups >= 6) throw new Error(`cycle ${cycle}: no convergence after ${ups} ups`);
    }
  } finally {
    clearInterval(timer);
  }
}

const until = Date.now() + MINUTES * 60_000;
let exitCode = 0;
try {
  for (let cycle = 1; cycle === 1 || Date.now() < until; cycle++) {
    const flip: Flip = {
      secret: `soak-client-secret-${cycle}`,
      port: cycle % 2 === 0 ? 2525 : 587,
      toggle: cycle % 2 === 0,
      rotation: `r${Math.floor(cycle / 3)}`,
    };
    await stack.setConfig("githubClientSecret", { value: flip.secret, secret: true });
    await stack.setConfig("smtpPort", { value: String(flip.port) });
    await stack.setConfig("keysRotation", { value: flip.rotation });
    const domains = ["https://staging.example.com", "http://localhost:3000", ...(flip.toggle ? ["https://toggle.example.com"] : [])];
    await stack.setConfig("domains", { value: JSON.stringify(domains) });

    const t0 = Date.now();
    const { ups, rss, hwm } = await converge(cycle);
    const got = await actual();
    const want = declared(flip);
    for (const k of Object.keys(want) as (keyof typeof want)[]) {
      if (JSON.stringify(got[k]) !== JSON.stringify(want[k])) {
        figures.mismatches.push(`cycle ${cycle} ${k}: got ${JSON.stringify(got[k])}, want ${JSON.stringify(want[k])}`);
      }
    }
    figures.cycles = cycle;
    const row = { cycle, ups, seconds: Math.round((Date.now() - t0) / 100) / 10, providerPeakRssKb: rss, providerHwmKb: hwm };
    figures.perCycle.push(row);
    log(JSON.stringify(row));
  }

  // Destroy under the same faults: nothing may be left.
  for (let attempt = 1; ; attempt++) {
    const ok = await stack.destroy({ color: "never", continueOnError: true }).then(
      () => true,
      (e: Error) => {
        figures.otherFailures.push(`destroy attempt ${attempt}: ${e.message.slice(-500)}`);
        return false;
      },
    );
    if (ok || attempt >= 3) break;
  }
  const left = await actual();
  if (left.integrations.length + left.providers.length + left.domains.length + left.users.length > 0) {
    figures.mismatches.push(`after destroy: ${JSON.stringify(left)}`);
  }
} catch (e) {
  figures.otherFailures.push(String((e as Error).stack ?? e));
} finally {
  em.faults.set(noFaults);
  const stats = await (await fetch(`${em.controlUrl}/stats`)).json();
  const peaks = figures.perCycle.map((c) => c.providerPeakRssKb).filter((n) => n > 0);
  const summary = {
    ...figures,
    perCycle: undefined,
    requests: (stats as any).total,
    byStatus: (stats as any).byStatus,
    faultsInjected: (stats as any).faults,
    objectsLost: figures.mismatches.length,
    providerPeakRssKb: peaks.length
      ? { first: peaks[0], last: peaks[peaks.length - 1], min: Math.min(...peaks), max: Math.max(...peaks) }
      : null,
  };
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  if (figures.mismatches.length > 0 || figures.otherFailures.length > 0) exitCode = 1;
  try {
    await stack.workspace.removeStack("soak", { force: true });
  } catch {
    // The folders go below anyway.
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(backendDir, { recursive: true, force: true });
  await em.close();
}
process.exit(exitCode);
