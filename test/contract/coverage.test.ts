/**
 * Every entry of the endpoint table has a client method, an emulator route and at least one
 * contract test; fails naming what is missing. Branch-scoped methods must also call their own entry.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { branchAuthClient } from "../../src/client/branchAuth";
import { createClient } from "../../src/client";
import { allRoutes } from "../../src/emulator/server";
import { BRANCH_SETTINGS, ENDPOINTS, endpointsOf, type AnyEndpoint, type Generation } from "../../src/schemas/endpoints";

const HERE = __dirname;
const SELF = new Set(["coverage.test.ts", "endpoint-table.test.ts"]);
const tests = fs
  .readdirSync(HERE)
  .filter((f) => f.endsWith(".test.ts") && !SELF.has(f))
  .map((f) => ({ file: f, text: fs.readFileSync(path.join(HERE, f), "utf8") }));

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The reads and PATCHes of the settings table's rows: a file that calls every row's (`call(row.write`) exercises them. */
const ROW_CALLS = new Set<AnyEndpoint>(BRANCH_SETTINGS.flatMap((row) => [...("read" in row ? [row.read] : []), ...(row.write.method === "PATCH" ? [row.write] : [])]));

/** Files that exercise `e`: through its table entry, by method and a literal path matching the template, or through its row. */
function testsOf(e: AnyEndpoint): string[] {
  const byEntry = new RegExp(`\\b[BHP]\\.${e.name}\\b`);
  const literal = e.path.split(/\{\w+\}/).map(escape).join("[^/\"'`?]+");
  const byPath = new RegExp(`"${e.method}",\\s*[\`"']${literal}[\`"'?]`);
  const byRow = (text: string) => ROW_CALLS.has(e) && /for \(const row of BRANCH_SETTINGS\)[\s\S]*call\(row\.write, /.test(text);
  return tests.filter((t) => byEntry.test(t.text) || byPath.test(t.text) || byRow(t.text)).map((t) => t.file);
}

function clientHas(e: AnyEndpoint): boolean {
  const client = createClient({ apiKey: "k", pacing: false }) as unknown as Record<string, unknown> & { branchAuth: Record<string, unknown> };
  const owner = e.generation === "branch" ? client.branchAuth : client;
  return typeof owner[e.name] === "function";
}

function routeHas(e: AnyEndpoint): boolean {
  return allRoutes.some((r) => r.method === e.method && r.template === e.path);
}

describe("coverage of the endpoint table", () => {
  const counts: Record<Generation, number> = { hosting: 0, project: 0, branch: 0 };
  for (const e of ENDPOINTS) counts[e.generation]++;

  it("lists endpoints of each generation, and of no other", () => {
    // The counts follow from the table (a new entry is held to a method, a route and a test below), not from a number kept here.
    console.log(
      `endpoint table: ${counts.branch} branch-scoped, ${counts.project} project-level, ${counts.hosting} hosting (projects, branches, operations)`,
    );
    expect(Object.keys(counts).filter((g) => counts[g as Generation] === 0)).toEqual([]);
    expect(counts.hosting + counts.project + counts.branch).toBe(ENDPOINTS.length);
  });

  it("every entry has a client method, an emulator route and a contract test", () => {
    const missing: string[] = [];
    for (const e of ENDPOINTS) {
      if (!clientHas(e)) missing.push(`${e.name}: no client method`);
      if (!routeHas(e)) missing.push(`${e.name}: no emulator route for ${e.method} ${e.path}`);
      if (testsOf(e).length === 0) missing.push(`${e.name}: no contract test`);
    }
    expect(missing).toEqual([]);
  });

  it("each branch-scoped client method calls its own entry", async () => {
    const seen: AnyEndpoint[] = [];
    const client = branchAuthClient(async (e) => {
      seen.push(e);
      return undefined as never;
    }) as unknown as Record<string, (p: unknown, b?: unknown) => Promise<unknown>>;
    for (const e of endpointsOf("branch")) {
      seen.length = 0;
      await client[e.name]?.({}, {});
      expect(seen.map((x) => x.name)).toEqual([e.name]);
    }
  });
});
