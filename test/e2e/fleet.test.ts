/**
 * A fleet on one key (issue 27): six stacks, each one NeonAuth and 60 trusted domains on a branch
 * of its own, updated at once with one API key against the emulator at Neon's limits (700 a
 * minute per account, bursts of 40). Each provider process paces itself and shares the account's
 * budget (src/client/pacing.ts), so every `up` succeeds; each stack then shows no changes, and the
 * six destroys run at once too. Heavy on a shared machine: run this file alone.
 */
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { expectNoChanges, stackFor, type E2eStack } from "./harness";
import { API_KEY, branchSnapshot, emulator, neonConfig } from "./neon";
import { atEmulator } from "./remote";

const PROGRAM = path.join(__dirname, "programs", "many-resources");
const K = 6;
const N = 60;

const origins = (s: number) => Array.from({ length: N }, (_, i) => `https://s${s}-app-${String(i).padStart(2, "0")}.example.com`);
const project = (s: number) => `p-fleet-${s}`;
const branch = (s: number) => `br-main-p-fleet-${s}`;

async function stats(em: EmulatorHandle): Promise<{ total: number; byStatus: Record<string, number> }> {
  return (await (await fetch(`${em.controlUrl}/stats`)).json()) as { total: number; byStatus: Record<string, number> };
}

describe(`${K} stacks at once on one key, ${N} domains each, at Neon's rate limit`, () => {
  let em: EmulatorHandle;
  const stacks: E2eStack[] = [];

  beforeAll(async () => {
    em = await emulator({ seedProjects: Array.from({ length: K }, (_, s) => `${project(s)}:${branch(s)}`), rateLimit: "spec" });
    for (let s = 0; s < K; s++) {
      const cases = [{ kind: "NeonAuth", args: { projectId: project(s), branchId: branch(s) } }, ...origins(s).map((domain) => ({ kind: "RedirectDomain", args: { domain } }))];
      stacks.push(
        await stackFor({
          program: PROGRAM,
          stackName: `fleet-${s}`,
          config: { ...neonConfig(em), cases: { value: JSON.stringify(cases) }, chain: { value: "true" } },
        }),
      );
    }
  });

  afterAll(async () => {
    // Destroys at once, as a pipeline tearing down its preview environments would.
    await Promise.all(stacks.map((s) => s.cleanup()));
    await em?.close();
  });

  it("every up succeeds, each stack then shows no changes, and every destroy succeeds", { timeout: 1_500_000 }, async () => {
    const ups = await Promise.allSettled(stacks.map((s) => s.stack.up({ color: "never" })));
    // What the run cost, for the record (the fleet bench measures it: npm run bench).
    await atEmulator(async () => {
      const after = await stats(em);
      process.stderr.write(`fleet e2e: ${after.total} requests, ${after.byStatus["429"] ?? 0} answered 429\n`);
    });
    expect(ups.map((u) => (u.status === "fulfilled" ? u.value.summary.resourceChanges : String(u.reason).slice(0, 400)))).toEqual(
      new Array(K).fill({ create: N + 2 }),
    );
    // The reads below are the key's too: let its bucket refill first (40 tokens at 700 a minute).
    await new Promise((r) => setTimeout(r, 4_000));
    for (let s = 0; s < K; s++) {
      const snap = await branchSnapshot(em, project(s), branch(s));
      expect(snap.domains).toEqual(origins(s));
    }
    for (const s of stacks) await expectNoChanges(s.stack);

    const destroys = await Promise.allSettled(stacks.map((s) => s.stack.destroy({ color: "never" })));
    expect(destroys.map((d) => (d.status === "fulfilled" ? d.value.summary.resourceChanges : String(d.reason).slice(0, 400)))).toEqual(
      new Array(K).fill({ delete: N + 2 }),
    );
    await new Promise((r) => setTimeout(r, 4_000));
    for (let s = 0; s < K; s++) {
      const res = await fetch(`${em.url}/projects/${project(s)}/branches/${branch(s)}/auth/domains`, { headers: { authorization: `Bearer ${API_KEY}` } });
      expect(res.status).toBe(404);
    }
  });
});
