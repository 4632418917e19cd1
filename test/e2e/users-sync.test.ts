/**
 * AuthUser reads users back from neon_auth.users_sync (the emulator's real Postgres): a user
 * deleted outside the stack is gone on refresh and recreated by up; a rename shows as drift; a
 * user made outside is looked up by its address. With the database unreachable, the same stack
 * converges without read-back and says why, once, to a program of either face (the plugin's warning
 * goes through the engine's log the plugin is given, provider/log.ts).
 */
import * as path from "node:path";
import { expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, onFreshEmulator, pluginStack, programOnProject, useEmulatorStack, type E2eStack } from "./harness";
import { clearRequestLog, neonConfig, outOfBand, projectConfig, requestLog, snapshot, usersSyncRows } from "./neon";
import { emulatorOnly } from "./remote";

const NOTICE = "cannot read users back from neon_auth.users_sync";

async function control(em: EmulatorHandle, method: string, p: string, body?: unknown): Promise<number> {
  const res = await fetch(`${em.controlUrl}${p}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  await res.arrayBuffer();
  return res.status;
}

function occurrences(text: string, what: string): number {
  return text.split(what).length - 1;
}

/** Messages the engine lists under "Diagnostics:" (each once, unlike the progress lines). */
function diagnostics(out: string): string {
  const at = out.indexOf("Diagnostics:");
  return at < 0 ? "" : out.slice(at, out.indexOf("\nOutputs:", at) >>> 0);
}

async function userNames(e2e: E2eStack): Promise<unknown[]> {
  const deployment = (await e2e.stack.exportStack()).deployment as { resources: { type: string; outputs?: { name?: string } }[] };
  return deployment.resources.filter((r) => r.type.endsWith("AuthUser")).map((r) => r.outputs?.name);
}

emulatorOnly("dashboard changes and an unreachable database, switched by the emulator's control routes")("users read back from users_sync", () => {
  const P = "p-users-sync";
  let em: EmulatorHandle;
  let e2e: E2eStack;
  useEmulatorStack({
    ...programOnProject("all-kinds", P, { without: ["keys", "transfer", "oauth", "domain", "email"], emulator: { rateLimit: "off" } }),
    ready: (s) => ({ em, e2e } = s),
  });

  it("deleted outside: refresh shows it gone, up recreates it; renamed outside: refresh shows the drift", { timeout: 300_000 }, async () => {
    const up = await e2e.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toEqual({ create: 3 });
    expect(occurrences(up.stdout + up.stderr, NOTICE)).toBe(0);
    const [first] = await usersSyncRows(em, P);
    expect(first).toMatchObject({ email: "ada@example.com", name: "Ada", deleted: false });

    expect(await control(em, "DELETE", `/projects/${P}/users/${first!.id}`)).toBe(200);
    const gone = await e2e.stack.refresh({ color: "never" });
    expect(changesOf(gone.summary.resourceChanges)).toEqual({ delete: 1 });
    const again = await e2e.stack.up({ color: "never" });
    expect(changesOf(again.summary.resourceChanges)).toEqual({ create: 1 });
    const rows = await usersSyncRows(em, P);
    expect(rows.map((r) => [r.email, r.deleted])).toEqual([
      ["ada@example.com", false],
      ["ada@example.com", true],
    ]);
    const live = rows.find((r) => !r.deleted)!;
    expect(live.id).not.toBe(first!.id);

    expect(await control(em, "PATCH", `/projects/${P}/users/${live.id}`, { name: "Ada L." })).toBe(200);
    const drift = await e2e.stack.refresh({ color: "never" });
    expect(changesOf(drift.summary.resourceChanges)).toEqual({ update: 1 });
    expect(await userNames(e2e)).toEqual(["Ada L."]);
    // Put the name back at the emulator; the stack agrees again.
    expect(await control(em, "PATCH", `/projects/${P}/users/${live.id}`, { name: "Ada" })).toBe(200);
    // The engine shows refresh changes against the program's inputs: back to "Ada" is no change.
    const back = await e2e.stack.refresh({ color: "never" });
    expect(changesOf(back.summary.resourceChanges)).toEqual({});
    expect(await userNames(e2e)).toEqual(["Ada"]);

    // A user made outside the stack, looked up by address.
    expect(await outOfBand(em, "POST", "/projects/auth/user", { project_id: P, auth_provider: "stack", email: "grace@example.com", name: "Grace" })).toBe(201);
    await e2e.stack.setConfig("lookupUser", { value: "grace@example.com" });
    const lookup = await e2e.stack.up({ color: "never" });
    const grace = (await usersSyncRows(em, P)).find((r) => r.email === "grace@example.com")!;
    expect(lookup.outputs.foundUser?.value).toEqual({ id: grace.id, email: "grace@example.com", name: "Grace" });

    // `adopt` of the AuthIntegration, a create-time switch: added, it previews no change, and up
    // sends nothing (one-update.test.ts has the settings that do update in place).
    await e2e.stack.setConfig("adoptIntegration", { value: "true" });
    expect(changesOf((await e2e.stack.preview({ color: "never" })).changeSummary)).toEqual({});
    await clearRequestLog(em);
    expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({});
    expect((await requestLog(em)).filter((r) => r.method !== "GET" && r.path.startsWith("/api/v2"))).toEqual([]);

    await expectNoChanges(e2e.stack, 3); // the looked-up user is read, not counted
    // The database password (in every connection string) is never in the state.
    expect(JSON.stringify(await e2e.stack.exportStack())).not.toMatch(/npg_[0-9a-f]{24}|postgresql:\/\//);
    await e2e.stack.removeConfig("lookupUser");
  });
});

emulatorOnly("dashboard changes and an unreachable database, switched by the emulator's control routes")("database unreachable", () => {
  const P = "p-users-nodb";
  const s = useEmulatorStack(
    programOnProject("all-kinds", P, {
      secrets: { clientSecret: "gh-secret-nodb-1a2b", smtpPassword: "smtp-pw-nodb-3c4d" },
      emulator: { rateLimit: "off", databaseReachable: false },
    }),
  );

  it("the same stack converges without read-back and says why once", { timeout: 300_000 }, async () => {
    const up = await s.e2e.stack.up({ color: "never" });
    expect(up.summary.result).toBe("succeeded");
    expect(up.summary.resourceChanges).toEqual({ create: 8 });
    // Every create first looks for its object (ownership): the user's look-up meets the unreachable
    // database, so the run says why once.
    const upOut = up.stdout + up.stderr;
    expect(occurrences(diagnostics(upOut), NOTICE), upOut).toBe(1);
    expect((await snapshot(s.em, P)).users).toEqual([{ email: "ada@example.com", name: "Ada" }]);

    const refresh = await s.e2e.stack.refresh({ color: "never", expectNoChanges: true });
    expect(changesOf(refresh.summary.resourceChanges)).toEqual({});
    const out = refresh.stdout + refresh.stderr;
    expect(occurrences(diagnostics(out), NOTICE), out).toBe(1);
    expect(out).toContain("the database refused the connection");
    expect(out).toContain("neon-auth:readUsersFromDatabase false");
    expect(out).not.toMatch(/npg_[0-9a-f]+/);
    const preview = await s.e2e.stack.preview({ color: "never", expectNoChanges: true });
    expect(preview.changeSummary).toEqual({ same: 8 });
  });
});

emulatorOnly("an unreachable database, switched by the emulator's options")("database unreachable, on the plugin", () => {
  it("a YAML program's user converges without read-back, and its output says why once", { timeout: 300_000 }, async () => {
    const P = "p-users-nodb-yaml";
    const program = path.join(__dirname, "programs", "users-sync-yaml");
    const stack = (em: EmulatorHandle, branch: string) => pluginStack({ program, config: { ...neonConfig(em), ...projectConfig(P, branch) } }, "yaml");
    await onFreshEmulator(P, stack, async ({ em, e2e }) => {
      const up = await e2e.stack.up({ color: "never" });
      expect(up.summary.resourceChanges).toEqual({ create: 3 });
      const upOut = up.stdout + up.stderr;
      expect(occurrences(diagnostics(upOut), NOTICE), upOut).toBe(1);
      expect(diagnostics(upOut)).toContain("warning: neon-auth: AuthUser cannot read users back from neon_auth.users_sync");
      expect((await snapshot(em, P)).users).toEqual([{ email: "ada@example.com", name: "Ada" }]);
      const refresh = await e2e.stack.refresh({ color: "never", expectNoChanges: true });
      const out = refresh.stdout + refresh.stderr;
      expect(occurrences(diagnostics(out), NOTICE), out).toBe(1);
      expect(out).toContain("the database refused the connection");
      const preview = await e2e.stack.preview({ color: "never", expectNoChanges: true });
      expect(preview.changeSummary).toEqual({ same: 3 });
    }, { rateLimit: "off", databaseReachable: false });
  });
});
