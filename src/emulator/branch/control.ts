/**
 * Control routes of the branch-scoped generation (loopback only, no key, like the others):
 * a look at one branch's integration and its `neon_auth` users, the switch that makes the
 * email provider test report an SMTP failure, and the check of an OAuth client's secret.
 */
import { z } from "zod";
import { branchId as branchIdRule, projectId as projectIdRule } from "../../schemas/common";
import type { AuthBranchRec } from "./kit";
import { REDACTED } from "../../schemas/redact";
import type { ControlRoute } from "../core/context";
import { HttpError, parseParam, parseWith } from "../core/http";
import { refreshSnapshot } from "./neonAuthTables";
import { secretIsValid } from "./oauthClients";
import { iso, type Store } from "../core/store";

const secretCheck = z.strictObject({ client_id: z.string().min(1), client_secret: z.string().min(1) });

const emailTestSwitch = z.strictObject({ success: z.boolean(), error_message: z.string().min(1).max(1000).optional() });

function dump(b: AuthBranchRec, secrets: boolean) {
  const hide = (v: string) => (secrets || v === "" ? v : REDACTED);
  const a = b.auth;
  return {
    branch_id: b.id,
    auth:
      a === undefined
        ? null
        : {
            ...a,
            created_at: iso(a.created_ms),
            secret_server_key: hide(a.secret_server_key),
            oauth_providers: a.oauth_providers.map((o) => (o.client_secret === undefined ? o : { ...o, client_secret: hide(o.client_secret) })),
            email_provider: a.email_provider.type === "standard" ? { ...a.email_provider, password: hide(a.email_provider.password) } : a.email_provider,
            webhooks: a.webhooks.webhook_url === undefined ? a.webhooks : { ...a.webhooks, webhook_url: hide(a.webhooks.webhook_url) },
            oauth_clients: (a.oauth_clients ?? []).map((c) => (c.client_secret === undefined ? c : { ...c, client_secret: hide(c.client_secret) })),
          },
    neon_auth: b.neon_auth === undefined ? null : { users: b.neon_auth.users.map((u) => ({ ...u, created_at: iso(u.created_ms) })) },
    email_test: b.email_test ?? { success: true },
  };
}

function branchOf(store: Store, params: Record<string, string>): AuthBranchRec {
  const pid = parseParam(projectIdRule, "project_id", params.project_id);
  const bid = parseParam(branchIdRule, "branch_id", params.branch_id);
  const b = store.data.projects[pid]?.branches.find((x) => x.id === bid) as AuthBranchRec | undefined;
  if (b === undefined) throw new HttpError(404, `branch ${bid} of project ${pid} not found`);
  return b;
}

const emailTest = (b: AuthBranchRec) => ({ status: 200, body: { email_test: b.email_test ?? { success: true } } });

export const branchControlRoutes: ControlRoute[] = [
  {
    // What a token request's client authentication would decide (the emulator serves no token
    // endpoint): whether this secret is the client's current one. An old secret after a
    // rotation, a public client's or a disabled client's answer false.
    method: "POST",
    template: "/projects/{project_id}/branches/{branch_id}/oauth_client_secret_check",
    control: ({ core, params, body }) => {
      const b = branchOf(core.store, params);
      const { client_id, client_secret } = parseWith(secretCheck, body);
      return { status: 200, body: { valid: b.auth !== undefined && secretIsValid(b.auth, client_id, client_secret) } };
    },
  },
  {
    method: "GET",
    template: "/projects/{project_id}/branches/{branch_id}/auth",
    control: async ({ core, params, query }) => {
      const b = branchOf(core.store, params);
      // The users as the branch's table holds them now (SQL clients may have changed it).
      await refreshSnapshot(core.store, params.project_id as string, b);
      return { status: 200, body: dump(b, query.get("secrets") === "true") };
    },
  },
  {
    method: "PUT",
    template: "/projects/{project_id}/branches/{branch_id}/email_test",
    control: ({ core, params, body }) => {
      const b = branchOf(core.store, params);
      b.email_test = parseWith(emailTestSwitch, body);
      return emailTest(b);
    },
  },
  {
    method: "DELETE",
    template: "/projects/{project_id}/branches/{branch_id}/email_test",
    control: ({ core, params }) => {
      const b = branchOf(core.store, params);
      delete b.email_test;
      return emailTest(b);
    },
  },
];
