/**
 * Control routes of the project-level generation (loopback only, no key, like the others): the
 * browser step of an ownership transfer and a look into the database's users_sync table; and how
 * its integrations and transfers appear in the state dump.
 */
import { projectId as projectIdSchema } from "../../schemas/common";
import { REDACTED } from "../../schemas/redact";
import type { ControlRoute } from "../core/context";
import { HttpError, jsonObject, parseParam } from "../core/http";
import { iso, type IntegrationRec, type TransferRec } from "../core/store";
import { NEON_AUTH_SCHEMA } from "../core/database";
import { USERS_SYNC_TABLE } from "../core/stackAuth";
import { confirmTransfer, integrationView } from "./integration";
import { usersSyncRows } from "./users";

function redact(value: string, show: boolean): string {
  return show ? value : REDACTED;
}

export function integrationDump(i: IntegrationRec, secrets: boolean) {
  return {
    ...integrationView(i),
    role_name: i.role_name,
    keys: i.keys.map((k) => ({
      pub_client_key: k.pub_client_key,
      secret_server_key: redact(k.secret_server_key, secrets),
      created_at: iso(k.created_ms),
    })),
    users: usersSyncRows(i),
    oauth_providers: i.oauth_providers.map((o) =>
      o.type === "standard"
        ? { id: o.id, type: o.type, client_id: o.client_id, client_secret: redact(o.client_secret ?? "", secrets) }
        : { id: o.id, type: o.type },
    ),
    domains: i.domains.map((domain) => ({ domain, auth_provider: i.auth_provider })),
    email_server:
      i.email_server.type === "standard"
        ? { ...i.email_server, password: redact(i.email_server.password, secrets) }
        : { type: "shared" },
  };
}

/** A transfer as the state dump shows it: the code redacted unless secrets are asked for. */
export function transferDump(t: TransferRec, secrets: boolean) {
  return {
    code: redact(t.code, secrets),
    project_id: t.project_id,
    auth_provider: t.auth_provider,
    used: t.used,
    created_at: iso(t.created_ms),
  };
}

export const projectControlRoutes: ControlRoute[] = [
  {
    method: "POST",
    template: "/transfers/confirm",
    control: ({ core, body: reqBody }) => {
      const b = jsonObject(reqBody);
      if (typeof b.code !== "string" || b.code === "") throw new HttpError(400, "code: is required");
      return { status: 200, body: confirmTransfer(core.store, b.code) };
    },
  },
  {
    method: "GET",
    template: "/projects/{project_id}/users_sync",
    control: ({ core, params }) => {
      const id = parseParam(projectIdSchema, "project_id", params.project_id);
      const p = core.store.data.projects[id];
      if (p === undefined) throw new HttpError(404, `project ${id} not found`);
      const i = p.integrations.stack;
      if (i === undefined) throw new HttpError(404, `relation "${NEON_AUTH_SCHEMA}.${USERS_SYNC_TABLE}" does not exist in project ${id}`);
      return { status: 200, body: { schema: NEON_AUTH_SCHEMA, table: USERS_SYNC_TABLE, rows: usersSyncRows(i) } };
    },
  },
];
