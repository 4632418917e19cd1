/**
 * pulumi-neon-auth: Neon Auth as Pulumi resources, the API client under them, and a local
 * emulator of the API.
 */
import "./nodeVersion";
export * from "./resources";
export {
  createClient,
  getClient,
  NeonError,
  NeonApiError,
  NeonNetworkError,
  NeonTimeoutError,
  NeonResponseError,
  NeonOperationError,
  NeonConfigError,
  type NeonClient,
  type ClientOptions,
} from "./client";
export { startEmulator, type EmulatorOptions, type EmulatorHandle } from "./emulator";
export { systemClock, type Clock } from "./clock";
export * as schemas from "./schemas";
