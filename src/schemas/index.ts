export * from "./common";
export * from "./projects";
export * from "./auth";
export * from "./fields";
