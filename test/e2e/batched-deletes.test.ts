/**
 * Domain deletes travel in batches (src/client/batch.ts): a destroy of 100 redirect domains sends
 * a handful of `DELETE …/auth/domains`, counted in the emulator's request log; and under the
 * reliability suite's faults (5xx, resets, lost answers, 423) a batched destroy leaves nothing,
 * while a destroy whose deletes keep failing never reports a domain deleted that is still there.
 */
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { parseFaultSpec, type EmulatorHandle } from "../../src/emulator";
import { expectNoChanges, useEmulatorStack, type E2eStack, type EmulatorStackOptions } from "./harness";
import { API_KEY, clearRequestLog, neonConfig, requestLog, snapshot } from "./neon";
import { atEmulator, emulatorOnly } from "./remote";

const PROGRAM = path.join(__dirname, "programs", "many-resources");
const DELETE_DOMAINS = "/projects/{project_id}/auth/domains";
const DELETE_BRANCH_DOMAINS = "/projects/{project_id}/branches/{branch_id}/auth/domains";
const FAULTS = "error=0.1,reset=0.05,lost=0.05,lock=0.05,latency=0-300";

const origins = (n: number) => Array.from({ length: n }, (_, i) => `https://app-${String(i).padStart(3, "0")}.example.com`);

/** An integration (project-level, or a branch's NeonAuth) and `n` domains in it (the program's `chain`). */
function cases(project: string, branch: string, n: number, kind: "AuthIntegration" | "NeonAuth" = "AuthIntegration") {
  return JSON.stringify([
    { kind, args: { projectId: project, branchId: branch } },
    ...origins(n).map((domain) => ({ kind: "RedirectDomain", args: { domain } })),
  ]);
}

async function deleteRequests(em: EmulatorHandle, route = DELETE_DOMAINS): Promise<{ status: number; fault?: string }[]> {
  return (await requestLog(em)).filter((e: any) => e.method === "DELETE" && e.route === route) as any[];
}

/** A branch's trusted domains, read over the API with plain fetch; undefined once auth is off. */
async function branchDomains(em: EmulatorHandle, project: string, branch: string): Promise<string[] | undefined> {
  const res = await fetch(`${em.url}/projects/${project}/branches/${branch}/auth/domains`, { headers: { authorization: `Bearer ${API_KEY}` } });
  if (res.status === 404) return undefined;
  return ((await res.json()) as { domains: { domain: string }[] }).domains.map((d) => d.domain).sort();
}

/** Domains the stack's state still holds. */
async function domainsInState(e2e: E2eStack): Promise<string[]> {
  const deployment = (await e2e.stack.exportStack()).deployment as any;
  return (deployment.resources ?? [])
    .filter((r: any) => String(r.urn).includes("RedirectDomain"))
    .map((r: any) => r.outputs.domain as string)
    .sort();
}

/**
 * The blocks differ only in their project, how many domains, the integration's kind and the
 * batching: each gets its own emulator (one seeded project at Neon's rate limits) and a stack
 * chaining the integration and `n` domains in it. Faults, where a block sets them, are off at teardown.
 */
function chainOfDomains(
  P: string,
  B: string,
  n: number,
  o: { kind?: "NeonAuth"; env?: Record<string, string> } = {},
): Pick<EmulatorStackOptions, "emulator" | "stack" | "beforeTeardown"> {
  return {
    emulator: { seedProjects: [`${P}:${B}`], rateLimit: "spec" },
    stack: (em) => ({ program: PROGRAM, config: { ...neonConfig(em), cases: { value: cases(P, B, n, o.kind) }, chain: { value: "true" } }, env: o.env }),
    beforeTeardown: ({ em }) => atEmulator(() => em.faults.set(parseFaultSpec(""))),
  };
}

/**
 * The engine starts deletes one state write apart (10–20 ms here, more on a busy machine): a 2 s
 * pause lets every batch fill to its bound of 50, so a count of requests does not hang on timing.
 */
const FULL_BATCHES = { PULUMI_NEON_AUTH_BATCH: JSON.stringify({ quietMs: 2000, maxWaitMs: 60_000 }) };

