/** The email server (SMTP) configuration of the managed auth project. */
import { emailServer, updateEmailServerRequest } from "../schemas/auth";
import { projectIntegration } from "./access";
import { parseWith, type ApiContext, type ApiRoute } from "./http";
import type { EmailServerRec } from "./store";

/** GET omits the password (API-FACTS: responses may omit it); PATCH returns it (SPEC.md). */
function view(e: EmailServerRec, withPassword: boolean) {
  if (e.type === "shared" || withPassword) return { ...e };
  const { password: _omitted, ...rest } = e;
  return rest;
}

function updateEmailServer(ctx: ApiContext) {
  const req = parseWith(updateEmailServerRequest, ctx.body);
  const { integration } = projectIntegration(ctx);
  integration.email_server = req.type === "shared" ? { type: "shared" } : { ...req };
  ctx.store.mutated();
  return { status: 200, body: view(integration.email_server, true) };
}

export const emailRoutes: ApiRoute[] = [
  {
    method: "GET",
    template: "/projects/{project_id}/auth/email_server",
    response: emailServer,
    handler: (ctx) => {
      const { integration } = projectIntegration(ctx);
      return { status: 200, body: view(integration.email_server, false) };
    },
  },
  { method: "PATCH", template: "/projects/{project_id}/auth/email_server", handler: updateEmailServer, response: emailServer },
];
