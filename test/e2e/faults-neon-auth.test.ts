/**
 * A NeonAuth stack with every kind of child (settings with webhooks, providers with a tenant, 20
 * domains, SMTP, users with roles) under random faults (503s, resets before acting, lost answers
 * after acting, 423 locks, latency) at the service's rate limits: `up` converges to exactly the
 * declared state (one row per user in neon_auth."user"), a preview and a refresh show no changes,
 * and `destroy` under the same faults leaves no auth on the branch.
 */
import * as path from "node:path";
import { expect, it } from "vitest";
import { parseFaultSpec, type EmulatorHandle } from "../../src/emulator";
import { expectNoChanges, failureCollector, useEmulatorStack, type E2eStack } from "./harness";
import { CHILDREN_DOMAINS, CHILDREN_SETTINGS, CHILDREN_USERS, branchUserRows, faultsInjected, neonConfig } from "./neon";
import { emulatorOnly } from "./remote";

const P = "p-faults-na";
const B = `br-main-${P}`;
const FAULTS = "error=0.1,reset=0.05,lost=0.05,lock=0.05,latency=0-300";
const SMTP = { host: "smtp.example.com", port: 587, username: "mailer", password: "smtp-pw-faults-na-4d2e", senderEmail: "auth@example.com", senderName: "Acme" };
const ARGS = {
  projectId: P,
  branchId: B,
  settings: {
    ...CHILDREN_SETTINGS,
    webhooks: { enabled: true, webhookUrl: "https://hooks.example.com/faults-na-61c0", enabledEvents: ["user.created"] },
  },
  domains: CHILDREN_DOMAINS,
  oauth: [
    { name: "google", providerId: "google" },
    { name: "ms", providerId: "microsoft", clientId: "ms-client", clientSecret: "ms-secret-faults-na-9b1f", microsoftTenantId: "tenant-a" },
    { name: "github", providerId: "github", clientId: "gh-client", clientSecret: "gh-secret-faults-na-2a7c" },
  ],
  users: CHILDREN_USERS,
  smtp: SMTP,
};
// stack + NeonAuth + domains + providers + users + email server
const TOTAL = 1 + 1 + CHILDREN_DOMAINS.length + ARGS.oauth.length + ARGS.users.length + 1;

emulatorOnly("random faults injected by the emulator")("a NeonAuth stack with every kind of child under random faults", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;

  useEmulatorStack({
    emulator: { seedProjects: [`${P}:${B}`], rateLimit: "spec", faults: FAULTS },
    stack: (em) => ({
      program: path.join(__dirname, "programs", "neon-auth-children"),
      config: { ...neonConfig(em), args: { value: JSON.stringify(ARGS), secret: true } },
    }),
    ready: (s) => ({ em, e2e } = s),
    beforeTeardown: ({ em }) => em.faults.set(parseFaultSpec("")),
  });

  /** What the branch holds, secrets included: read without faults (the stack's operations keep them). */
  async function branch(): Promise<any> {
    em.faults.set(parseFaultSpec(""));
    try {
      const state = (await (await fetch(`${em.controlUrl}/projects/${P}/branches/${B}/auth?secrets=true`)).json()) as any;
      const rows = state.auth === null ? [] : await branchUserRows(em, P, B);
      return { state, rows };
    } finally {
      em.faults.set(parseFaultSpec(FAULTS));
    }
  }

  it("up converges to exactly the declared state", { timeout: 600_000 }, async () => {
    const { failures, onEvent } = failureCollector();
    await e2e.stack.up({ color: "never", continueOnError: true, onEvent }).catch(() => undefined);
    expect(Object.fromEntries(failures)).toEqual({});

    const { state, rows } = await branch();
    const a = state.auth;
    expect({ name: a.name, allow_localhost: a.allow_localhost, magic_link: a.magic_link, webhooks: a.webhooks }).toEqual({
      name: "Acme",
      allow_localhost: false,
      magic_link: expect.objectContaining({ enabled: true, expires_in: 15 }),
      webhooks: expect.objectContaining({ enabled: true, webhook_url: "https://hooks.example.com/faults-na-61c0", enabled_events: ["user.created"] }),
    });
    expect([...a.domains].sort()).toEqual([...CHILDREN_DOMAINS].sort());
    expect([...a.oauth_providers].sort((x: any, y: any) => x.id.localeCompare(y.id))).toEqual([
      { id: "github", type: "standard", client_id: "gh-client", client_secret: "gh-secret-faults-na-2a7c" },
      { id: "google", type: "shared" },
      { id: "microsoft", type: "standard", client_id: "ms-client", client_secret: "ms-secret-faults-na-9b1f", microsoft_tenant_id: "tenant-a" },
    ]);
    expect(a.email_provider).toEqual({ type: "standard", host: SMTP.host, port: SMTP.port, username: SMTP.username, password: SMTP.password, sender_email: SMTP.senderEmail, sender_name: SMTP.senderName });
    // One row per declared user, whatever answers were lost.
    expect(rows.map((r: any) => [r.email, r.name, r.role])).toEqual([
      ["alice@example.com", "Alice", "admin"],
      ["bob@example.com", "Bob", "user"],
      ["carol@example.com", "Carol", "admin,user"],
    ]);
    expect(faultsInjected(em)).toBeGreaterThan(0);
    await expectNoChanges(e2e.stack, TOTAL);
  });

  it("destroy under the same faults leaves no auth on the branch", { timeout: 600_000 }, async () => {
    const destroy = await e2e.stack.destroy({ color: "never" });
    expect(destroy.summary.resourceChanges).toEqual({ delete: TOTAL });
    const { state } = await branch();
    expect(state.auth).toBeNull();
  });
});
