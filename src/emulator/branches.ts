/**
 * Branch creation and lookup, as Neon's branch API does them: a new branch starts a `create_branch`
 * operation that locks the project for the operation delay, like project creation.
 */
import { hostingEndpoints as H } from "../schemas/endpointsProject";
import { assertUnlocked, projectFromPath } from "./access";
import { findBranch, route } from "./branchKit";
import { HttpError, newBranchId, uuid, type ApiContext, type ApiRoute } from "./http";
import { fullBranchView, operationView } from "./projects";
import type { BranchRec } from "./store";

function createBranch(ctx: ApiContext, req: { name?: string | undefined; parent_id?: string | undefined }) {
  const project = projectFromPath(ctx);
  const parent = req.parent_id ?? (project.branches.find((b) => b.default) as BranchRec).id;
  if (!project.branches.some((b) => b.id === parent)) throw new HttpError(404, `parent branch ${parent} not found in project ${project.id}`);
  assertUnlocked(ctx, project);
  const now = ctx.clock.now();
  let id = newBranchId();
  while (project.branches.some((b) => b.id === id)) id = newBranchId();
  const b: BranchRec & { parent_id: string } = { id, name: req.name ?? id, default: false, created_ms: now, parent_id: parent };
  project.branches.push(b);
  const finish = now + ctx.config.operationDelayMs;
  const op = { id: uuid(), project_id: project.id, branch_id: id, action: "create_branch", created_ms: now, finish_ms: finish };
  project.operations.push(op);
  const branch = fullBranchView(project, b, now);
  return { body: { branch, endpoints: [], roles: [], databases: [], operations: [operationView(op, now)] } };
}

export const branchRoutes: ApiRoute[] = [
  route(H.createBranch, (ctx, { body }) => createBranch(ctx, body.branch)),
  route(H.getBranch, (ctx, { params }) => {
    const { project, branch } = findBranch(ctx, params.branch_id);
    // Neon answers the branch with its (here always empty) annotation.
    const annotation = { object: { type: "console/branch", id: branch.id }, value: {} };
    return { body: { branch: fullBranchView(project, branch, ctx.clock.now()), annotation } };
  }),
];
