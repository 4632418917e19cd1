// Each kind's class, generated from the table of kinds (src/kinds/index.ts).
export * from "./classes";
// Each kind's Args, outputs and value types, generated from its declaration (src/kinds/).
export type * from "./types";
export type * from "./settingTypes";
export type { AuthProviderOutput, ChildOutputs, EitherChildOutputs, NeonAuthChildOutputs, ParentIntegration, ProjectIntegration, NeonAuthIntegration } from "./children";
export type { IntegrationIdentity } from "../provider/parent";
export type { IntegrationRef } from "../provider/place";
export * from "./functions";
