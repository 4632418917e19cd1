/**
 * Control routes of the branch-scoped generation (loopback only, no key, like the others):
 * a look at one branch's integration and its `neon_auth` users, and the switch that makes the
 * email provider test report an SMTP failure.
 */
import { z } from "zod";
import { branchId as branchIdRule, projectId as projectIdRule } from "../schemas/common";
import type { AuthBranchRec } from "./branchKit";
import { HttpError, parseParam, parseWith, type Reply } from "./http";
import { iso, type Store } from "./store";

const emailTestSwitch = z.strictObject({ success: z.boolean(), error_message: z.string().min(1).max(1000).optional() });

function dump(b: AuthBranchRec, secrets: boolean, redacted: string) {
  const hide = (v: string) => (secrets || v === "" ? v : redacted);
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
          },
    neon_auth: b.neon_auth === undefined ? null : { users: b.neon_auth.users.map((u) => ({ ...u, created_at: iso(u.created_ms) })) },
    email_test: b.email_test ?? { success: true },
  };
}

/** Answers `/projects/{id}/branches/{branch_id}/(auth|email_test)`; undefined for any other path. */
export function handleBranchControl(
  store: Store,
  method: string,
  path: string,
  query: URLSearchParams,
  body: unknown,
  redacted: string,
): Reply | undefined {
  const m = /^\/projects\/([^/]+)\/branches\/([^/]+)\/(auth|email_test)$/.exec(path);
  if (m === null) return undefined;
  const pid = parseParam(projectIdRule, "project_id", decodeURIComponent(m[1] as string));
  const bid = parseParam(branchIdRule, "branch_id", decodeURIComponent(m[2] as string));
  const b = store.data.projects[pid]?.branches.find((x) => x.id === bid) as AuthBranchRec | undefined;
  if (b === undefined) throw new HttpError(404, `branch ${bid} of project ${pid} not found`);
  const allow = (methods: string[]) => {
    if (!methods.includes(method)) throw new HttpError(405, `method ${method} is not allowed on /_emulator${path}`, "", { allow: methods.join(", ") });
  };
  if (m[3] === "auth") {
    allow(["GET"]);
    return { status: 200, body: dump(b, query.get("secrets") === "true", redacted) };
  }
  allow(["DELETE", "PUT"]);
  if (method === "DELETE") delete b.email_test;
  else b.email_test = parseWith(emailTestSwitch, body);
  return { status: 200, body: { email_test: b.email_test ?? { success: true } } };
}
