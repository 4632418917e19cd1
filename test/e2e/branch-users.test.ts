/**
 * AuthUser on a NeonAuth reads back from `neon_auth."user"` of the branch's database (the
 * emulator's real Postgres, changed here by SQL through the URI `connection_uri` gives): a create
 * whose answer is lost converges with one row; a role changed by SQL shows as drift on refresh and
 * `up` restores it; a rename likewise (with `recreateOnChange`, as the API cannot rename); a ban
 * shows in the `banned` output.
 */
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, stackFor, type E2eStack } from "./harness";
import { branchSql, branchUserRows, clearRequestLog, emulator, neonConfig, requestLog } from "./neon";
import { atEmulator, injectAtEmulator } from "./remote";

const PROGRAM = path.join(__dirname, "programs", "neon-auth-children");
const P = "p-branch-users";
const B = `br-main-${P}`;
const USERS_PATH = `/api/v2/projects/${P}/branches/${B}/auth/users`;
const ARGS = {
  projectId: P,
  branchId: B,
  domains: [],
  oauth: [],
  users: [{ name: "ada", email: "ada@example.com", displayName: "Ada", roles: ["admin", "billing"], recreateOnChange: true }],
};

async function userOutputs(e2e: E2eStack): Promise<Record<string, unknown>> {
  const deployment = (await e2e.stack.exportStack()).deployment as { resources: { type: string; outputs?: Record<string, unknown> }[] };
  const users = deployment.resources.filter((r) => r.type.endsWith("AuthUser"));
  expect(users).toHaveLength(1);
  const { name, roles, banned, userId } = users[0]!.outputs ?? {};
  return { name, roles, banned, userId };
}

async function userWrites(em: EmulatorHandle): Promise<string[]> {
  return (await requestLog(em)).filter((r) => r.method !== "GET" && r.path.startsWith(USERS_PATH)).map((r) => `${r.method} ${r.status}`);
}

describe('AuthUser read back from neon_auth."user"', () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;

  beforeAll(async () => {
    em = await emulator({ seedProjects: [`${P}:${B}`], rateLimit: "off" });
    e2e = await stackFor({ program: PROGRAM, config: { ...neonConfig(em), args: { value: JSON.stringify(ARGS), secret: true } } });
  });

  afterAll(async () => {
    await e2e?.cleanup();
    await em?.close();
  });

  it("a lost create converges with one row; role and name drift show on refresh and up restores them; a ban shows", { timeout: 600_000 }, async () => {
    injectAtEmulator(em, { kind: "lost", method: "POST", path: `/projects/${P}/branches/${B}/auth/users` });
    const up = await e2e.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ create: 4 }); // the stack, the NeonAuth, the user, the email server
    await atEmulator(() => expect(em.faults.injected.lost).toBe(1));
    expect(await userWrites(em)).toEqual(["POST 201", "PUT 200"]); // found by its address, never sent twice
    const [ada] = await branchUserRows(em, P, B);
    expect(await branchUserRows(em, P, B)).toEqual([{ id: ada!.id, email: "ada@example.com", name: "Ada", role: "admin,billing", banned: null }]);
    expect(await userOutputs(e2e)).toEqual({ name: "Ada", roles: ["admin", "billing"], banned: false, userId: ada!.id });

    // A role changed in the table: refresh shows it, up puts the program's roles back in place.
    await branchSql(em, P, B, `UPDATE neon_auth."user" SET role = 'user' WHERE id = $1`, [ada!.id]);
    const roleDrift = await e2e.stack.refresh({ color: "never" });
    expect(changesOf(roleDrift.summary.resourceChanges)).toEqual({ update: 1 });
    expect((await userOutputs(e2e)).roles).toEqual(["user"]);
    await clearRequestLog(em);
    const roleBack = await e2e.stack.up({ color: "never" });
    expect(changesOf(roleBack.summary.resourceChanges)).toEqual({ update: 1 });
    expect(await userWrites(em)).toEqual(["PUT 200"]);
    expect((await branchUserRows(em, P, B)).map((r) => [r.id, r.role])).toEqual([[ada!.id, "admin,billing"]]);

    // A rename in the table: refresh shows it; the API cannot rename, so up recreates the user
    // (recreateOnChange) under the program's name: still one row for the address.
    await branchSql(em, P, B, `UPDATE neon_auth."user" SET name = 'Ada L.' WHERE id = $1`, [ada!.id]);
    const nameDrift = await e2e.stack.refresh({ color: "never" });
    expect(changesOf(nameDrift.summary.resourceChanges)).toEqual({ update: 1 });
    expect((await userOutputs(e2e)).name).toBe("Ada L.");
    await clearRequestLog(em);
    const nameBack = await e2e.stack.up({ color: "never" });
    expect(changesOf(nameBack.summary.resourceChanges)).toEqual({ replace: 1 });
    expect(await userWrites(em)).toEqual(["DELETE 204", "POST 201", "PUT 200"]);
    const rows = await branchUserRows(em, P, B);
    expect(rows.map((r) => [r.email, r.name, r.role])).toEqual([["ada@example.com", "Ada", "admin,billing"]]);
    expect(rows[0]!.id).not.toBe(ada!.id);

    // A ban made outside the stack shows in the output; nothing the program declares changed.
    await branchSql(em, P, B, `UPDATE neon_auth."user" SET banned = true, "banReason" = 'spam'`);
    const ban = await e2e.stack.refresh({ color: "never" });
    expect(changesOf(ban.summary.resourceChanges)).toEqual({});
    expect(await userOutputs(e2e)).toEqual({ name: "Ada", roles: ["admin", "billing"], banned: true, userId: rows[0]!.id });

    await expectNoChanges(e2e.stack);
  });
});
