/**
 * Half-made objects are ordinary state, on both faces: a create that fails after the object exists
 * at Neon (NeonAuth with a setting refused after enabling; a user whose roles were refused; an OAuth
 * client whose `disabled` was refused; an SMTP server saved whose test mail failed; a project-level
 * integration whose read-back was refused) is recorded, so
 * that right after the failure `destroy` removes it at Neon, and, separately, `refresh` then `up`
 * converge with no changes after. The classes run a TypeScript program (neon-auth-children), the
 * plugin a YAML program (half-made-yaml) through Pulumi YAML's host. One emulator serves the file,
 * a project to each test; a branch's test destroys each half-made state first, then makes it
 * again and converges it, on one stack.
 */
import * as path from "node:path";
import type { ConfigMap } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle, OneShotFault } from "../../src/emulator";
import { changesOf, expectNoChanges, pluginStack, stackFor, useEmulatorStack, type E2eStack } from "./harness";
import { API_KEY, branchUserRows, neonConfig, projectConfig } from "./neon";
import { emulatorOnly } from "./remote";

const AUTH = "/projects/{project_id}/branches/{branch_id}/auth";
const INTEGRATIONS = "/projects/{project_id}/auth/integrations";
const SMTP_PASSWORD = "smtp-pw-half-made-5c1e";
const DECLARED = {
  settings: {
    allowLocalhost: false,
    oauthServer: { enabled: true, loginPage: "https://app.example.com/login", consentPage: "https://app.example.com/consent" },
  },
  domains: [],
  oauth: [],
  users: [{ name: "ada", email: "ada@example.com", roles: ["admin"] }],
  oauthClients: [{ name: "cli", type: "confidential", redirectUris: ["https://app.example.com/callback"], disabled: true }],
  smtp: { host: "smtp.example.com", port: 587, username: "mailer", password: SMTP_PASSWORD, senderEmail: "auth@example.com", senderName: "Acme", testRecipient: "ops@example.com" },
};

/** The failing write of each kind that can be half-made. */
const REFUSED = {
  neonAuth: { kind: "error", status: 400, method: "PATCH", path: `${AUTH}/allow_localhost` },
  userRoles: { kind: "error", status: 400, method: "PUT", path: `${AUTH}/users/{auth_user_id}/role` },
  clientDisabled: { kind: "error", status: 400, method: "PATCH", path: `${AUTH}/oauth-provider/clients/{client_id}` },
} satisfies Record<string, OneShotFault>;

type Face = { name: string; stackOn(em: EmulatorHandle, project: string): Promise<E2eStack> };
/** A face's stack on a test's project (its stack named after it): a test program on the classes or a YAML program on the plugin. */
const face = (name: "classes" | "plugin", program: string, config: (em: EmulatorHandle, project: string) => ConfigMap): Face => ({
  name,
  stackOn: (em, project) => {
    const opts = { program: path.join(__dirname, "programs", program), stackName: project, config: config(em, project) };
    return name === "classes" ? stackFor(opts) : pluginStack(opts, "yaml");
  },
});
const FACES: Face[] = [
  face("classes", "neon-auth-children", (em, project) => ({ ...neonConfig(em), args: { value: JSON.stringify({ projectId: project, branchId: `br-main-${project}`, ...DECLARED }), secret: true } })),
  face("plugin", "half-made-yaml", (em, project) => ({ ...neonConfig(em), ...projectConfig(project, `br-main-${project}`, { smtpPassword: SMTP_PASSWORD }) })),
];

/** What the branch holds of the declared objects. */
async function atNeon(em: EmulatorHandle, project: string) {
  const b = `br-main-${project}`;
  const state = (await (await fetch(`${em.controlUrl}/projects/${project}/branches/${b}/auth?secrets=true`)).json()) as any;
  const a = state.auth;
  if (a === null) return { auth: false };
  return {
    auth: true,
    allowLocalhost: a.allow_localhost,
    users: (await branchUserRows(em, project, b)).map((u) => `${u.email}:${u.role}`),
    clients: (a.oauth_clients ?? []).map((c: any) => `${c.name}:${c.disabled ? "disabled" : "enabled"}`),
    email: a.email_provider.type === "standard" ? `${a.email_provider.host}:${a.email_provider.port}` : a.email_provider.type,
  };
}

const CONVERGED = { auth: true, allowLocalhost: false, users: ["ada@example.com:admin"], clients: ["cli:disabled"], email: "smtp.example.com:587" };

async function failedUp(e2e: E2eStack): Promise<string> {
  return e2e.stack.up({ color: "never" }).then(
    () => "succeeded",
    (e: Error) => e.message,
  );
}

/** The SMTP test mail fails (inside a 200, as Neon reports it) until switched back. */
async function smtpTestFails(em: EmulatorHandle, project: string, fails: boolean): Promise<void> {
  const res = await fetch(`${em.controlUrl}/projects/${project}/branches/br-main-${project}/email_test`, {
    method: fails ? "PUT" : "DELETE",
    headers: { "content-type": "application/json" },
    ...(fails ? { body: JSON.stringify({ success: false, error_message: "535 authentication failed" }) } : {}),
  });
  expect(res.status).toBe(200);
}

/** Every child's failing write at once: the user is made, the client registered, the SMTP server saved. */
async function childrenFail(em: EmulatorHandle, project: string): Promise<void> {
  em.injectFaults(REFUSED.userRoles, REFUSED.clientDisabled);
  await smtpTestFails(em, project, true);
}

