/**
 * A project's JWKS URLs (`/projects/{project_id}/jwks`): the keys Neon trusts for tokens of another
 * identity provider (Clerk, Auth0, Cognito…), for the Data API and Postgres connections. Project
 * API, not an auth generation: Neon waits on the operations an addition starts (it reconfigures
 * the computes). Wire schemas and the three entries of the endpoint table.
 */
import { z } from "zod";
import { branchId, wholeList } from "./common";
import { endpoint, LOCKED } from "./endpoint";
import { text } from "./fields";
import { operation, projectObject } from "./projects";
import { urlProblem } from "./urls";

/** A JWKS URL as Neon takes it: https only (the API reference: "a valid HTTPS URL"). */
export const jwksUrl = z.string().superRefine((v, ctx) => {
  const problem = urlProblem(v, { loopbackHttp: false });
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});
/** The provider's name in the console's list (`Clerk`, `Auth0`); Neon documents no bound: 256 is ours. */
export const jwksProviderName = text(256);
/** The `aud` value tokens must carry; Neon documents no bound: 256 is ours. */
export const jwtAudience = text(256);

/**
 * `POST /projects/{project_id}/jwks`. The deprecated `role_names` and `skip_role_creation` (Neon
 * RLS, now the Data API's) are never sent: the roles are the defaults Neon documents.
 */
export const addJwksRequest = z.strictObject({
  jwks_url: jwksUrl,
  provider_name: jwksProviderName,
  branch_id: branchId.optional(),
  jwt_audience: jwtAudience.optional(),
});
export type AddJwksRequest = z.input<typeof addJwksRequest>;

/** One JWKS entry of a project (the document's `JWKS`). */
export const jwks = z.object({
  ...projectObject,
  jwks_url: z.string(),
  provider_name: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  jwt_audience: z.string().optional(),
});
export type Jwks = z.infer<typeof jwks>;

export const listJwksResponse = wholeList({ jwks: z.array(jwks) });
/** The entry added, and the operations that apply it (the document's `JWKSCreationOperation`). */
export const addJwksResponse = z.object({ jwks, operations: z.array(operation).optional().default([]) });

const WRITE = { 404: "unknown project or branch", ...LOCKED } as const;

export const jwksEndpoints = {
  getProjectJWKS: endpoint({
    name: "getProjectJWKS",
    generation: "hosting",
    method: "GET",
    path: "/projects/{project_id}/jwks",
    response: listJwksResponse,
    success: [200],
    answer: "jwks",
  }),
  /**
   * The entry and the operations that apply it, which the caller waits for (`waitForOperations`),
   * so that an entry whose operations fail is still known by its id.
   */
  addProjectJWKS: endpoint({
    name: "addProjectJWKS",
    generation: "hosting",
    method: "POST",
    path: "/projects/{project_id}/jwks",
    request: addJwksRequest,
    response: addJwksResponse,
    success: [201],
    errors: WRITE,
  }),
  deleteProjectJWKS: endpoint({
    name: "deleteProjectJWKS",
    generation: "hosting",
    method: "DELETE",
    path: "/projects/{project_id}/jwks/{jwks_id}",
    response: jwks,
    success: [200],
    errors: { 404: "unknown project or JWKS entry", ...LOCKED },
  }),
};
