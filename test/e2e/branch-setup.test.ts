/**
 * examples/branch-setup, the main job's program, at the size the issue asks of today's
 * generation: every setting area, Google and Microsoft sign-in, 20 trusted domains, 3 users with
 * roles and an SMTP server checked by a test mail; then no changes, and destroy keeps no child.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, stackFor, useEmulatorStack } from "./harness";
import { branchSnapshot, branchUserRows, clearRequestLog, neonApi, neonConfig, projectConfig, requestLog } from "./neon";
import { atEmulator } from "./remote";

const PROGRAM = path.resolve(__dirname, "../../examples/branch-setup");
const P = "p-branch-setup";
const B = `br-main-${P}`;
const DOMAINS = Array.from({ length: 20 }, (_, i) => `https://app-${String(i + 1).padStart(2, "0")}.example.com`);
const USERS = [
  { email: "ada@example.com", name: "Ada Lovelace", roles: ["admin"] },
  { email: "grace@example.com", name: "Grace Hopper", roles: ["admin", "user"] },
  { email: "linus@example.com", name: "Linus", roles: ["user"] },
];

describe("examples/branch-setup: Neon Auth on a branch with every child", () => {
  let em: EmulatorHandle;
  useEmulatorStack({ emulator: { seedProjects: [`${P}:${B}`] }, ready: (s) => ({ em } = s) });

  it("up of 29 resources, no changes, destroy leaves no child and sends no delete_data", { timeout: 600_000 }, async () => {
    const s = await stackFor({
      program: PROGRAM,
      config: {
        ...neonConfig(em),
        ...projectConfig(P, B, { microsoftClientSecret: "ms-secret-branch-setup-61d2", smtpPassword: "smtp-pw-branch-setup-0b7e" }),
        domains: { value: JSON.stringify(DOMAINS) },
        users: { value: JSON.stringify(USERS) },
      },
    });
    try {
      const up = await s.stack.up({ color: "never" });
      // The stack, NeonAuth, 2 OAuth providers, 20 domains, the email server, 3 users, the Data API.
      expect(changesOf(up.summary.resourceChanges)).toEqual({ create: 29 });
      const live = await branchSnapshot(em, P, B);
      expect(live.auth).toEqual({ name: "Acme", auth_provider: "better_auth" });
      expect(live.providers).toEqual([
        { id: "google", type: "shared" },
        { id: "microsoft", type: "standard" },
      ]);
      expect(live.domains).toEqual(DOMAINS);
      expect(live.email).toMatchObject({ type: "standard", host: "smtp.example.com", port: 587, password: "" });
      await atEmulator(async () => {
        const control = (await (await fetch(`${em.controlUrl}/projects/${P}/branches/${B}/auth?secrets=true`)).json()) as any;
        expect(control.neon_auth.users.map((u: any) => ({ email: u.email, name: u.name, roles: u.roles })).sort((a: any, b: any) => a.email.localeCompare(b.email))).toEqual(USERS);
        expect(control.auth.email_provider.password).toBe("smtp-pw-branch-setup-0b7e");
      });
      // The Data API bound to the branch's Neon Auth, reading each request's role at `.role`.
      const dataApi = await neonApi(em, "GET", `/projects/${P}/branches/${B}/data-api/neondb`);
      expect(dataApi.json.settings).toMatchObject({ db_schemas: ["public"], jwt_role_claim_key: ".role", db_max_rows: 500 });
      expect(up.outputs.DATA_API_URL!.value).toBe(dataApi.json.url);
      const state = s.cli("stack", "export");
      for (const secret of ["ms-secret-branch-setup-61d2", "smtp-pw-branch-setup-0b7e", "hooks.example.com/neon-auth"]) expect(state).not.toContain(secret);
      await expectNoChanges(s.stack);

      await clearRequestLog(em);
      const destroy = await s.stack.destroy({ color: "never" });
      expect(changesOf(destroy.summary.resourceChanges)).toEqual({ delete: 29 });
      expect((await neonApi(em, "GET", `/projects/${P}/branches/${B}/data-api/neondb`)).status).toBe(404);
      expect(await branchSnapshot(em, P, B)).toEqual({ auth: undefined, providers: [], domains: [], email: undefined });
      // The declared users were deleted one by one; the schema stayed (no delete_data).
      expect(await branchUserRows(em, P, B)).toEqual([]);
      const disable = (await requestLog(em)).filter((r) => r.method === "DELETE" && r.path === `/api/v2/projects/${P}/branches/${B}/auth`);
      expect(disable.length).toBe(1);
    } finally {
      await s.cleanup();
    }
  });
});
