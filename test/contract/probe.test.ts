/**
 * The fidelity probe (scripts/probe.mts) against emulators. The emulator answers with the shapes
 * committed in neon-shapes.json: recorded from Neon once a maintainer has run `npm run probe --
 * --write` there (then only Neon's additions may differ), until then from the emulator itself (then
 * nothing may), so a drift of the emulator's answers fails here either way. A newer Neon's
 * additions are reported as tolerated; one answer changed on purpose is reported alone, with the
 * ledger row it concerns.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import { promisify } from "node:util";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { differences, ledgerRows, record, type Recording } from "../../scripts/probe/run.mts";
import { STEPS } from "../../scripts/probe/steps.mts";
import { startEmulator, type EmulatorOptions } from "../../src/emulator";
import { BRANCH_SETTINGS, ENDPOINTS } from "../../src/schemas/endpoints";

const KEY = "probe-key-7d2e";
const SHAPES = path.join(__dirname, "neon-shapes.json");
const committed = JSON.parse(fs.readFileSync(SHAPES, "utf8")) as Recording & { recordedFrom: "neon" | "emulator" };

/** The probe against an emulator that, like Neon, has no control routes. */
async function recordOn(opts: EmulatorOptions = {}): Promise<Recording> {
  const em = await startEmulator({ port: 0, apiKeys: [KEY], rateLimit: "off", operationDelayMs: 0, control: false, ...opts });
  try {
    return await record({ url: em.url, key: KEY }, "neon-auth-probe-test");
  } finally {
    await em.close();
  }
}

describe("the fidelity probe", () => {
  let emulator: Recording;
  beforeAll(async () => {
    emulator = await recordOn();
  }, 60_000);

  it("calls every operation of the endpoint table, and names only ledger rows that exist, once each", () => {
    const called = new Set(["createProject", ...STEPS.map((s) => s.id.split(".")[0])]);
    expect(ENDPOINTS.map((e) => e.name).filter((n) => !called.has(n))).toEqual([]);
    const rows = ledgerRows();
    for (const s of STEPS.filter((x) => x.ledger !== undefined)) {
      expect([s.id, rows.filter((r) => r.includes(s.ledger!)).length]).toEqual([s.id, 1]);
    }
  });

  it("finds the emulator as the committed shapes say, every call answered as expected", () => {
    const rows = differences(emulator, committed);
    expect(rows.filter((r) => !r.tolerated)).toEqual([]);
    if (committed.recordedFrom === "emulator") expect(rows).toEqual([]);
    // The refusals the script asks for on purpose, and nothing else, fail.
    const refused = Object.entries(emulator.steps).filter(([, r]) => r.status >= 300 || r.status === 0);
    expect(refused.map(([id, r]) => `${id} ${r.status}`)).toEqual([
      "enableBranchAuth.again 409",
      "addBranchOAuthProvider.sharedGithub 400",
      "addBranchDomain.bareHost 400",
      "createBranchUser.sameAddress 409",
      "rotateBranchOAuthClientSecret.public 400",
      "createProjectBranchDataAPI.again 409",
      "createProjectBranchDataAPI.withoutAuth 400",
    ]);
  });

  it("reports a newer Neon's additions as tolerated, and what it leaves out, nulls or pages as differences", async () => {
    const written = STEPS.slice(0, STEPS.findIndex((s) => s.id === "getBranchPlugins")).map((s) => s.id);
    const unsetAtAggregateRead = BRANCH_SETTINGS.filter((row) => row.aggregated && !written.includes(row.write.name)).map((row) => row.key);
    const rows = differences(emulator, await recordOn({ newerNeon: true }));
    const seen = (tolerated: boolean, at: (r: (typeof rows)[number]) => string) => new Set(rows.filter((r) => r.tolerated === tolerated).map((r) => `${at(r)} ${r.reference} → ${r.target}`));
    expect(seen(true, (r) => r.at.split(".").pop()!)).toEqual(
      new Set([
        "added_by_newer_neon absent → an object",
        "pagination absent → an object",
        // The members of types nobody declared that a newer Neon lists in a new integration.
        "client_id absent → string",
        "type string:shared → string:enterprise|string:shared",
      ]),
    );
    // What the package reads as "not set" or follows page by page, but the emulator answers otherwise.
    expect(seen(false, (r) => r.at)).toEqual(
      new Set([
        ".db_name string → absent",
        ".jwks_url string → absent",
        // Each setting of the aggregate read that the script has not written when it reads it.
        ...unsetAtAggregateRead.map((key) => `.${key} an object → null`),
        ".clients[].type string:confidential|string:public → string:dynamic",
        ".data[].db_name string → absent",
        ".data[].jwks_url string → absent",
      ]),
    );
  }, 60_000);

  it("reports one answer changed on purpose, alone, with its ledger row", async () => {
    const rows = differences(emulator, await recordOn({ deviation: "readded-domain-answers-200" }));
    expect(rows).toEqual([
      {
        step: "addBranchDomain.again",
        call: "POST /projects/{project_id}/branches/{branch_id}/auth/domains",
        ledger: "Adding a domain already listed answers 201 and keeps one",
        at: "status",
        reference: "201",
        target: "200",
        tolerated: false,
      },
    ]);
  }, 60_000);
});

describe("--cleanup", () => {
  it("deletes what an interrupted probe or remote run left, by their name prefixes only", async () => {
    const em = await startEmulator({ port: 0, apiKeys: [KEY], rateLimit: "off", operationDelayMs: 0, control: false });
    const names = () =>
      fetch(`${em.url}/projects`, { headers: { authorization: `Bearer ${KEY}` } }).then(async (r) => ((await r.json()) as any).projects.map((p: any) => p.name).sort());
    try {
      for (const name of ["neon-auth-e2e-20261128030012-p-import", "neon-auth-probe-2026-11-28t03-00-00", "team-neon-auth-e2e-staging", "neon-auth-probe"]) {
        const made = await fetch(`${em.url}/projects`, {
          method: "POST",
          headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
          body: JSON.stringify({ project: { name } }),
        });
        expect(made.status).toBe(201);
      }
      // Asynchronously: the emulator answers from this process.
      const { stdout: out } = await promisify(execFile)(process.execPath, [path.join(__dirname, "../../scripts/probe.mts"), "--cleanup", "--older-than", "0"], {
        env: { ...process.env, NEON_AUTH_E2E_TARGET: em.url, NEON_API_KEY: KEY },
        encoding: "utf8",
      });
      expect(out.trim().split("\n").at(-1)).toBe("2 leftover project(s) deleted");
      expect(await names()).toEqual(["neon-auth-probe", "team-neon-auth-e2e-staging"]);
    } finally {
      await em.close();
    }
  });
});
