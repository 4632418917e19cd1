/**
 * Where a provider process's notices go (a wait, a delete left alone, a users table it cannot read):
 * the face that runs the handlers gives the log, so that every line reaches that face's users. The
 * dynamic resources give `pulumi.log` (resources/runtime.ts), the plugin the engine's log over its
 * gRPC host (plugin/server.ts). Each line is scrubbed of every secret the process has seen.
 */
import { redactText } from "../client";

export interface Log {
  info(line: string): void;
  warn(line: string): void;
}

/** Until a face gives one (a handler run directly, as unit tests do): the process's stderr. */
let log: Log = {
  info: (line) => void process.stderr.write(`${line}\n`),
  warn: (line) => void process.stderr.write(`warning: ${line}\n`),
};

/** The face's log, for every later line. */
export function useLog(l: Log): void {
  log = l;
}

/** An informational line: a wait, a delete left alone. */
export function info(line: string): void {
  log.info(redactText(line));
}

/** A line the user should act on: something the provider cannot do this run. */
export function warn(line: string): void {
  log.warn(redactText(line));
}
