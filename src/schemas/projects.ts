/** The small part of Neon's project API that hosts auth: projects, branches, operations. */
import { z } from "zod";
import { secretField } from "./fields";

/** Statuses after which an operation never changes again. */
export const TERMINAL_OPERATION_STATUSES: readonly string[] = ["finished", "skipped", "cancelled"];

/** What names an object of a project, which may belong to one branch of it (an operation, a JWKS entry). */
export const projectObject = { id: z.string(), project_id: z.string(), branch_id: z.string().optional() };

export const operation = z.object({
  ...projectObject,
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
  /** When the branch was last restored (OpenAPI document, Branch); absent for a branch never reset. */
  last_reset_at: z.string().optional(),
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

const BRANCH_ID_RULE = { message: "must match ^[a-z0-9-]{1,60}$" };

/**
 * `POST /projects/{project_id}/branches/{branch_id}/restore` (OpenAPI document,
 * BranchRestoreRequest): the branch's data, `neon_auth` included, becomes the source branch's at its
 * head, or at `source_timestamp` / `source_lsn`. A reset from the parent is this call with the
 * parent as the source; an instant restore names the branch itself and a time.
 */
export const restoreBranchRequest = z.strictObject({
  source_branch_id: z.string().regex(/^[a-z0-9-]{1,60}$/, BRANCH_ID_RULE),
  source_lsn: z.string().min(1, { message: "must not be empty" }).optional(),
  /** RFC 3339, offset allowed (Neon's CLI takes `2024-01-01T00:00:00Z`). */
  source_timestamp: z.iso.datetime({ offset: true, message: "must be an RFC 3339 date-time, e.g. 2024-02-26T12:00:00Z" }).optional(),
  /** The name of the branch that keeps the state before the restore; empty means none (the document: "If not empty"). */
  preserve_under_name: z.string().max(256, { message: "must be at most 256 characters" }).optional(),
});
export type RestoreBranchRequest = z.input<typeof restoreBranchRequest>;

/** The document's BranchOperations: the restored branch and the operations that do it. */
export const restoreBranchResponse = z.object({ branch, operations: z.array(operation).optional().default([]) });
export type RestoreBranchResponse = z.infer<typeof restoreBranchResponse>;

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
