import type { TestProject } from "vitest/node";
import { prepareWorkspace } from "../../scripts/workspace.mts";

/** One workspace for every e2e program of the run (see scripts/workspace.mts). */
export default function setup(project: TestProject): void {
  project.provide("e2eWorkspace", prepareWorkspace((line) => process.stderr.write(`e2e: ${line}\n`)));
}

declare module "vitest" {
  export interface ProvidedContext {
    e2eWorkspace: string;
  }
}
