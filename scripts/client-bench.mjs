#!/usr/bin/env node
// Benchmark of the HTTP client against the local emulator (build first: npx tsc -p tsconfig.build.json).
//
//  A. pacing: 2,000 calls issued 64 at a time against the emulator at the service's rate limits
//     (700/min per account, bursts of 40). Prints surfaced errors, 429s the emulator answered, wall
//     time, the physical floor max(0, R - 40) * 60/700 s for the R requests the emulator saw, and
//     wall/floor. Takes about three minutes.
//  B. faults: with error=0.1,reset=0.05,lock=0.05, 500 mixed calls (creates, updates, deletes, lists)
//     must surface no error, and the emulator's state must hold no duplicate object. Writes whose
//     answer was lost (`mayHaveActed`) are read back before being tried again, the way the resources
//     do it.
//
// Usage: node scripts/client-bench.mjs [pacing|faults|all] (default all)
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { createClient, isConflict, isNotFound, mayHaveActed } = require("../dist/client/index.js");
const { startEmulator, seedBranchId } = require("../dist/emulator/index.js");
const { SERVICE_RATE_LIMIT } = require("../dist/schemas/limits.js");

const KEY = "bench-key-0123456789";
const which = process.argv[2] ?? "all";

async function control(emu, method, path, body) {
  const res = await fetch(emu.controlUrl + path, {
    method,
    headers: method === "GET" ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Runs `n` tasks with at most `width` in flight; returns the errors thrown. */
async function pool(n, width, task) {
  const errors = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      try {
        await task(i);
      } catch (e) {
        errors.push(e);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, n) }, worker));
  return errors;
}

async function setupIntegration(client, projectId) {
  await client.createIntegration({ auth_provider: "stack", project_id: projectId, branch_id: seedBranchId(projectId) });
}

async function benchPacing() {
  const R_CALLS = 2000;
  const emu = await startEmulator({ apiKeys: [KEY], port: 0, rateLimit: "spec", seedProjects: ["bench-pacing"] });
  const client = createClient({ apiKey: KEY, baseUrl: emu.url });
  try {
    await setupIntegration(client, "bench-pacing");
    // Start both sides from full buckets, with a clean log.
    emu.rateLimiter.reset();
    await new Promise((r) => setTimeout(r, 4_000));
    await control(emu, "DELETE", "/requests");

    const p = "bench-pacing";
    const calls = [
      () => client.listDomains(p),
      () => client.listOAuthProviders(p),
      () => client.getEmailServer(p),
      () => client.listIntegrations(p),
      () => client.updateEmailServer(p, { type: "shared" }),
    ];
    const t0 = performance.now();
    const errors = await pool(R_CALLS, 64, (i) => calls[i % calls.length]());
    const wallS = (performance.now() - t0) / 1000;
    const stats = await control(emu, "GET", "/stats");
    const R = stats.total;
    const r429 = stats.byStatus["429"] ?? 0;
    const floorS = (Math.max(0, R - SERVICE_RATE_LIMIT.burst) * 60) / SERVICE_RATE_LIMIT.perMinute;
    console.log("== A. pacing at spec limits ==");
    console.log(`calls issued:          ${R_CALLS} (64 at a time)`);
    console.log(`errors surfaced:       ${errors.length}${errors.length ? ` (first: ${errors[0].message})` : ""}`);
    console.log(`requests seen (R):     ${R}`);
    console.log(`429s answered:         ${r429} (${((100 * r429) / R).toFixed(2)}%)`);
    console.log(`status counts:         ${JSON.stringify(stats.byStatus)}`);
    console.log(`wall time:             ${wallS.toFixed(2)} s`);
    console.log(`floor (R-40)*60/700:   ${floorS.toFixed(2)} s`);
    console.log(`ratio wall/floor:      ${(wallS / floorS).toFixed(4)}`);
    return { errors: errors.length, r429, R, wallS, floorS, ratio: wallS / floorS };
  } finally {
    await client.close();
    await emu.close();
  }
}