describe("batched domain deletes", () => {
  describe("a destroy of 100 domains", () => {
    const P = "p-batch";
    const B = "br-main-p-batch";
    const N = 100;
    const s = useEmulatorStack(chainOfDomains(P, B, N, { env: FULL_BATCHES }));

    it("sends 2 DELETE requests of 50 domains", { timeout: 600_000 }, async () => {
      const up = await s.e2e.stack.up({ color: "never" });
      expect(up.summary.resourceChanges).toEqual({ create: N + 2 });
      expect((await snapshot(s.em, P)).domains).toEqual(origins(N));
      await expectNoChanges(s.e2e.stack);

      await clearRequestLog(s.em);
      const destroy = await s.e2e.stack.destroy({ color: "never", parallel: 128 });
      expect(destroy.summary.resourceChanges).toEqual({ delete: N + 2 });
      expect(await deleteRequests(s.em)).toEqual([
        expect.objectContaining({ status: 200 }),
        expect.objectContaining({ status: 200 }),
      ]);
      expect((await requestLog(s.em)).filter((e: any) => e.status === 429)).toEqual([]);
      expect(await snapshot(s.em, P)).toEqual({ integrations: [], providers: [], domains: [], email: undefined, users: [] });
    });
  });

  describe("a destroy of 100 trusted domains of a NeonAuth", () => {
    const P = "p-batch-branch";
    const B = "br-main-p-batch-branch";
    const N = 100;
    const s = useEmulatorStack(chainOfDomains(P, B, N, { kind: "NeonAuth", env: FULL_BATCHES }));

    it("sends 2 DELETE requests of 50 domains to the branch", { timeout: 600_000 }, async () => {
      const up = await s.e2e.stack.up({ color: "never" });
      expect(up.summary.resourceChanges).toEqual({ create: N + 2 });
      expect(await branchDomains(s.em, P, B)).toEqual(origins(N));
      await expectNoChanges(s.e2e.stack);

      await clearRequestLog(s.em);
      const destroy = await s.e2e.stack.destroy({ color: "never", parallel: 128 });
      expect(destroy.summary.resourceChanges).toEqual({ delete: N + 2 });
      expect(await deleteRequests(s.em, DELETE_BRANCH_DOMAINS)).toEqual([
        expect.objectContaining({ status: 200 }),
        expect.objectContaining({ status: 200 }),
      ]);
      expect(await deleteRequests(s.em)).toEqual([]);
      expect((await requestLog(s.em)).filter((e: any) => e.status === 429)).toEqual([]);
      expect(await branchDomains(s.em, P, B)).toBeUndefined();
    });
  });

  emulatorOnly("random faults injected by the emulator")("under faults", () => {
    const P = "p-batch-faults";
    const B = "br-main-p-batch-faults";
    const N = 40;
    const s = useEmulatorStack(chainOfDomains(P, B, N));

    // The same program and chain as the blocks above, made without faults: their no-change preview and refresh serve.
    it("a batched destroy under random faults leaves nothing", { timeout: 600_000 }, async () => {
      const up = await s.e2e.stack.up({ color: "never" });
      expect(up.summary.resourceChanges).toEqual({ create: N + 2 });

      await clearRequestLog(s.em);
      s.em.faults.set(parseFaultSpec(FAULTS));
      const destroy = await s.e2e.stack.destroy({ color: "never", parallel: 64 });
      s.em.faults.set(parseFaultSpec(""));
      expect(destroy.summary.resourceChanges).toEqual({ delete: N + 2 });
      const deletes = await deleteRequests(s.em);
      // Batched: far fewer requests than domains, faults and their retries included.
      expect(deletes.length).toBeLessThan(N / 2);
      expect(await snapshot(s.em, P)).toEqual({ integrations: [], providers: [], domains: [], email: undefined, users: [] });
      expect(await domainsInState(s.e2e)).toEqual([]);
    });

    it("deletes that keep failing report no success: the state keeps every domain, deleted or not", { timeout: 600_000 }, async () => {
      const up = await s.e2e.stack.up({ color: "never" });
      expect(up.summary.resourceChanges).toEqual({ create: N + 2 });

      // Every attempt reset before the service acts, until the client gives up: nothing deleted,
      // nothing reported deleted.
      const refused = await failingDestroy("reset=1");
      expect(refused.failures).toBe(N);
      expect(refused.atEmulator).toEqual(origins(N));
      expect(refused.inState).toEqual(origins(N));

      // Every answer lost after the service acted: all deleted, but no answer said so, so the
      // engine still holds them (the safe side: a refresh or the next destroy settles them).
      const lost = await failingDestroy("lost=1");
      expect(lost.failures).toBe(N);
      expect(lost.atEmulator).toEqual([]);
      expect(lost.inState).toEqual(origins(N));

      const again = await s.e2e.stack.destroy({ color: "never" });
      expect(again.summary.resourceChanges).toEqual({ delete: N + 2 });
      expect(await snapshot(s.em, P)).toEqual({ integrations: [], providers: [], domains: [], email: undefined, users: [] });
      expect(await domainsInState(s.e2e)).toEqual([]);
    });

    async function failingDestroy(spec: string): Promise<{ failures: number; atEmulator: string[]; inState: string[] }> {
      const failed = new Set<string>();
      const onEvent = (e: EngineEvent) => {
        const d = e.diagnosticEvent;
        if (d && d.severity === "error" && d.urn?.includes("RedirectDomain")) failed.add(d.urn);
      };
      s.em.faults.set(parseFaultSpec(spec));
      try {
        await s.e2e.stack.destroy({ color: "never", parallel: 64, onEvent, continueOnError: true }).then(
          () => expect.unreachable("the destroy should fail"),
          () => undefined,
        );
      } finally {
        s.em.faults.set(parseFaultSpec(""));
      }
      return { failures: failed.size, atEmulator: (await snapshot(s.em, P)).domains, inState: await domainsInState(s.e2e) };
    }
  });
});
