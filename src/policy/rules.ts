/** Every rule of the pack, in the order the README lists them: Neon's checklist, then the package's own. */
import { CHECKLIST_RULES } from "./checklist";
import { PRODUCTION_RULES } from "./production";
import type { Rule } from "./rule";

export const RULES: readonly Rule[] = [...CHECKLIST_RULES, ...PRODUCTION_RULES];
