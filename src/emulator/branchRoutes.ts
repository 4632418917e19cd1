/** Every route of the branch-scoped generation, plus branch creation and lookup that host it. */
import { branchAuthRoutes } from "./branchAuth";
import { branchRoutes as hostingBranchRoutes } from "./branches";
import { branchOAuthRoutes } from "./branchOAuth";
import { branchSettingsRoutes } from "./branchSettings";
import type { ApiRoute } from "./http";

export const branchScopedRoutes: ApiRoute[] = [...hostingBranchRoutes, ...branchAuthRoutes, ...branchOAuthRoutes, ...branchSettingsRoutes];
