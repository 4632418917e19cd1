/**
 * Branch creation and lookup, as Neon's branch API does them: a new branch starts a `create_branch`
 * operation that locks the project for the operation delay, like project creation (the lock itself,
 * 423 while one runs, is core/lock.ts's, applied by route()).
 */
import { hostingEndpoints as H } from "../../schemas/endpointsProject";
import { projectFromPath } from "../core/access";
import { findBranch, route, type AuthBranchRec } from "./kit";
import { HttpError, newBranchId, uuid, type ApiContext, type ApiRoute } from "../core/http";
import { refreshSnapshot } from "./neonAuthTables";
import { fullBranchView, operationView } from "../core/projects";
import type { BranchRec, ProjectRec } from "../core/store";

/**
 * Neon Auth branches with the database (https://neon.com/docs/auth/branching-authentication): the
 * child gets a copy, as of now, of the parent's branch-scoped integration (settings, OAuth
 * providers with their credentials, trusted domains, email provider, webhooks, plugins, app name)
 * and of its `neon_auth` users, under an auth endpoint of its own (`auth_provider_project_id`, so
 * `base_url` and `jwks_url`). Nothing is shared afterwards. A project-level integration lives at
 * the project and does not branch.
 */
function copyAuth(parent: AuthBranchRec, child: AuthBranchRec, now: number): void {
  if (parent.auth !== undefined) child.auth = { ...structuredClone(parent.auth), auth_provider_project_id: uuid(), created_ms: now };
  if (parent.neon_auth !== undefined) child.neon_auth = structuredClone(parent.neon_auth);
}

type BranchRequest = { name?: string | undefined; parent_id?: string | undefined };
type Parent = { project: ProjectRec; parent: AuthBranchRec };

/**
 * The parent branch (404 before the lock), with its users as its table holds them now (SQL clients
 * may have changed them). route() checks the lock after this, since other requests ran while the
 * table was read.
 */
async function parentOf(ctx: ApiContext, req: BranchRequest): Promise<Parent> {
  const project = projectFromPath(ctx);
  const parentId = req.parent_id ?? (project.branches.find((b) => b.default) as BranchRec).id;
  const parent = project.branches.find((b) => b.id === parentId) as AuthBranchRec | undefined;
  if (parent === undefined) throw new HttpError(404, `parent branch ${parentId} not found in project ${project.id}`);
  await refreshSnapshot(ctx.store, project.id, parent);
  return { project, parent };
}

function createBranch(ctx: ApiContext, req: BranchRequest, { project, parent }: Parent) {
  const parentId = parent.id;
  const now = ctx.clock.now();
  let id = newBranchId();
  while (project.branches.some((b) => b.id === id)) id = newBranchId();
  const b: AuthBranchRec & { parent_id: string } = { id, name: req.name ?? id, default: false, created_ms: now, parent_id: parentId };
  copyAuth(parent, b, now);
  project.branches.push(b);
  const finish = now + ctx.config.operationDelayMs;
  const op = { id: uuid(), project_id: project.id, branch_id: id, action: "create_branch", created_ms: now, finish_ms: finish };
  project.operations.push(op);
  const branch = fullBranchView(project, b, now);
  return { body: { branch, endpoints: [], roles: [], databases: [], operations: [operationView(op, now)] } };
}

export const branchRoutes: ApiRoute[] = [
  route<typeof H.createBranch, Parent>(
    H.createBranch,
    (ctx, { body }, found) => createBranch(ctx, body.branch, found),
    (ctx, { body }) => parentOf(ctx, body.branch),
  ),
  route(H.getBranch, (ctx, { params }) => {
    const { project, branch } = findBranch(ctx, params.branch_id);
    // Neon answers the branch with its (here always empty) annotation.
    const annotation = { object: { type: "console/branch", id: branch.id }, value: {} };
    return { body: { branch: fullBranchView(project, branch, ctx.clock.now()), annotation } };
  }),
];
