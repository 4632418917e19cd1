/**
 * Ownership is decided by what existed before the request. Objects made outside the stack
 * (through the emulator's API, as in the console), then the stack's create of each meets a
 * one-shot `reset` and a one-shot `lost`, both armed: every `up` fails naming the object
 * and `adopt`, the stack sends none of those creates (the object was read first), the outside
 * objects are unchanged at the API (credentials included), and `destroy` leaves them. Both
 * generations; every kind with a natural key (integration, user, OAuth provider, domain, email
 * server). SDK key sets and transfer URLs have no natural key: each create makes a new one, so
 * nothing of another owner can be taken over (lost-responses.test.ts).
 */
import * as path from "node:path";
import { expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import type { OneShotFault } from "../../src/emulator/core/faults";
import { changesOf, expectNoChanges, stackFor } from "./harness";
import { clearRequestLog, emulator, neonConfig, outOfBand, projectConfig, requestLog, usersSyncRows } from "./neon";
import { emulatorOnly } from "./remote";

const P = "p-own";
/** What follows every refused object's name: why, and the way to adopt on purpose. */
const REFUSED =
  " already exists and was not made by this stack under this name. If this stack declares it under another name (a resource renamed, or moved into or out of a component), " +
  'give this resource `aliases` naming the old one: it keeps the object, with no request (README, "Renaming resources"). Otherwise it was made outside this stack ' +
  "(in the console, by another stack, or by a run of this stack that was killed) and is not taken over silently: set `adopt: true` on this ";
const B = `br-main-${P}`;

/** The failing `up` of the stack, as its error text. */
async function failing(up: () => Promise<unknown>): Promise<string> {
  return up().then(
    () => {
      throw new Error("up succeeded");
    },
    (e: Error) => e.message,
  );
}

/**
 * A one-shot `reset` and a one-shot `lost` on each route: whichever a create met first would act,
 * so one `up` with both armed shows what two ups with one each would: the queue untouched, as no
 * create is sent.
 */
function armed(routes: string[]): OneShotFault[] {
  return (["reset", "lost"] as const).flatMap((kind) =>
    routes.map((r) => {
      const [method, p] = r.split(" ") as [string, string];
      return { kind, method, path: p };
    }),
  );
}

/** Every request of the log on these routes (`METHOD template`). */
async function sent(em: EmulatorHandle, routes: string[]): Promise<string[]> {
  return (await requestLog(em)).map((e: any) => `${e.method} ${e.route}`).filter((r) => routes.includes(r));
}

emulatorOnly("faults injected by the emulator")("ownership: what existed before the first attempt is never taken over", () => {
  it("project level: integration, user, OAuth provider, domain and email server", { timeout: 600_000 }, async () => {
    const em = await emulator({ seedProjects: [`${P}:${B}`], rateLimit: "off" });
    const e2e = await stackFor({
      program: path.join(__dirname, "programs", "all-kinds"),
      config: {
        ...neonConfig(em),
        ...projectConfig(P, B, { clientSecret: "gh-secret-stack-4c1d", smtpPassword: "smtp-pw-stack-9e2a" }),
        without: { value: JSON.stringify(["keys", "transfer"]) },
      },
    });
    try {
      // Made outside the stack, with credentials of their own.
      expect(await outOfBand(em, "POST", "/projects/auth/create", { auth_provider: "stack", project_id: P, branch_id: B })).toBe(201);
      expect(await outOfBand(em, "POST", "/projects/auth/user", { project_id: P, auth_provider: "stack", email: "ada@example.com", name: "Ada (console)" })).toBe(201);
      expect(await outOfBand(em, "POST", `/projects/${P}/auth/oauth_providers`, { id: "github", client_id: "console-id", client_secret: "console-secret-7b3f" })).toBe(200);
      expect(await outOfBand(em, "POST", `/projects/${P}/auth/domains`, { domain: "https://app.example.com", auth_provider: "stack" })).toBe(201);
      const consoleSmtp = { type: "standard", host: "smtp.console.example", port: 2525, username: "console", password: "console-smtp-pw-1a9d", sender_email: "ops@example.com", sender_name: "Console" };
      expect(await outOfBand(em, "PATCH", `/projects/${P}/auth/email_server`, consoleSmtp)).toBe(200);
      const outside = async () => ({
        integrations: ((await em.state({ secrets: true })) as any).projects.find((p: any) => p.id === P).integrations,
        users: await usersSyncRows(em, P),
      });
      const before = await outside();
      expect(before.integrations[0].oauth_providers).toEqual([{ id: "github", type: "standard", client_id: "console-id", client_secret: "console-secret-7b3f" }]);
      expect(before.integrations[0].email_server).toEqual(consoleSmtp);
      expect(before.users.map((u) => [u.email, u.name])).toEqual([["ada@example.com", "Ada (console)"]]);

      // 1. The integration, declared by the stack.
      const integrationCreate = ["POST /projects/auth/create"];
      // One up with a reset and a lost armed on each create: neither is used, as no create is sent.
      await clearRequestLog(em);
      em.injectFaults(...armed(integrationCreate));
      const refusal = await failing(() => e2e.stack.up({ color: "never" }));
      expect(refusal).toContain(
        `AuthIntegration: project ${P}'s "stack" integration already exists and was not made by this stack under this name. If this stack declares it under another name (a resource renamed, or moved into or out of a component), give this resource \`aliases\` naming the old one: it keeps the object, with no request (README, "Renaming resources"). Otherwise it was made outside this stack (in the console, by another stack, or by a run of this stack that was killed) and is not taken over silently: set \`adopt: true\` on this resource to take it over on purpose`,
      );
      expect(em.faults.queue).toHaveLength(2); // read first: the create was never sent
      expect(await sent(em, integrationCreate)).toEqual([]);
      em.faults.reset();
      expect(await outside()).toEqual(before);

      // 2. The children, in the integration looked up (not managed).
      await e2e.stack.setConfig("integrationId", { value: `${P}/stack` });
      const childCreates = [
        "POST /projects/auth/user",
        "POST /projects/{project_id}/auth/oauth_providers",
        "POST /projects/{project_id}/auth/domains",
        "PATCH /projects/{project_id}/auth/email_server",
      ];
      // One up with a reset and a lost armed on each create: neither is used, as no create is sent.
      await clearRequestLog(em);
      em.injectFaults(...armed(childCreates));
      const err = await failing(() => e2e.stack.up({ color: "never", continueOnError: true }));
      for (const object of [
        `AuthUser ada@example.com of project ${P}${REFUSED}`,
        `OAuthProvider github of project ${P}${REFUSED}`,
        `RedirectDomain https://app.example.com of project ${P}${REFUSED}`,
        `EmailServer: the email server of project ${P} (SMTP smtp.console.example:2525)${REFUSED}`,
      ]) {
        expect(err).toContain(object);
      }
      expect(em.faults.queue).toHaveLength(8);
      expect(await sent(em, childCreates)).toEqual([]);
      em.faults.reset();
      expect(await outside()).toEqual(before);
      expect(JSON.stringify(((await e2e.stack.exportStack()).deployment.resources ?? []).map((r: { urn: string }) => r.urn))).not.toMatch(/OAuthProvider|RedirectDomain|EmailServer|AuthUser::/);

      // Destroy forgets the looked-up integration and deletes nothing at Neon.
      await clearRequestLog(em);
      const destroy = await e2e.stack.destroy({ color: "never" });
      expect(destroy.summary.resourceChanges).toEqual({ delete: 1, discard: 1 }); // the stack itself; the lookup
      expect((await requestLog(em)).filter((e: any) => e.method !== "GET")).toEqual([]);
      expect(await outside()).toEqual(before);
    } finally {
      await e2e.cleanup();
      await em.close();
    }
  });

  it("branch: NeonAuth, then its user, OAuth provider, trusted domain and email provider", { timeout: 600_000 }, async () => {
    const em = await emulator({ seedProjects: [`${P}:${B}`], rateLimit: "off" });
    const auth = `/projects/${P}/branches/${B}/auth`;
    const args = (o: { children: boolean }) => ({
      projectId: P,
      branchId: B,
      settings: { allowLocalhost: false },
      noEmail: !o.children,
      domains: o.children ? ["https://app.example.com"] : [],
      oauth: o.children ? [{ name: "github", providerId: "github", clientId: "stack-id", clientSecret: "stack-secret-5e8a" }] : [],
      users: o.children ? [{ name: "ada", email: "ada@example.com", displayName: "Ada", roles: ["admin"] }] : [],
      ...(o.children ? { smtp: { host: "smtp.stack.example", port: 587, username: "stack", password: "stack-smtp-pw-2b6c", senderEmail: "auth@example.com", senderName: "Stack" } } : {}),
    });
    const e2e = await stackFor({
      program: path.join(__dirname, "programs", "neon-auth-children"),
      config: { ...neonConfig(em), args: { value: JSON.stringify(args({ children: false })), secret: true } },
    });
    // Users compared without the emulator's millisecond clocks: once the branch's database runs,
    // a row keeps whole seconds (created_at, which is compared, says the same).
    const dump = async (): Promise<any> => {
      const d = (await (await fetch(`${em.controlUrl}/projects/${P}/branches/${B}/auth?secrets=true`)).json()) as any;
      for (const u of d.neon_auth?.users ?? []) for (const k of Object.keys(u)) if (k.endsWith("_ms")) delete u[k];
      return d;
    };
    try {
      // 1. Neon Auth enabled outside the stack.
      expect(await outOfBand(em, "POST", auth, { auth_provider: "better_auth" })).toBe(201);
      const enabled = await dump();
      const enable = [`POST /projects/{project_id}/branches/{branch_id}/auth`];
      // One up with a reset and a lost armed on each create: neither is used, as no create is sent.
      await clearRequestLog(em);
      em.injectFaults(...armed(enable));
      const refusal = await failing(() => e2e.stack.up({ color: "never" }));
      expect(refusal).toContain(
        `NeonAuth: Neon Auth on branch ${B} of project ${P} already exists and was not made by this stack under this name. If this stack declares it under another name (a resource renamed, or moved into or out of a component), give this resource \`aliases\` naming the old one: it keeps the object, with no request (README, "Renaming resources"). Otherwise it was made outside this stack (in the console, by another stack, or by a run of this stack that was killed) and is not taken over silently: set \`adopt: true\` on this NeonAuth to take it over on purpose`,
      );
      expect(refusal).toContain(`or, if a killed run of this stack enabled it, import it as the recovery from interrupted runs in docs/troubleshooting.md says (id ${P}/${B}).`);
      expect(em.faults.queue).toHaveLength(2);
      expect(await sent(em, enable)).toEqual([]);
      em.faults.reset();
      expect(await dump()).toEqual(enabled);
      await e2e.stack.destroy({ color: "never" });
      expect(await dump()).toEqual(enabled);

      // 2. The stack's own NeonAuth; then its children are made outside the stack, then declared.
      expect(await outOfBand(em, "DELETE", auth, {})).toBe(200);
      // The NeonAuth, and the stack itself (destroyed above).
      expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ create: 2 });
      expect(await outOfBand(em, "POST", `${auth}/users`, { email: "ada@example.com", name: "Ada (console)" })).toBe(201);
      expect(await outOfBand(em, "POST", `${auth}/oauth_providers`, { id: "github", client_id: "console-id", client_secret: "console-secret-3d0e" })).toBe(200);
      expect(await outOfBand(em, "POST", `${auth}/domains`, { domain: "https://app.example.com", auth_provider: "better_auth" })).toBe(201);
      const consoleSmtp = { type: "standard", host: "smtp.console.example", port: 2525, username: "console", password: "console-smtp-pw-8f4b", sender_email: "ops@example.com", sender_name: "Console" };
      expect(await outOfBand(em, "PATCH", `${auth}/email_provider`, consoleSmtp)).toBe(200);
      const before = await dump();
      expect(before.auth.oauth_providers).toEqual([
        { id: "google", type: "shared" }, // Neon's default on a new integration
        { id: "github", type: "standard", client_id: "console-id", client_secret: "console-secret-3d0e" },
      ]);
      expect(before.auth.email_provider).toMatchObject({ host: "smtp.console.example", password: "console-smtp-pw-8f4b" });

      await e2e.stack.setConfig("args", { value: JSON.stringify(args({ children: true })), secret: true });
      const childCreates = [
        "POST /projects/{project_id}/branches/{branch_id}/auth/users",
        "POST /projects/{project_id}/branches/{branch_id}/auth/oauth_providers",
        "POST /projects/{project_id}/branches/{branch_id}/auth/domains",
        "PATCH /projects/{project_id}/branches/{branch_id}/auth/email_provider",
      ];
      const where = `branch ${B} of project ${P}`;
      // One up with a reset and a lost armed on each create: neither is used, as no create is sent.
      await clearRequestLog(em);
      em.injectFaults(...armed(childCreates));
      const err = await failing(() => e2e.stack.up({ color: "never", continueOnError: true }));
      for (const object of [
        `AuthUser ada@example.com of ${where}${REFUSED}`,
        `OAuthProvider github of ${where}${REFUSED}`,
        `RedirectDomain https://app.example.com of ${where}${REFUSED}`,
        `EmailServer: the email server of ${where} (SMTP smtp.console.example:2525)${REFUSED}`,
      ]) {
        expect(err).toContain(object);
      }
      expect(em.faults.queue).toHaveLength(8);
      expect(await sent(em, childCreates)).toEqual([]);
      em.faults.reset();
      expect(await dump()).toEqual(before);

      // Removing the children from the program deletes nothing: they were never the stack's.
      await e2e.stack.setConfig("args", { value: JSON.stringify(args({ children: false })), secret: true });
      await clearRequestLog(em);
      expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({});
      expect((await requestLog(em)).filter((e: any) => e.method !== "GET")).toEqual([]);
      expect(await dump()).toEqual(before);
      await expectNoChanges(e2e.stack);
    } finally {
      await e2e.cleanup();
      await em.close();
    }
  });
});