emulatorOnly("faults the emulator injects")("half-made objects, one emulator for every face and kind", () => {
  let em: EmulatorHandle;
  // A project per face for a branch's objects and one per face for a project's integration.
  const projects = ["p-hm-classes", "p-hm-plugin", "p-hm-int-classes", "p-hm-int-plugin"];
  useEmulatorStack({ emulator: { seedProjects: projects.map((p) => `${p}:br-main-${p}`), rateLimit: "off" }, ready: (s) => (em = s.em) });

  /** The face's stack on `project`, given to `test` and torn down after it. */
  async function onStack(face: Face, project: string, test: (e2e: E2eStack) => Promise<void>): Promise<void> {
    const e2e = await face.stackOn(em, project);
    try {
      await test(e2e);
    } finally {
      await e2e.cleanup();
    }
  }

  describe.each(FACES)("half-made objects on the $name", (face) => {
    it("refused right after existing: destroy removes it at Neon; made again, refresh then up converge, with no changes after", { timeout: 600_000 }, async () => {
      const project = `p-hm-${face.name}`;
      await onStack(face, project, async (e2e) => {
        // NeonAuth: enabled, then allow_localhost refused; its children wait for it. Destroyed with the stack itself.
        em.injectFaults(REFUSED.neonAuth);
        expect(await failedUp(e2e)).toContain("but setting allowLocalhost failed");
        expect(changesOf((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges)).toEqual({ delete: 2 });
        expect(await atNeon(em, project)).toEqual({ auth: false });

        // Made again, with every child half-made: destroy takes them all.
        await childrenFail(em, project);
        expect(await failedUp(e2e)).toContain("AuthUser ada@example.com was created, but setting its roles failed");
        expect(await atNeon(em, project)).toEqual({ ...CONVERGED, users: ["ada@example.com:user"], clients: ["cli:enabled"] });
        expect(changesOf((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges)).toEqual({ delete: 5 });
        expect(await atNeon(em, project)).toEqual({ auth: false });
        expect(await branchUserRows(em, project, `br-main-${project}`)).toEqual([]);
        await smtpTestFails(em, project, false);

        // Made again, the NeonAuth half-made: refresh reads it (the engine counts the half-made record
        // it replaces as an update) and writes nothing.
        em.injectFaults(REFUSED.neonAuth);
        expect(await failedUp(e2e)).toContain("Neon Auth is enabled on branch br-main-" + project + ", but setting allowLocalhost failed");
        expect(await atNeon(em, project)).toEqual({ auth: true, allowLocalhost: true, users: [], clients: [], email: "shared" });
        expect(changesOf((await e2e.stack.refresh({ color: "never" })).summary.resourceChanges)).toEqual({ update: 1 });
        expect(await atNeon(em, project)).toEqual({ auth: true, allowLocalhost: true, users: [], clients: [], email: "shared" });

        // The NeonAuth is finished; each child is made and then refused its last write.
        await childrenFail(em, project);
        const failed = await failedUp(e2e);
        expect(failed).toContain("AuthUser ada@example.com was created, but setting its roles failed");
        expect(failed).toContain(`OAuthClient "cli" of branch br-main-${project}`);
        expect(failed).toContain("the SMTP settings were saved, but Neon's test mail to ops@example.com");
        expect(await atNeon(em, project)).toEqual({ ...CONVERGED, users: ["ada@example.com:user"], clients: ["cli:enabled"] });

        await smtpTestFails(em, project, false);
        expect(changesOf((await e2e.stack.refresh({ color: "never" })).summary.resourceChanges)).toEqual({ update: 3 });
        expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ update: 3 });
        expect(await atNeon(em, project)).toEqual(CONVERGED);
        await expectNoChanges(e2e.stack);
      });
    });
  });

  /** The project-level integration: created, then its read-back refused. */
  const PROJECT_FACES: Face[] = [
    face("classes", "all-kinds", (em, project) => ({ ...neonConfig(em), ...projectConfig(project, `br-main-${project}`), without: { value: JSON.stringify(["keys", "transfer", "user", "oauth", "domain", "email"]) } })),
    face("plugin", "half-made-project-yaml", (em, project) => ({ ...neonConfig(em), ...projectConfig(project, `br-main-${project}`) })),
  ];

  describe.each(PROJECT_FACES)("a half-made AuthIntegration on the $name", (face) => {
    it("read back refused after the create: refresh then up converge; destroy removes it", { timeout: 600_000 }, async () => {
      const project = `p-hm-int-${face.name}`;
      await onStack(face, project, async (e2e) => {
        const integrations = async () => (await (await fetch(`${em.url}/projects/${project}/auth/integrations`, { headers: { authorization: `Bearer ${API_KEY}` } })).json() as any).data.length;
        // The read before the create passes (a zero delay); the read after it is refused.
        const refuseReadBack = () => em.injectFaults({ kind: "latency", ms: 0, method: "GET", path: INTEGRATIONS }, { kind: "error", status: 400, method: "GET", path: INTEGRATIONS });
        refuseReadBack();
        expect(await failedUp(e2e)).toContain(`AuthIntegration: project ${project}'s "stack" integration exists, but reading it back failed`);
        expect(await integrations()).toBe(1);
        expect(changesOf((await e2e.stack.refresh({ color: "never" })).summary.resourceChanges)).toEqual({});
        expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({});
        await expectNoChanges(e2e.stack);
        expect(changesOf((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges)).toEqual({ delete: 2 });
        expect(await integrations()).toBe(0);

        // And destroyed straight after the failure.
        refuseReadBack();
        expect(await failedUp(e2e)).toContain("exists, but reading it back failed");
        expect(changesOf((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges)).toEqual({ delete: 2 });
        expect(await integrations()).toBe(0);
      });
    });
  });
});
