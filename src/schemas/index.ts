export * from "./common";
export * from "./projects";
export * from "./auth";
