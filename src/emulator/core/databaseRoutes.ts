/**
 * `GET /projects/{project_id}/connection_uri` (from its endpoint-table entry) and the control routes
 * of the emulated databases: the reachability switch, and changes to a user made outside the API
 * (as in the auth provider's dashboard or Neon's console), which the database then shows; the
 * generation holding the user applies them (Generation in core/context.ts).
 */
import { z } from "zod";
import { email, userName } from "../../schemas/common";
import { hostingEndpoints } from "../../schemas/endpointsProject";
import { projectFromPath } from "./access";
import { checkDatabaseAndRole, databasesOf } from "./database";
import type { ControlRoute } from "./context";
import { HttpError, parseWith, type ApiContext, type ApiRoute, type Reply } from "./http";
import type { Store } from "./store";

const E = hostingEndpoints.getConnectionUri;

async function connectionUri(ctx: ApiContext): Promise<Reply> {
  const p = projectFromPath(ctx);
  const raw: Record<string, unknown> = Object.fromEntries(ctx.query.entries());
  if (raw.pooled !== undefined) raw.pooled = raw.pooled === "true" ? true : raw.pooled === "false" ? false : raw.pooled;
  const q = parseWith(E.query, raw);
  const branchId = q.branch_id ?? p.branches.find((b) => b.default)?.id ?? "";
  if (!p.branches.some((b) => b.id === branchId)) throw new HttpError(404, `branch ${branchId} not found in project ${p.id}`);
  checkDatabaseAndRole(p, q.database_name, q.role_name);
  const uri = await databasesOf(ctx.store).connectionUri(p, branchId, q.database_name, q.role_name);
  return { status: 200, body: { uri } };
}

export const databaseRoutes: ApiRoute[] = [{ method: E.method, template: E.path, handler: connectionUri, response: E.response }];

const reachability = z.strictObject({ reachable: z.boolean() });
const userChange = z.strictObject({ name: userName.nullable().optional(), email: email.optional() });

function notFound(params: Record<string, string>): HttpError {
  return new HttpError(404, `user ${params.user_id} not found in project ${params.project_id}`);
}

async function database(store: Store): Promise<Reply> {
  const dbs = databasesOf(store);
  return { status: 200, body: { reachable: dbs.reachable, running: dbs.running() } };
}

/** A change done: the server reports it to the databases and answers once they show it (server.ts `persistWrite`). */
function changed(): Reply {
  return { status: 200, body: { ok: true } };
}

/** `GET|PUT /_emulator/database` and `PATCH|DELETE /_emulator/projects/{id}/users/{user_id}`. */
export const databaseControlRoutes: ControlRoute[] = [
  { method: "GET", template: "/database", control: ({ core }) => database(core.store) },
  {
    method: "PUT",
    template: "/database",
    control: async ({ core, body }) => {
      await databasesOf(core.store).setReachable(parseWith(reachability, body).reachable);
      return database(core.store);
    },
  },
  {
    method: "DELETE",
    template: "/projects/{project_id}/users/{user_id}",
    control: async ({ core, params }) => {
      // The first generation that holds the user takes the deletion.
      for (const g of core.generations) if (await g.removeUser?.(core.store, params)) return changed();
      throw notFound(params);
    },
  },
  {
    method: "PATCH",
    template: "/projects/{project_id}/users/{user_id}",
    control: async ({ core, params, body }) => {
      const change = parseWith(userChange, body);
      for (const g of core.generations) if (await g.changeUser?.(core.store, params, change)) return changed();
      throw notFound(params);
    },
  },
];
