/**
 * A project locked by other work (423) is waited for against a time budget, per stack
 * (`neon-auth:lockTimeoutSeconds`), not an attempt count. The emulator keeps a new project
 * locked while its creation operations run (operationDelayMs), as Neon does.
 */
import * as path from "node:path";
import type { ConfigMap } from "@pulumi/pulumi/automation";
import { afterAll, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, stackFor, useEmulatorStack, type E2eStack } from "./harness";
import { API_KEY, clearRequestLog, neonConfig, projectConfig, requestLog, snapshot } from "./neon";
import { emulatorOnly } from "./remote";

const LOCK_MS = 60_000;
const CREATE = "/api/v2/projects/auth/create";

emulatorOnly("a 60-second lock: the emulator keeps a new project locked for an operation delay the test sets")("a locked project", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;

  /** A new project, locked for LOCK_MS from now by its creation operations. */
  async function lockedProject(): Promise<{ id: string; branch: string }> {
    const res = await fetch(`${em.url}/projects`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ project: {} }),
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as any;
    expect(body.operations.map((o: any) => o.status)).toEqual(["running", "running"]);
    return { id: body.project.id, branch: body.branch.id };
  }

  async function stackOn(project: { id: string; branch: string }, settings: ConfigMap): Promise<E2eStack> {
    return stackFor({
      program: path.join(__dirname, "programs", "all-kinds"),
      config: {
        ...neonConfig(em),
        ...projectConfig(project.id, project.branch, { clientSecret: "gh-secret-locks-19", smtpPassword: "smtp-pw-locks-28" }),
        without: { value: JSON.stringify(["keys", "transfer", "user", "oauth", "email"]) },
        ...settings,
      },
    });
  }

  useEmulatorStack({ emulator: { rateLimit: "off", operationDelayMs: LOCK_MS }, ready: (s) => (em = s.em) });

  // Runs before the fixture's teardown closes the emulator (after-hooks run last-registered first).
  afterAll(async () => {
    await e2e?.cleanup();
  });

  // One stack: a 2 s budget gives up on a locked project; then, on a project locked afresh (the
  // first lock may be over by then on a busy machine), the default budget waits out all 60 s.
  it("a lock longer than the stack's budget fails with the time waited and why; the default budget waits out a 60 s lock", { timeout: 240_000 }, async () => {
    const project = await lockedProject();
    e2e = await stackOn(project, { "neon-auth:lockTimeoutSeconds": { value: "2" } });
    const err = await e2e.stack.up({ color: "never" }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err, "up must fail").toBeInstanceOf(Error);
    expect(String(err?.message)).toMatch(
      /project locked: waited 2(\.\d)? s while Neon answered 423 \(another operation is running on the project\), up to the lock budget of 2 s \(neon-auth:lockTimeoutSeconds\), for POST \/projects\/auth\/create; gave up after \d+ attempts/,
    );
    expect((await snapshot(em, project.id)).integrations).toEqual([]);
    const exported = await e2e.stack.exportStack();
    expect((exported.deployment.resources ?? []).filter((r: any) => r.type.startsWith("pulumi-nodejs:"))).toEqual([]);

    // Without the setting, the default budget outlasts a 60 s lock.
    await e2e.stack.removeConfig("neon-auth:lockTimeoutSeconds");
    const relocked = await lockedProject();
    await e2e.stack.setAllConfig(projectConfig(relocked.id, relocked.branch));
    await clearRequestLog(em);
    const up = await e2e.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ create: 2 }); // the stack itself came with the failed up
    const creates = (await requestLog(em)).filter((r) => r.path === CREATE).map((r) => r.status);
    // Locked many times, then created once, after the lock's end.
    expect(creates.length).toBeGreaterThan(2);
    expect(creates.slice(0, -1).every((s) => s === 423)).toBe(true);
    expect(creates.at(-1)).toBe(201);
    const snap = await snapshot(em, relocked.id);
    expect(snap.integrations).toEqual([{ auth_provider: "stack", branch_id: relocked.branch, owned_by: "neon" }]);
    expect(snap.domains).toEqual(["https://app.example.com"]);
    await expectNoChanges(e2e.stack);
  });
});
