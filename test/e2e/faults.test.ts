/**
 * The full example under random faults (503s, resets before acting, lost answers after acting,
 * 423 locks, latency) at the service's rate limits: `up` converges to exactly the declared state,
 * a preview and a refresh show no changes, and `destroy` under the same faults leaves nothing.
 *
 * AuthUser's lost create answers, which the API cannot resolve (it cannot look users up), are
 * resolved by reading neon_auth.users_sync from the emulator's real Postgres: one `up`, no failed
 * resource, exactly one row per declared user.
 */
import { expect, it } from "vitest";
import { parseFaultSpec, type EmulatorHandle } from "../../src/emulator";
import { expectNoChanges, failureCollector, fullSetup, useEmulatorStack, type E2eStack } from "./harness";
import { FULL_SETUP_EMAIL, FULL_SETUP_PROVIDERS, FULL_SETUP_USERS, faultsInjected, fullSetupDomains, snapshot, usersSyncRows } from "./neon";
import { emulatorOnly } from "./remote";

const PROJECT = "p-faults";
const BRANCH = "br-main-p-faults";
const EXTRA = 20;
const FAULTS = "error=0.1,reset=0.05,lost=0.05,lock=0.05,latency=0-300";

emulatorOnly("random faults injected by the emulator")("full setup under random faults", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;
  const figures = { ups: 0 };

  useEmulatorStack({
    ...fullSetup({
      project: PROJECT,
      branch: BRANCH,
      githubClientSecret: "gh-secret-faults-5a1",
      smtpPassword: "smtp-pw-faults-9c2",
      extraDomains: EXTRA,
      faults: FAULTS,
    }),
    ready: (s) => ({ em, e2e } = s),
    beforeTeardown: ({ em }) => em.faults.set(parseFaultSpec("")),
    afterCleanup: async (em) => {
      const stats = await (await fetch(`${em.controlUrl}/stats`)).json();
      // The figures the README reports.
      console.log(`faults figures: ${JSON.stringify({ ...figures, requests: (stats as any).total, injected: (stats as any).faults })}`);
    },
  });

  // stack + integration + keys + 2 providers + (3 + EXTRA) domains + email + 2 users
  const TOTAL = 1 + 1 + 1 + 2 + 3 + EXTRA + 1 + 2;

  it("up converges to exactly the declared state", { timeout: 600_000 }, async () => {
    figures.ups++;
    const { failures, onEvent } = failureCollector();
    await e2e.stack.up({ color: "never", continueOnError: true, onEvent }).catch(() => undefined);
    expect(Object.fromEntries(failures)).toEqual({});

    const rows = await calm(() => usersSyncRows(em, PROJECT));
    expect(rows.map((r) => [r.email, r.name, r.deleted])).toEqual([
      ["ada@example.com", "Ada Lovelace", false],
      ["grace@example.com", "Grace Hopper", false],
    ]);
    expect(await calm(() => snapshot(em, PROJECT))).toEqual({
      integrations: [{ auth_provider: "stack", branch_id: BRANCH, owned_by: "neon" }],
      providers: FULL_SETUP_PROVIDERS,
      domains: fullSetupDomains(EXTRA),
      email: FULL_SETUP_EMAIL,
      users: FULL_SETUP_USERS,
    });
    expect(faultsInjected(em)).toBeGreaterThan(0);
    await expectNoChanges(e2e.stack, TOTAL);
  });

  it("destroy under the same faults leaves nothing", { timeout: 600_000 }, async () => {
    const destroy = await e2e.stack.destroy({ color: "never" });
    expect(destroy.summary.resourceChanges).toEqual({ delete: TOTAL });
    expect(await calm(() => snapshot(em, PROJECT))).toEqual({ integrations: [], providers: [], domains: [], email: undefined, users: [] });
  });

  /** The test's own look at the emulator goes without faults; the stack's operations keep them. */
  async function calm<T>(f: () => Promise<T>): Promise<T> {
    em.faults.set(parseFaultSpec(""));
    try {
      return await f();
    } finally {
      em.faults.set(parseFaultSpec(FAULTS));
    }
  }
});
