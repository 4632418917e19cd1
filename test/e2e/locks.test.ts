/**
 * A project locked by other work (423) is waited for against a time budget, per stack
 * (`neon-auth:lockTimeoutSeconds`), not an attempt count. The emulator keeps a new project
 * locked while its creation operations run (operationDelayMs), as Neon does.
 */
import * as path from "node:path";
import { afterAll, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, stackFor, useEmulatorStack, type E2eStack } from "./harness";
import { API_KEY, neonConfig, projectConfig, requestLog, snapshot } from "./neon";
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

  async function stackOn(project: { id: string; branch: string }): Promise<E2eStack> {
    return stackFor({
      program: path.join(__dirname, "programs", "all-kinds"),
      config: {
        ...neonConfig(em),
        ...projectConfig(project.id, project.branch, { clientSecret: "gh-secret-locks-19", smtpPassword: "smtp-pw-locks-28" }),
        without: { value: JSON.stringify(["keys", "transfer", "user", "oauth", "email"]) },
      },
    });
  }

  useEmulatorStack({ emulator: { rateLimit: "off", operationDelayMs: LOCK_MS }, ready: (s) => (em = s.em) });

  // Runs before the fixture's teardown closes the emulator (after-hooks run last-registered first).
  afterAll(async () => {
    await e2e?.cleanup();
  });

  it("up waits out a 60 s lock with the default budget and succeeds", { timeout: 240_000 }, async () => {
    const project = await lockedProject();
    e2e = await stackOn(project);
    const up = await e2e.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ create: 3 }); // with the stack itself
    const creates = (await requestLog(em)).filter((r) => r.path === CREATE).map((r) => r.status);
    // Locked many times (more than the 10 attempts other failures get), then created once.
    expect(creates.length).toBeGreaterThan(2);
    expect(creates.slice(0, -1).every((s) => s === 423)).toBe(true);
    expect(creates.at(-1)).toBe(201);
    const snap = await snapshot(em, project.id);
    expect(snap.integrations).toEqual([{ auth_provider: "stack", branch_id: project.branch, owned_by: "neon" }]);
    expect(snap.domains).toEqual(["https://app.example.com"]);
    await expectNoChanges(e2e.stack);
    await e2e.cleanup();
  });

  it("a lock longer than the stack's budget fails with the time waited and why", { timeout: 240_000 }, async () => {
    const project = await lockedProject();
    e2e = await stackOn(project);
    await e2e.stack.setConfig("neon-auth:lockTimeoutSeconds", { value: "2" });
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

    // Without the setting, the default budget outlasts the rest of the lock.
    await e2e.stack.removeConfig("neon-auth:lockTimeoutSeconds");
    const up = await e2e.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ create: 2 });
    await expectNoChanges(e2e.stack);
  });
});
