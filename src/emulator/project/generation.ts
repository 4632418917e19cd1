/** The project-level generation (Stack Auth) as the emulator is assembled from it (Generation in core/context.ts). */
import type { Generation } from "../core/context";
import { integrationDump, projectControlRoutes, transferDump } from "./control";
import { projectAuthRoutes } from "./routes";
import { changeInDashboard, removeInDashboard, usersSyncTable } from "./users";

export const projectGeneration: Generation = {
  routes: projectAuthRoutes,
  controlRoutes: projectControlRoutes,
  tables: [usersSyncTable],
  projectDump: (p, secrets) => ({ integrations: Object.values(p.integrations).map((i) => integrationDump(i, secrets)) }),
  stateDump: (store, secrets) => ({ transfers: Object.values(store.data.transfers).map((t) => transferDump(t, secrets)) }),
  changeUser: changeInDashboard,
  removeUser: removeInDashboard,
};
