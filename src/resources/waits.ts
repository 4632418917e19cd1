/**
 * Waits made visible (issue 26): when a request of this provider process waits for the pacing,
 * after a 429, for a locked project (423) or for a long-running operation, and the wait takes the
 * request past about 2 seconds, one line says which resource waits, for what, and how long it may
 * still wait. The client reports every wait through its one hook (ClientOptions.onWait); this
 * module decides what is worth a line.
 *
 * Where the line goes: a dynamic provider's methods get no URN (pulumi/pulumi#9434), so the line
 * cannot be attached to the resource's row of the progress display; it names the resource in its
 * text instead. It is written to the process's stderr, which the engine forwards as a diagnostic
 * of the update (an engine event, printed in the output), as the users_sync notice is.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { WaitEvent, WaitKind } from "../client";
import { redactText } from "../client";
import { SETTING } from "./settings";

/** The resource a provider method works on, for the lines of the requests it makes. */
const current = new AsyncLocalStorage<string>();

/** Runs `fn` with `label` as the resource its requests wait for. */
export function forResource<R>(label: string, fn: () => Promise<R>): Promise<R> {
  return current.run(label, fn);
}

/** A wait shorter than this, in a request under way for less, is not worth a line. */
const VISIBLE_MS = 2_000;
/** At most one line per kind of wait in this long: a paced run of 300 domains says so a few times, not 300. */
const EVERY_MS = 2_000;
const lastLine = new Map<WaitKind, number>();

/** Where lines go (tests replace it). */
let sink = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

export function setWaitSink(s: (line: string) => void): void {
  sink = s;
}

export function onWait(w: WaitEvent, now = Date.now()): void {
  if (w.waitedMs + w.waitMs < VISIBLE_MS) return;
  const last = lastLine.get(w.kind);
  if (last !== undefined && now - last < EVERY_MS) return;
  lastLine.set(w.kind, now);
  sink(redactText(waitLine(w, current.getStore())));
}

function seconds(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return s === 0 ? `${m} min` : `${m} min ${s} s`;
}

/** One line: who waits, for what, about how long, and the most it may still wait. */
export function waitLine(w: WaitEvent, resource: string | undefined): string {
  const who = resource ?? `${w.method} ${w.path}`;
  const left = `; it may wait ${seconds(w.leftMs)} more`;
  switch (w.kind) {
    case "pacing":
      return `neon-auth: ${who} waits its turn under Neon's rate limit (pacing), about ${seconds(w.waitMs)}${left} (${SETTING.rateLimitTimeout})`;
    case "rate-limit":
      return `neon-auth: ${who} waits after a 429 from Neon (rate limit: the account's budget is spent, other stacks or tools use it too), ${seconds(w.waitMs)}${left} (${SETTING.rateLimitTimeout})`;
    case "lock":
      return `neon-auth: ${who} waits: the project is locked by another operation (423), retrying in ${seconds(w.waitMs)}${left} (${SETTING.lockTimeout})`;
    case "operation":
      return `neon-auth: ${who} waits for Neon operation ${w.requestId} to finish, next look in ${seconds(w.waitMs)}${left}`;
  }
}
