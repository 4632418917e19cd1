import type { TestProject } from "vitest/node";
import { E2E_PREFIX } from "../../scripts/probe/run.mts";
import { prepareWorkspace } from "../../scripts/workspace.mts";
import { leftovers, REMOTE, RUN } from "./remote";

/**
 * One workspace for every e2e program of the run (see scripts/workspace.mts). In remote mode the
 * run's mark is fixed here, before any file starts, and the run ends by listing what it made at
 * the target: anything left fails the run (`npm run probe -- --cleanup` deletes it).
 */
export default function setup(project: TestProject): (() => Promise<void>) | undefined {
  project.provide("e2eWorkspace", prepareWorkspace((line) => process.stderr.write(`e2e: ${line}\n`)));
  if (!REMOTE) return undefined;
  process.stderr.write(`e2e: remote mode against ${process.env.NEON_AUTH_E2E_TARGET}, projects named ${E2E_PREFIX}${RUN}-…\n`);
  return async () => {
    const left = await leftovers();
    process.stderr.write(`e2e: remote run ${RUN} left ${left.length} project(s)${left.length ? `: ${left.join(", ")}` : ""}\n`);
    if (left.length > 0) throw new Error(`the remote run left ${left.length} project(s) named ${E2E_PREFIX}${RUN}-…: ${left.join(", ")}`);
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    e2eWorkspace: string;
  }
}
