/**
 * `GET /projects/{project_id}/connection_uri` (from its endpoint-table entry) and the control routes
 * of the emulated databases: the reachability switch, and changes to a user made outside the API
 * (as in the auth provider's dashboard), which the database's `users_sync` then shows.
 */
import { z } from "zod";
import { email, projectId as projectIdRule, userName } from "../../schemas/common";
import { hostingEndpoints } from "../../schemas/endpointsProject";
import { projectFromPath } from "./access";
import type { AuthBranchRec } from "../branch/kit";
import { checkDatabaseAndRole, databasesOf } from "./database";
import type { ControlRoute } from "./context";
import { HttpError, parseParam, parseWith, type ApiContext, type ApiRoute, type Reply } from "./http";
import { changeUser, refreshSnapshot } from "../branch/neonAuthTables";
import type { Store } from "./store";
import { removeUser } from "../project/users";

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

/** A user of the project-level integration, or undefined. */
function projectUser(store: Store, params: Record<string, string>) {
  const id = parseParam(projectIdRule, "project_id", params.project_id);
  const i = store.data.projects[id]?.integrations.stack;
  const at = i?.users.findIndex((u) => u.id === params.user_id) ?? -1;
  return i === undefined || at < 0 ? undefined : { i, at, user: i.users[at]! };
}

function notFound(params: Record<string, string>): HttpError {
  return new HttpError(404, `user ${params.user_id} not found in project ${params.project_id}`);
}

/**
 * The branch holding a branch-scoped user, for a change made in Neon's console; deleting one goes
 * through the public API (`DELETE …/auth/users/{id}`).
 */
async function branchOfUser(store: Store, params: Record<string, string>): Promise<AuthBranchRec | undefined> {
  const projectId = params.project_id as string;
  for (const b of (store.data.projects[projectId]?.branches ?? []) as AuthBranchRec[]) {
    if (b.neon_auth === undefined) continue;
    await refreshSnapshot(store, projectId, b);
    if (b.neon_auth.users.some((u) => u.id === params.user_id)) return b;
  }
  return undefined;
}

async function database(store: Store): Promise<Reply> {
  const dbs = databasesOf(store);
  return { status: 200, body: { reachable: dbs.reachable, running: dbs.running() } };
}

/**
 * The databases follow the state when it reports a change; the reply waits until they have, so
 * that the next read of users_sync shows this one (the server persists the write afterwards).
 */
async function changed(store: Store): Promise<Reply> {
  store.mutated();
  await databasesOf(store).settled();
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
    control: ({ core, params }) => {
      const found = projectUser(core.store, params);
      if (found === undefined) throw notFound(params);
      removeUser(found.i, found.at, core.store.now());
      return changed(core.store);
    },
  },
  {
    method: "PATCH",
    template: "/projects/{project_id}/users/{user_id}",
    control: async ({ core, params, body }) => {
      const change = parseWith(userChange, body);
      const found = projectUser(core.store, params);
      if (found !== undefined) {
        if (change.name !== undefined) found.user.name = change.name;
        if (change.email !== undefined) found.user.email = change.email;
        found.user.updated_ms = core.store.now();
        return changed(core.store);
      }
      const branch = await branchOfUser(core.store, params);
      if (branch === undefined) throw notFound(params);
      const name = change.name === null ? "" : change.name;
      await changeUser(core.store, params.project_id as string, branch, params.user_id as string, { name, email: change.email }, core.store.now());
      return changed(core.store);
    },
  },
];