/** Create with read-back: what a resource does when a POST's answer may have been lost. */
async function createOnce(create, readBack) {
  for (let i = 0; ; i++) {
    try {
      return await create();
    } catch (e) {
      if (!mayHaveActed(e) && !isConflict(e)) throw e;
      if (i >= 5) throw e;
      const found = await readBack();
      if (found !== undefined) return found;
      if (isConflict(e)) throw e; // exists but cannot be found: a real conflict
    }
  }
}

/** Delete where 404 means done (the object is gone, possibly by an earlier lost-answer attempt). */
async function deleteOnce(del) {
  try {
    await del();
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}

async function benchFaults() {
  const emu = await startEmulator({ apiKeys: [KEY], port: 0, rateLimit: "spec", seedProjects: ["bench-f1", "bench-f2"] });
  const client = createClient({ apiKey: KEY, baseUrl: emu.url });
  const projects = ["bench-f1", "bench-f2"];
  let readBacks = 0;
  try {
    for (const p of projects) await setupIntegration(client, p);
    await control(emu, "DELETE", "/requests");
    await control(emu, "PUT", "/faults", { spec: "error=0.1,reset=0.05,lock=0.05" });

    // The real service has no "list users" endpoint: resources read neon_auth.users_sync with SQL.
    // The emulator shows that table at GET /_emulator/projects/{id}/users_sync.
    const findUser = async (p, email) => {
      readBacks++;
      const { rows } = await control(emu, "GET", `/projects/${p}/users_sync`);
      const row = rows.find((r) => r.email === email);
      return row ? { id: row.id } : undefined;
    };
    const addDomain = (p, domain) =>
      createOnce(
        () => client.addDomain(p, { domain, auth_provider: "stack" }),
        async () => {
          readBacks++;
          return (await client.listDomains(p)).some((d) => d.domain === domain) ? true : undefined;
        },
      );
    const addProvider = (p, id, creds) =>
      createOnce(
        () => client.addOAuthProvider(p, { id, ...creds }),
        async () => {
          readBacks++;
          return (await client.listOAuthProviders(p)).find((x) => x.id === id);
        },
      );

    // The workload: 500 logical calls in three phases, as a stack's create, update and destroy would run.
    const calls = { create: 0, update: 0, delete: 0, list: 0 };
    const users = new Map(); // key project/email → id
    const phase1 = [];
    for (const p of projects) {
      for (let i = 0; i < 75; i++) phase1.push(() => (calls.create++, addDomain(p, `https://app-${i}.example.com`)));
      for (let i = 0; i < 60; i++) {
        const email = `user${i}@example.com`;
        phase1.push(async () => {
          calls.create++;
          const r = await createOnce(
            () => client.createUser({ project_id: p, auth_provider: "stack", email, name: `User ${i}` }),
            () => findUser(p, email),
          );
          users.set(`${p}/${email}`, r.id);
        });
      }
      phase1.push(() => (calls.create++, addProvider(p, "google", {})));
      phase1.push(() => (calls.create++, addProvider(p, "github", { client_id: "gh-id", client_secret: "gh-secret" })));
      phase1.push(() => (calls.create++, addProvider(p, "microsoft", { client_id: "ms-id", client_secret: "ms-secret" })));
    }
    const phase2 = [];
    for (const p of projects) {
      for (let i = 0; i < 10; i++) {
        phase2.push(() => (calls.update++, client.updateOAuthProvider(p, "github", { client_id: `gh-id-${i}`, client_secret: `gh-secret-${i}` })));
        phase2.push(() =>
          (calls.update++,
          client.updateEmailServer(p, {
            type: "standard",
            host: "smtp.example.com",
            port: 587,
            username: "mailer",
            password: `pw-${i}`,
            sender_email: "noreply@example.com",
            sender_name: "Bench",
          })),
        );
      }
      for (let i = 0; i < 5; i++) {
        phase2.push(() => (calls.list++, client.listDomains(p)));
        phase2.push(() => (calls.list++, client.listOAuthProviders(p)));
        phase2.push(() => (calls.list++, client.getEmailServer(p)));
        phase2.push(() => (calls.list++, client.listIntegrations(p)));
      }
      phase2.push(() => (calls.update++, client.updateEmailServer(p, { type: "shared" })));
    }
    const phase3 = [];
    for (const p of projects) {
      for (let i = 0; i < 40; i++) {
        phase3.push(() => (calls.delete++, deleteOnce(() => client.deleteDomains(p, { auth_provider: "stack", domains: [{ domain: `https://app-${i}.example.com` }] }))));
      }
      for (let i = 0; i < 30; i++) {
        phase3.push(() => (calls.delete++, deleteOnce(() => client.deleteUser(p, users.get(`${p}/user${i}@example.com`)))));
      }
      phase3.push(() => (calls.delete++, deleteOnce(() => client.deleteOAuthProvider(p, "microsoft"))));
    }
    const total = phase1.length + phase2.length + phase3.length;

    const t0 = performance.now();
    const errors = [];
    for (const phase of [phase1, phase2, phase3]) errors.push(...(await pool(phase.length, 16, (i) => phase[i]())));
    const wallS = (performance.now() - t0) / 1000;
    await control(emu, "PUT", "/faults", { spec: "" });

    // Check the state: no duplicates, and exactly what the workload should leave.
    const state = await control(emu, "GET", "/state");
    const problems = [];
    for (const p of projects) {
      const proj = state.projects.find((x) => x.id === p);
      const integ = proj.integrations[0];
      const dup = (arr, key) => {
        const seen = new Set();
        const d = [];
        for (const x of arr) {
          const k = key(x).toLowerCase();
          if (seen.has(k)) d.push(k);
          seen.add(k);
        }
        return d;
      };
      const dd = dup(integ.domains, (x) => x.domain);
      const du = dup(integ.users, (x) => x.email);
      const dp = dup(integ.oauth_providers, (x) => x.id);
      if (dd.length || du.length || dp.length) problems.push(`${p}: duplicates domains=${dd} users=${du} providers=${dp}`);
      if (integ.domains.length !== 35) problems.push(`${p}: ${integ.domains.length} domains, expected 35`);
      if (integ.users.length !== 30) problems.push(`${p}: ${integ.users.length} users, expected 30`);
      const provs = integ.oauth_providers.map((o) => o.id).sort().join(",");
      if (provs !== "github,google") problems.push(`${p}: providers ${provs}, expected github,google`);
      const gh = integ.oauth_providers.find((o) => o.id === "github");
      if (!gh?.client_id?.startsWith("gh-id-")) problems.push(`${p}: github client_id ${gh?.client_id}`);
      if (integ.email_server.type !== "shared") problems.push(`${p}: email server ${integ.email_server.type}, expected shared`);
    }
    const stats = await control(emu, "GET", "/stats");
    console.log("== B. faults error=0.1,reset=0.05,lock=0.05 ==");
    console.log(`logical calls:         ${total} ${JSON.stringify(calls)}`);
    console.log(`errors surfaced:       ${errors.length}${errors.length ? ` (first: ${errors[0].message})` : ""}`);
    console.log(`requests seen:         ${stats.total} ${JSON.stringify(stats.byStatus)}`);
    console.log(`faults injected:       ${JSON.stringify(stats.faults)}`);
    console.log(`read-backs after lost answers: ${readBacks}`);
    console.log(`state check:           ${problems.length ? problems.join("; ") : "no duplicate object; final state as expected"}`);
    console.log(`wall time:             ${wallS.toFixed(2)} s`);
    return { errors: errors.length, problems, total };
  } finally {
    await client.close();
    await emu.close();
  }
}

let failed = false;
if (which === "faults" || which === "all") {
  const r = await benchFaults();
  failed ||= r.errors > 0 || r.problems.length > 0;
}
if (which === "pacing" || which === "all") {
  const r = await benchPacing();
  failed ||= r.errors > 0 || r.ratio > 1.15 || r.r429 / r.R > 0.01;
}
process.exitCode = failed ? 1 : 0;
