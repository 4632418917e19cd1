/**
 * The auth generations the emulator is assembled from (core/context.ts, Generation, says what each brings),
 * in the order their routes are matched, their tables written and their parts of the dump shown.
 */
import { branchGeneration } from "./branch/generation";
import type { Generation } from "./core/context";
import { projectGeneration } from "./project/generation";

export const generations: readonly Generation[] = [projectGeneration, branchGeneration];
