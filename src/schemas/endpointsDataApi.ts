/**
 * Neon's Data API: four endpoints under `/projects/{project_id}/branches/{branch_id}/data-api/{database_name}`
 * (OpenAPI document 2.7.3, tag DataAPI). Part of the branch-scoped table (endpointsBranch.ts), so
 * the branch client has a method for each.
 */
import * as s from "./dataApi";
import { endpoint, LOCKED } from "./endpoint";

const DATA_API = "/projects/{project_id}/branches/{branch_id}/data-api/{database_name}";
const NONE = "no Data API on this database of the branch, or no such branch or database";

export const dataApiEndpoints = {
  createProjectBranchDataAPI: endpoint({
    name: "createProjectBranchDataAPI",
    generation: "branch",
    method: "POST",
    path: DATA_API,
    request: s.createDataApiRequest,
    response: s.dataApiCreated,
    success: [201],
    errors: {
      ...LOCKED,
      400: "`neon_auth` on a branch without Neon Auth, `external` without `jwks_url`, or a field that breaks its rule",
      404: "no such branch or database",
      409: "the database has a Data API already",
    },
  }),
  getProjectBranchDataAPI: endpoint({ name: "getProjectBranchDataAPI", generation: "branch", method: "GET", path: DATA_API, response: s.dataApi, success: [200], errors: { 404: NONE } }),
  // Both answer an empty object (EmptyResponse), which the package does not read; 200 and 204 are accepted too.
  updateProjectBranchDataAPI: endpoint({
    name: "updateProjectBranchDataAPI",
    generation: "branch",
    method: "PATCH",
    path: DATA_API,
    request: s.updateDataApiRequest,
    success: [201, 200, 204],
    errors: { ...LOCKED, 404: NONE },
  }),
  deleteProjectBranchDataAPI: endpoint({
    name: "deleteProjectBranchDataAPI",
    generation: "branch",
    method: "DELETE",
    path: DATA_API,
    success: [200, 204],
    errors: { ...LOCKED, 404: NONE },
  }),
};
