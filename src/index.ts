/**
 * pulumi-neon-auth: Neon Auth as Pulumi resources. The package root holds what a Pulumi
 * program declares (resource classes, their Args); its types are plain TypeScript. The API
 * client and the local emulator live on their own subpaths, `pulumi-neon-auth/client` and
 * `pulumi-neon-auth/emulator`, so that a program's type check never reaches their internals.
 */
import { assertNodeVersion } from "./nodeVersion";
// First, before the rest loads: on an old Node our dependencies fail without saying why.
assertNodeVersion("pulumi-neon-auth");
export * from "./resources";
