/** The small part of Neon's project API that hosts auth: projects, branches, operations. */
import { z } from "zod";
import { secretField } from "./fields";

export const OPERATION_STATUSES = [
  "scheduling",
  "running",
  "finished",
  "failed",
  "error",
  "cancelling",
  "cancelled",
  "skipped",
] as const;
/** Statuses after which an operation never changes again. */
export const TERMINAL_OPERATION_STATUSES: readonly string[] = ["finished", "skipped", "cancelled"];

export const operation = z.object({
  id: z.string(),
  project_id: z.string(),
  branch_id: z.string().optional(),
  action: z.string(),
  // Unknown future statuses are kept as strings rather than rejected.
  status: z.string(),
  failures_count: z.number().optional().default(0),
  error: z.string().optional(),
  created_at: z.string(),
  updated_at: z.string(),
  total_duration_ms: z.number().optional().default(0),
});
export type Operation = z.infer<typeof operation>;

export const project = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.string().optional(),
});
export type Project = z.infer<typeof project>;

export const branch = z.object({
  id: z.string(),
  project_id: z.string().optional(),
  name: z.string(),
  default: z.boolean().optional().default(false),
  created_at: z.string().optional(),
  /** The branch it was made from; a project's root branch has none (OpenAPI document, Branch). */
  parent_id: z.string().optional(),
});
export type Branch = z.infer<typeof branch>;

export const createProjectRequest = z.strictObject({
  project: z.strictObject({ name: z.string().min(1).max(256).optional() }).optional().default({}),
});
export type CreateProjectRequest = z.input<typeof createProjectRequest>;

export const createProjectResponse = z.object({
  project,
  branch,
  operations: z.array(operation).optional().default([]),
});
export type CreateProjectResponse = z.infer<typeof createProjectResponse>;

export const getProjectResponse = z.object({ project });
export const listBranchesResponse = z.object({ branches: z.array(branch) });
export const getOperationResponse = z.object({ operation });

/** `POST /projects/{project_id}/branches`: the branch part of Neon's request (endpoints are not emulated). */
export const createBranchRequest = z.strictObject({
  branch: z
    .strictObject({
      name: z.string().min(1, { message: "must be 1 to 256 characters" }).max(256, { message: "must be 1 to 256 characters" }).optional(),
      parent_id: z.string().regex(/^[a-z0-9-]{1,60}$/, { message: "must match ^[a-z0-9-]{1,60}$" }).optional(),
    })
    .optional()
    .default({}),
});
export type CreateBranchRequest = z.input<typeof createBranchRequest>;

export const createBranchResponse = z.object({ branch, operations: z.array(operation).optional().default([]) });
export type CreateBranchResponse = z.infer<typeof createBranchResponse>;
export const getBranchResponse = z.object({ branch });

/**
 * Query of `GET /projects/{project_id}/connection_uri`: which database, as which role, on which
 * branch (default: the project's default branch).
 */
export const connectionUriQuery = z.strictObject({
  database_name: z.string().min(1, "is required"),
  role_name: z.string().min(1, "is required"),
  branch_id: z.string().regex(/^[a-z0-9-]{1,60}$/).optional(),
  pooled: z.boolean().optional(),
});
export type ConnectionUriQuery = z.input<typeof connectionUriQuery>;

/** The answer holds the role's password: a secret, never kept in state nor shown. */
/** The URI carries the role's password. */
export const connectionUriResponse = z.object({ uri: secretField(z.string()) });
