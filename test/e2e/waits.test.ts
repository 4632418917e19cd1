/**
 * Waits are visible (issue 26): an `up` of 150 domains at Neon's rate limit, with a 429 and a 423
 * injected into requests that have already waited their turn, prints a line for each kind of wait
 * (pacing, 429, lock) naming the resource, the reason and how long it may still wait
 * (src/provider/waits.ts). Asserted on the engine's events through the Automation API.
 */
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { expectNoChanges, stackFor, type E2eStack } from "./harness";
import { emulator, neonConfig, requestLog } from "./neon";
import { emulatorOnly } from "./remote";

const PROGRAM = path.join(__dirname, "programs", "many-resources");
const P = "p-waits";
const B = "br-main-p-waits";
const N = 150;
const DOMAINS = `/projects/${P}/branches/${B}/auth/domains`;
const ROUTE = "/projects/{project_id}/branches/{branch_id}/auth/domains";
const domainPosts = async (em: EmulatorHandle) => ((await requestLog(em)) as unknown as { method: string; route: string | null; status: number }[]).filter((e) => e.method === "POST" && e.route === ROUTE);
const origins = Array.from({ length: N }, (_, i) => `https://app-${String(i).padStart(3, "0")}.example.com`);

emulatorOnly("a lock switched by the emulator's control routes")("waits are visible", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;

  beforeAll(async () => {
    em = await emulator({ seedProjects: [`${P}:${B}`], rateLimit: "spec" });
    const cases = [{ kind: "NeonAuth", args: { projectId: P, branchId: B } }, ...origins.map((domain) => ({ kind: "RedirectDomain", args: { domain } }))];
    e2e = await stackFor({ program: PROGRAM, config: { ...neonConfig(em), cases: { value: JSON.stringify(cases) }, chain: { value: "true" } } });
  });

  afterAll(async () => {
    await e2e?.cleanup();
    await em?.close();
  });

  it(`an up of ${N} domains says when and why requests wait: pacing, a 429, a locked project`, { timeout: 900_000 }, async () => {
    const events: EngineEvent[] = [];
    // All 150 at once (as `--parallel` raised for a large stack): their queue under the pacing is
    // what makes requests wait for seconds; at the default parallelism no request waits 2 s.
    const up = e2e.stack.up({ color: "never", parallel: N, onEvent: (e) => events.push(e) });
    // Once 80 domains are in, the requests still queued have waited their turn for seconds: the
    // next one meets a 429 (no Retry-After, as from Neon), the one after a 423.
    let injected = false;
    const inject = (async () => {
      for (let i = 0; i < 1200 && !injected; i++) {
        const added = (await domainPosts(em)).filter((e) => e.status >= 200 && e.status < 300).length;
        if (added >= 80) {
          const res = await fetch(`${em.controlUrl}/faults`, {
            method: "PUT",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              spec: "error=0",
              next: [
                { kind: "error", status: 429, method: "POST", path: DOMAINS },
                { kind: "lock", method: "POST", path: DOMAINS },
              ],
            }),
          });
          expect(res.status).toBe(200);
          injected = true;
        } else await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const result = await up;
    await inject;
    expect(injected).toBe(true);
    expect(result.summary.resourceChanges).toEqual({ create: N + 2 });
    const statuses = (await domainPosts(em)).map((e) => e.status);
    expect(statuses.filter((s) => s === 429 || s === 423).sort()).toEqual([423, 429]);

    const lines = events.map((e) => e.diagnosticEvent?.message ?? "").filter((m) => m.includes("neon-auth: ") && m.includes(" waits"));
    process.stderr.write(`wait lines:\n${lines.join("")}\n`);
    const sample = events.find((e) => e.diagnosticEvent?.message.includes("neon-auth: "));
    process.stderr.write(`a wait line's event: ${JSON.stringify(sample)}\n`);
    const domain = "RedirectDomain https://app-\\d{3}\\.example\\.com";
    const left = "it may wait (\\d+ min( \\d+ s)?|\\d+\\.\\d s) more";
    expect(lines.filter((l) => new RegExp(`neon-auth: ${domain} waits its turn under Neon's rate limit \\(pacing\\), about \\d+\\.\\d s; ${left} \\(neon-auth:rateLimitTimeoutSeconds\\)`).test(l)).length).toBeGreaterThan(0);
    expect(lines.filter((l) => new RegExp(`neon-auth: ${domain} waits after a 429 from Neon \\(rate limit: .*\\), retrying in \\d+\\.\\d s \\(attempt \\d+ of \\d+\\); ${left} \\(neon-auth:rateLimitTimeoutSeconds\\)`).test(l)).length).toBeGreaterThan(0);
    expect(lines.filter((l) => new RegExp(`neon-auth: ${domain} waits: the project is locked by another operation \\(423\\), retrying in \\d+\\.\\d s \\(attempt \\d+ of \\d+\\); ${left} \\(neon-auth:lockTimeoutSeconds\\)`).test(l)).length).toBeGreaterThan(0);
    // Throttled: a few lines per kind, not one per request.
    expect(lines.length).toBeLessThan(40);

    await expectNoChanges(e2e.stack);
  });
});
