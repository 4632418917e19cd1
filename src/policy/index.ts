/**
 * `pulumi-neon-auth/policy`: the rules of the policy pack the package ships (policy/ in the
 * package), for a policy pack of your own. `neonAuthPolicies()` are @pulumi/policy policies;
 * `RULES` says what each holds, with its line of Neon's checklist.
 */
export { neonAuthPolicies } from "./pack";
export { RULES } from "./rules";
export { CHECKLIST, type ChecklistItem, type Level, type Rule } from "./rule";
export { DEFAULT_PRODUCTION_TAG, ENVIRONMENT_POLICY, type EnvironmentConfig } from "./environment";
