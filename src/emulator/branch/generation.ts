/** The branch-scoped generation as the emulator is assembled from it (Generation in core/context.ts). */
import type { Generation } from "../core/context";
import { branchControlRoutes } from "./control";
import { recordHistory } from "./history";
import { changeInConsole, configTable, userTable } from "./neonAuthTables";
import { branchScopedRoutes } from "./routes";

export const branchGeneration: Generation = {
  routes: branchScopedRoutes,
  controlRoutes: branchControlRoutes,
  tables: [userTable, configTable],
  // Keeps a version of each root branch's auth and users after every change, for instant restore.
  onChange: recordHistory,
  changeUser: changeInConsole,
};
