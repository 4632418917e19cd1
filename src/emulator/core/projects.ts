/** Projects, branches and operations: just enough of Neon's project API to host auth. */
import { z } from "zod";
import { hostingEndpoints as H } from "../../schemas/endpointsProject";
import { operation as operationSchema } from "../../schemas/projects";
import { projectFromPath } from "./access";
import { HttpError, newBranchId, newProjectId, uuid, type ApiContext, type ApiRoute } from "./http";
import { route, type Call } from "./route";
import { iso, type BranchRec, type OperationRec, type ProjectRec, type Store } from "./store";

const REGION = "aws-us-east-2";
const PG_VERSION = 17;
/** How far back a project's branches can be restored (`history_retention_seconds`, Neon's one-day default). */
export const HISTORY_RETENTION_SECONDS = 86_400;

export function projectView(p: ProjectRec) {
  return {
    id: p.id,
    name: p.name,
    region_id: REGION,
    pg_version: PG_VERSION,
    created_at: iso(p.created_ms),
    updated_at: iso(p.created_ms),
    // The rest of what Neon's Project object requires: usage counters are zero here.
    platform_id: "aws",
    proxy_host: `${REGION}.aws.neon.tech`,
    provisioner: "k8s-neonvm",
    owner_id: p.owner,
    creation_source: "console",
    store_passwords: true,
    history_retention_seconds: HISTORY_RETENTION_SECONDS,
    branch_logical_size_limit: 512,
    branch_logical_size_limit_bytes: 512 * 1024 * 1024,
    consumption_period_start: iso(p.created_ms),
    consumption_period_end: iso(p.created_ms + 30 * 86_400_000),
    active_time_seconds: 0,
    compute_time_seconds: 0,
    cpu_used_sec: 0,
    written_data_bytes: 0,
    data_transfer_bytes: 0,
    data_storage_bytes_hour: 0,
  };
}

export function branchView(p: ProjectRec, b: BranchRec, now: number) {
  const busy = p.operations.find((op) => op.branch_id === b.id && op.finish_ms > now);
  return {
    id: b.id,
    project_id: p.id,
    name: b.name,
    default: b.default,
    primary: b.default,
    current_state: busy === undefined ? "ready" : (busy.branch_state ?? "init"),
    created_at: iso(b.created_ms),
    updated_at: iso(b.created_ms),
  };
}

/** branchView plus the fields Neon's Branch object requires (usage counters are zero here). */
export function fullBranchView(p: ProjectRec, b: BranchRec, now: number) {
  return {
    ...branchView(p, b, now),
    ...(b.parent_id === undefined ? {} : { parent_id: b.parent_id }),
    ...(b.last_reset_ms === undefined ? {} : { last_reset_at: iso(b.last_reset_ms) }),
    state_changed_at: iso(b.created_ms),
    creation_source: "console",
    protected: false,
    cpu_used_sec: 0,
    active_time_seconds: 0,
    compute_time_seconds: 0,
    written_data_bytes: 0,
    data_transfer_bytes: 0,
  };
}

export function operationView(op: OperationRec, now: number) {
  const done = now >= op.finish_ms;
  return {
    id: op.id,
    project_id: op.project_id,
    branch_id: op.branch_id,
    action: op.action,
    status: done ? "finished" : "running",
    failures_count: 0,
    created_at: iso(op.created_ms),
    updated_at: iso(done ? op.finish_ms : op.created_ms),
    total_duration_ms: done ? op.finish_ms - op.created_ms : Math.max(0, now - op.created_ms),
  };
}

/** Creates a project with its default branch and returns it (no operations: used for seeding too). */
export function insertProject(
  store: Store,
  owner: string,
  opts: { id?: string; name?: string; branchId?: string },
): ProjectRec {
  const now = store.now();
  let id = opts.id;
  while (id === undefined || (opts.id === undefined && store.data.projects[id] !== undefined)) id = newProjectId();
  const p: ProjectRec = {
    id,
    name: opts.name ?? id,
    owner,
    created_ms: now,
    branches: [{ id: opts.branchId ?? newBranchId(), name: "main", default: true, created_ms: now }],
    operations: [],
    integrations: {},
  };
  store.data.projects[id] = p;
  store.mutated();
  return p;
}

