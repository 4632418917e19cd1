/**
 * `GET /projects/{project_id}/connection_uri` (from its endpoint-table entry) and the control routes
 * of the emulated databases: the reachability switch, and changes to a user made outside the API
 * (as in the auth provider's dashboard), which the database's `users_sync` then shows.
 */
import { z } from "zod";
import { email, projectId as projectIdRule, userName } from "../schemas/common";
import { hostingEndpoints } from "../schemas/endpointsProject";
import { projectFromPath } from "./access";
import type { AuthBranchRec } from "./branchKit";
import { checkDatabaseAndRole, databasesOf } from "./database";
import { HttpError, parseParam, parseWith, type ApiContext, type ApiRoute, type Reply } from "./http";
import type { Store } from "./store";
import { removeUser } from "./users";

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

/**
 * A rename of a branch user (branch-scoped integrations), as made in Neon's console; deleting one
 * goes through the public API (`DELETE …/auth/users/{id}`).
 */
async function changeBranchUser(store: Store, projectId: string, userId: string, method: string, body: unknown): Promise<Reply> {
  const branches = (store.data.projects[projectId]?.branches ?? []) as AuthBranchRec[];
  const user = branches.flatMap((b) => b.neon_auth?.users ?? []).find((u) => u.id === userId);
  if (user === undefined) throw new HttpError(404, `user ${userId} not found in project ${projectId}`);
  if (method !== "PATCH") throw new HttpError(405, `method ${method} is not allowed for a branch user`, "", { allow: "PATCH" });
  const change = parseWith(userChange, body);
  if (change.name !== undefined) user.name = change.name;
  if (change.email !== undefined) user.email = change.email;
  store.mutated();
  await databasesOf(store).settled();
  return { status: 200, body: { ok: true } };
}

/**
 * `GET|PUT /_emulator/database` and `PATCH|DELETE /_emulator/projects/{id}/users/{user_id}`;
 * undefined for any other path.
 */
export async function handleDatabaseControl(store: Store, method: string, path: string, body: unknown): Promise<Reply | undefined> {
  if (path === "/database") {
    const dbs = databasesOf(store);
    if (method === "PUT") await dbs.setReachable(parseWith(reachability, body).reachable);
    else if (method !== "GET") throw new HttpError(405, `method ${method} is not allowed on /_emulator${path}`, "", { allow: "GET, PUT" });
    return { status: 200, body: { reachable: dbs.reachable, running: dbs.running() } };
  }
  const m = /^\/projects\/([^/]+)\/users\/([^/]+)$/.exec(path);
  if (m === null) return undefined;
  const id = parseParam(projectIdRule, "project_id", decodeURIComponent(m[1] as string));
  const userId = decodeURIComponent(m[2] as string);
  const i = store.data.projects[id]?.integrations.stack;
  const at = i?.users.findIndex((u) => u.id === userId) ?? -1;
  if (i === undefined || at < 0) return changeBranchUser(store, id, userId, method, body);
  const user = i.users[at]!;
  const now = store.now();
  if (method === "DELETE") {
    removeUser(i, at, now);
  } else if (method === "PATCH") {
    const change = parseWith(userChange, body);
    if (change.name !== undefined) user.name = change.name;
    if (change.email !== undefined) user.email = change.email;
    user.updated_ms = now;
  } else {
    throw new HttpError(405, `method ${method} is not allowed on /_emulator${path}`, "", { allow: "DELETE, PATCH" });
  }
  store.mutated();
  await databasesOf(store).settled();
  return { status: 200, body: { ok: true } };
}
