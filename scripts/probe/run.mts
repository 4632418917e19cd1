/**
 * Runs the probe's script against one API (Neon, or an emulator) and compares two recordings.
 * Plain fetch, not the package's client: the probe checks the service, not our code. Nothing it
 * prints or records holds a value of an answer, the key or a secret it sent: shapes only.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { compareShapes, shapeOf, type Difference, type Shape } from "./shape.mts";
import { createProjectStep, STEPS, type Step, type Vars } from "./steps.mts";

export interface Target {
  /** The API's base URL, `…/api/v2`. */
  readonly url: string;
  readonly key: string;
  /** The organization new projects go to (Neon accounts in an organization need it). */
  readonly orgId?: string;
}

export interface Recorded {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: Shape | null;
}

export interface Recording {
  readonly steps: Record<string, Recorded>;
}

/** Every project the probe makes is named so. */
export const PROBE_PREFIX = "neon-auth-probe-";
/** Every project a remote run of the e2e makes is named so (test/e2e/remote.ts). */
export const E2E_PREFIX = "neon-auth-e2e-";
/** `--cleanup` deletes only projects named with one of these. */
export const LEFTOVER_PREFIXES = [PROBE_PREFIX, E2E_PREFIX] as const;
/** A 423, 429 or 503 is waited out this long at most, per call (Neon's operations take seconds). */
const WAIT_MS = 120_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function call(t: Target, method: string, urlPath: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const res = await fetch(`${t.url}${urlPath}`, {
      method,
      headers: { authorization: `Bearer ${t.key}`, accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if ([423, 429, 503].includes(res.status) && Date.now() < deadline) {
      const after = Number(res.headers.get("retry-after"));
      await sleep(Number.isFinite(after) && after > 0 ? Math.min(after * 1000, 10_000) : 1_000);
      continue;
    }
    let json: unknown;
    try {
      json = text === "" ? undefined : JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, json };
  }
}

function fill(template: string, v: Vars): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (v[name] === undefined) throw new Error(`the probe has no ${name} yet (an earlier call failed)`);
    return encodeURIComponent(v[name]);
  });
}

async function runStep(t: Target, step: Step, v: Vars): Promise<Recorded> {
  const body = typeof step.body === "function" ? (step.body as (v: Vars) => unknown)(v) : step.body;
  const { status, json } = await call(t, step.method, fill(step.path, v), body);
  if (status < 300) step.keep?.(json, v);
  return { method: step.method, path: step.path, status, body: json === undefined ? null : shapeOf(json) };
}

/**
 * The script against `t`, on a project of its own named `name` (deleted at the end, whatever
 * happened). A call that fails is recorded with its status; a call that needs an id a failed call
 * should have given is recorded as not made (status 0).
 */
export async function record(t: Target, name: string, log: (line: string) => void = () => {}): Promise<Recording> {
  const v: Vars = {};
  const steps: Record<string, Recorded> = {};
  const first = createProjectStep(name, t.orgId);
  steps[first.id] = await runStep(t, first, v);
  try {
    for (const step of STEPS) {
      try {
        steps[step.id] = await runStep(t, step, v);
      } catch (err) {
        steps[step.id] = { method: step.method, path: step.path, status: 0, body: (err as Error).message };
      }
      log(`${String(steps[step.id]!.status).padStart(3)} ${step.method} ${step.path}`);
    }
  } finally {
    if (v.project_id !== undefined) {
      const gone = await call(t, "DELETE", `/projects/${encodeURIComponent(v.project_id)}`);
      if (gone.status >= 300) log(`could not delete the probe's project (${gone.status}): run the probe with --cleanup`);
    }
  }
  return { steps };
}

/** One difference, with the call it was seen on and the ledger row that call settles. */
export interface Row extends Difference {
  readonly step: string;
  readonly call: string;
  readonly ledger?: string;
}

export function differences(reference: Recording, target: Recording): Row[] {
  const ledgerOf = new Map<string, string | undefined>([...STEPS, createProjectStep("")].map((s) => [s.id, s.ledger]));
  const ids = [...new Set([...Object.keys(reference.steps), ...Object.keys(target.steps)])];
  return ids.flatMap((id) => {
    const [r, t] = [reference.steps[id], target.steps[id]];
    const where = { step: id, call: `${(r ?? t)!.method} ${(r ?? t)!.path}`, ...(ledgerOf.get(id) === undefined ? {} : { ledger: ledgerOf.get(id) }) };
    if (r === undefined || t === undefined) {
      return [{ ...where, at: "call", reference: r ? "made" : "absent", target: t ? "made" : "absent", tolerated: false }];
    }
    const status = r.status === t.status ? [] : [{ ...where, at: "status", reference: String(r.status), target: String(t.status), tolerated: false }];
    return [...status, ...compareShapes(r.body ?? undefined, t.body ?? undefined).map((d) => ({ ...where, ...d }))];
  });
}

/** The ledger's rows (their Behaviour cell), for naming the row a difference concerns. */
export function ledgerRows(): string[] {
  const readme = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/emulator/README.md");
  const text = fs.readFileSync(readme, "utf8");
  const table = text.slice(text.indexOf("## Fidelity ledger"));
  return table
    .split("\n")
    .filter((l) => l.startsWith("| ") && !l.startsWith("| Behaviour") && !l.startsWith("|---"))
    .map((l) => l.split(" | ")[0]!.slice(2));
}

/** The report, one line a difference: the call, where, reference → target, and the ledger row. */
export function report(rows: readonly Row[], names: { reference: string; target: string }): string {
  if (rows.length === 0) return `no difference between ${names.target} and ${names.reference}`;
  const rowsOf = ledgerRows();
  const lines = rows.map((d) => {
    const row = d.ledger === undefined ? "(OpenAPI shapes)" : (rowsOf.find((r) => r.includes(d.ledger!)) ?? d.ledger);
    return `${d.tolerated ? "tolerated" : "DIFFERENT"}  ${d.step} (${d.call}) ${d.at}: ${names.reference} ${d.reference} → ${names.target} ${d.target}\n           ledger: ${row.length > 110 ? `${row.slice(0, 107)}…` : row}`;
  });
  const hard = rows.filter((d) => !d.tolerated).length;
  return `${lines.join("\n")}\n${rows.length} difference(s) between ${names.target} and ${names.reference}; ${hard} not tolerated`;
}