function createProject(ctx: ApiContext, { body: req }: Call<typeof H.createProject>) {
  const p = insertProject(ctx.store, ctx.account, { name: req.project.name });
  const now = ctx.clock.now();
  const branch = p.branches[0] as BranchRec;
  const finish = now + ctx.config.operationDelayMs;
  for (const action of ["create_timeline", "start_compute"]) {
    p.operations.push({ id: uuid(), project_id: p.id, branch_id: branch.id, action, created_ms: now, finish_ms: finish });
  }
  return {
    body: {
      project: projectView(p),
      branch: fullBranchView(p, branch, now),
      operations: p.operations.map((op) => operationView(op, now)),
      // What Neon also returns for a new project; the emulator hosts no compute nor roles.
      roles: [],
      databases: [],
      endpoints: [],
      connection_uris: [],
    },
  };
}

/**
 * `DELETE /projects/{project_id}` (OpenAPI document, deleteProject: 200 with the project): the
 * project goes with its branches, their auth and their databases (database.ts ends them).
 */
function deleteProject(ctx: ApiContext) {
  const p = projectFromPath(ctx);
  delete ctx.store.data.projects[p.id];
  ctx.store.mutated();
  return { status: 200, body: { project: projectView(p) } };
}

/**
 * `DELETE /projects/{project_id}/branches/{branch_id}` (OpenAPI document, deleteProjectBranch: 200
 * with the branch and its operations): the branch goes with its auth and its database. "You cannot
 * delete a project's root or default branch, and a branch that has child branches" (Neon's docs,
 * manage/branches "Delete a branch"); the 400 for each: assumption.
 */
function deleteBranch(ctx: ApiContext) {
  const p = projectFromPath(ctx);
  const id = ctx.params.branch_id ?? "";
  const b = p.branches.find((x) => x.id === id);
  if (b === undefined) throw new HttpError(404, `branch ${id} not found in project ${p.id}`);
  if (b.default || b.parent_id === undefined) throw new HttpError(400, `branch ${id}: the default or a root branch cannot be deleted`);
  if (p.branches.some((x) => x.parent_id === id)) throw new HttpError(400, `branch ${id}: delete its child branches first`);
  const now = ctx.clock.now();
  const view = fullBranchView(p, b, now);
  p.branches = p.branches.filter((x) => x !== b);
  const op: OperationRec = { id: uuid(), project_id: p.id, branch_id: id, action: "delete_timeline", created_ms: now, finish_ms: now + ctx.config.operationDelayMs };
  p.operations.push(op);
  ctx.store.mutated();
  return { status: 200, body: { branch: view, operations: [operationView(op, now)] } };
}

const listProjectsResponse = z.object({ projects: z.array(z.object({ id: z.string(), name: z.string() })) });
const listOperationsResponse = z.object({ operations: z.array(operationSchema) });

export const projectRoutes: ApiRoute[] = [
  route(H.createProject, createProject),
  {
    method: "GET",
    template: "/projects",
    response: listProjectsResponse,
    handler: (ctx) => ({
      status: 200,
      body: { projects: Object.values(ctx.store.data.projects).filter((p) => p.owner === ctx.account).map(projectView) },
    }),
  },
  route(H.getProject, (ctx) => ({ body: { project: projectView(projectFromPath(ctx)) } })),
  // Not in the endpoint table: the package deletes no project nor branch.
  { method: "DELETE", template: "/projects/{project_id}", response: z.object({ project: z.object({ id: z.string() }) }), handler: deleteProject },
  { method: "DELETE", template: "/projects/{project_id}/branches/{branch_id}", response: z.object({ branch: z.object({ id: z.string() }) }), handler: deleteBranch },
  route(H.listBranches, (ctx) => {
    const p = projectFromPath(ctx);
    const now = ctx.clock.now();
    return { body: { branches: p.branches.map((b) => fullBranchView(p, b, now)), annotations: {} } };
  }),
  {
    method: "GET",
    template: "/projects/{project_id}/operations",
    response: listOperationsResponse,
    handler: (ctx) => {
      const p = projectFromPath(ctx);
      const now = ctx.clock.now();
      return { status: 200, body: { operations: [...p.operations].reverse().map((op) => operationView(op, now)) } };
    },
  },
  route(H.getOperation, (ctx, { params }) => {
    const p = projectFromPath(ctx);
    const op = p.operations.find((o) => o.id === params.operation_id);
    if (op === undefined) throw new HttpError(404, `operation ${params.operation_id} not found`);
    return { body: { operation: operationView(op, ctx.clock.now()) } };
  }),
];

