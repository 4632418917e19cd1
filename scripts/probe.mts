/**
 * `npm run probe`: does the emulator still answer as Neon does? Runs the probe's script
 * (scripts/probe/steps.mts: each operation the package uses, once, and one call for each ledger
 * assumption a call can settle) on a throwaway project at a real Neon, then the same script at a
 * fresh emulator, and prints where the shapes of their answers differ, row by row, with the ledger
 * row each difference concerns. Exit 1 when a difference is not tolerated (a field the emulator
 * has that Neon lacks, another status or type); Neon's additions are tolerated and listed.
 *
 *   NEON_AUTH_E2E_TARGET=https://console.neon.tech/api/v2 NEON_API_KEY=… npm run probe
 *   npm run probe -- --write     # also writes Neon's shapes to test/contract/neon-shapes.json
 *   npm run probe -- --cleanup   # deletes projects an interrupted probe or remote e2e run left
 *                                # (their name prefixes only, an hour old or older)
 *   npm run probe -- --emulator  # no Neon: writes the emulator's own shapes to that file, until
 *                                # a recording from Neon is committed (then this refuses)
 *
 * NEON_ORG_ID names the organization new projects go to, when the key's account needs one. Only
 * shapes are printed or written: never a value an answer holds, the key, or what the probe sent.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { differences, LEFTOVER_PREFIXES, PROBE_PREFIX, record, report, type Recording, type Target } from "./probe/run.mts";

const require = createRequire(import.meta.url);
const SHAPES = path.resolve(import.meta.dirname, "../test/contract/neon-shapes.json");
/** The emulator's own key for its side of the comparison (loopback, never Neon's). */
const EMULATOR_KEY = "probe-emulator-key";

function targetOf(): Target {
  const url = process.env.NEON_AUTH_E2E_TARGET;
  const key = process.env.NEON_API_KEY;
  if (!url || !key) {
    process.stderr.write("probe: set NEON_AUTH_E2E_TARGET (the API's base URL, e.g. https://console.neon.tech/api/v2) and NEON_API_KEY\n");
    process.exit(2);
  }
  return { url: url.replace(/\/+$/, ""), key, ...(process.env.NEON_ORG_ID ? { orgId: process.env.NEON_ORG_ID } : {}) };
}

async function onEmulator(): Promise<Recording> {
  const { startEmulator } = require("../dist/emulator/index.js") as typeof import("../src/emulator/index.ts");
  const em = await startEmulator({ port: 0, apiKeys: [EMULATOR_KEY], rateLimit: "off", operationDelayMs: 0, control: false });
  try {
    return await record({ url: em.url, key: EMULATOR_KEY }, `${PROBE_PREFIX}emulator`);
  } finally {
    await em.close();
  }
}

/**
 * Deletes the projects an interrupted probe or remote e2e run left: named with one of their
 * prefixes and older than `minutes`; nothing else in the account.
 */
async function cleanup(t: Target, minutes: number): Promise<number> {
  let deleted = 0;
  for (const prefix of LEFTOVER_PREFIXES) deleted += await cleanupPrefix(t, prefix, Date.now() - minutes * 60_000);
  return deleted;
}

async function cleanupPrefix(t: Target, prefix: string, old: number): Promise<number> {
  const headers = { authorization: `Bearer ${t.key}`, accept: "application/json" };
  let deleted = 0;
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({ search: prefix, limit: "100", ...(cursor ? { cursor } : {}), ...(t.orgId ? { org_id: t.orgId } : {}) });
    const res = await fetch(`${t.url}/projects?${query}`, { headers });
    if (res.status !== 200) throw new Error(`listing projects answered ${res.status}`);
    const page = (await res.json()) as { projects: { id: string; name: string; created_at?: string }[]; pagination?: { cursor?: string } };
    for (const p of page.projects) {
      if (!p.name.startsWith(prefix) || p.created_at === undefined || Date.parse(p.created_at) > old) continue;
      const gone = await fetch(`${t.url}/projects/${encodeURIComponent(p.id)}`, { method: "DELETE", headers });
      process.stdout.write(`${gone.status === 200 ? "deleted" : `could not delete (${gone.status})`} ${p.id}\n`);
      if (gone.status === 200) deleted++;
    }
    cursor = page.projects.length > 0 ? page.pagination?.cursor : undefined;
  } while (cursor);
  return deleted;
}

function writeShapes(recordedFrom: "neon" | "emulator", r: Recording): void {
  fs.writeFileSync(SHAPES, `${JSON.stringify({ recordedFrom, ...r }, null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(process.cwd(), SHAPES)}: review and commit it\n`);
}

const { values } = parseArgs({
  options: { write: { type: "boolean" }, cleanup: { type: "boolean" }, emulator: { type: "boolean" }, "older-than": { type: "string", default: "60" } },
});
if (values.emulator) {
  // A confirmed behaviour stays confirmed: Neon's recording is never replaced by the emulator's.
  if (JSON.parse(fs.readFileSync(SHAPES, "utf8")).recordedFrom === "neon") {
    process.stderr.write("probe: the committed shapes were recorded from Neon; record them again from Neon (--write)\n");
    process.exit(2);
  }
  writeShapes("emulator", await onEmulator());
  process.exit(0);
}
const target = targetOf();
if (values.cleanup) {
  const n = await cleanup(target, Number(values["older-than"]));
  process.stdout.write(`${n} leftover project(s) deleted\n`);
} else {
  const neon = await record(target, `${PROBE_PREFIX}${new Date().toISOString().replace(/[:.]/g, "-").toLowerCase()}`, (l) =>
    process.stderr.write(`${l}\n`),
  );
  const emulator = await onEmulator();
  const rows = differences(emulator, neon);
  process.stdout.write(`${report(rows, { reference: "emulator", target: "Neon" })}\n`);
  if (values.write) writeShapes("neon", neon);
  process.exitCode = rows.some((r) => !r.tolerated) ? 1 : 0;
}
