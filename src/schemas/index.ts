export * from "./common";
export * from "./projects";
export * from "./auth";
export * from "./branchAuth";
export * from "./endpoints";
export * from "./fields";
export * from "./urls";
export * from "./dataApi";
