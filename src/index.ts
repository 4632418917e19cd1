export * from "./schemas";
export { systemClock, type Clock } from "./clock";
