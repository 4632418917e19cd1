/** Every route of the branch-scoped generation, plus branch creation, lookup and restore that host it. */
import { branchAuthRoutes } from "./auth";
import { branchRoutes as hostingBranchRoutes } from "./branches";
import { dataApiRoutes } from "./dataApi";
import { branchOAuthRoutes } from "./oauth";
import { branchOAuthClientRoutes } from "./oauthClients";
import { restoreRoutes } from "./restore";
import { branchSettingsRoutes } from "./settings";
import type { ApiRoute } from "../core/http";

export const branchScopedRoutes: ApiRoute[] = [...hostingBranchRoutes, ...restoreRoutes, ...branchAuthRoutes, ...branchOAuthRoutes, ...branchOAuthClientRoutes, ...branchSettingsRoutes, ...dataApiRoutes];
