/** The email server (SMTP) configuration of the managed auth project. */
import { projectEndpoints as P } from "../../schemas/endpointsProject";
import { projectIntegration } from "../core/access";
import type { ApiContext, ApiRoute } from "../core/http";
import { route, type Call } from "../core/route";
import type { EmailServerRec } from "../core/store";

/** GET omits the password (a deviation the endpoint table records); PATCH returns it. */
function view(e: EmailServerRec, withPassword: boolean) {
  if (e.type === "shared" || withPassword) return { ...e };
  const { password: _omitted, ...rest } = e;
  return rest;
}

function updateEmailServer(ctx: ApiContext, { body: req }: Call<typeof P.updateEmailServer>) {
  const { integration } = projectIntegration(ctx);
  integration.email_server = req.type === "shared" ? { type: "shared" } : { ...req };
  return { body: view(integration.email_server, true) };
}

export const emailRoutes: ApiRoute[] = [
  route(P.getEmailServer, (ctx) => ({ body: view(projectIntegration(ctx).integration.email_server, false) })),
  route(P.updateEmailServer, updateEmailServer),
];
