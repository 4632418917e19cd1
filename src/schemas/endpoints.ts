/**
 * The endpoint table: every endpoint of both auth generations and the project API slice that hosts
 * them. Client methods, emulator routes and contract tests all read these entries.
 */
import type { AnyEndpoint, Generation } from "./endpoint";
import { branchEndpoints } from "./endpointsBranch";
import { hostingEndpoints, projectEndpoints } from "./endpointsProject";
import { jwksEndpoints } from "./jwks";

export * from "./endpoint";
export { branchEndpoints, BRANCH_SETTINGS, type BranchSetting, type BranchSettingName } from "./endpointsBranch";
export { hostingEndpoints, projectEndpoints } from "./endpointsProject";
export { jwksEndpoints } from "./jwks";

export const ENDPOINTS: readonly AnyEndpoint[] = [
  ...Object.values(hostingEndpoints),
  ...Object.values(projectEndpoints),
  ...Object.values(branchEndpoints),
  ...Object.values(jwksEndpoints),
];

export function endpointsOf(generation: Generation): AnyEndpoint[] {
  return ENDPOINTS.filter((e) => e.generation === generation);
}
