/**
 * The TypeScript face's log for notices of the provider room (provider/log.ts): `pulumi.log`, which
 * in the dynamic-provider process and in the program's own process (functions, resources/invoke.ts)
 * talks to the engine that started it, so a line is a diagnostic printed in the output.
 */
import * as pulumi from "@pulumi/pulumi";
import type { Log } from "../provider/log";

export const engineLog: Log = {
  info: (line) => void pulumi.log.info(line),
  warn: (line) => void pulumi.log.warn(line),
};
