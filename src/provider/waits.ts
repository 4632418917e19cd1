/**
 * Waits made visible (issue 26): when a request of this provider process waits after a 429 or for
 * a locked project (423), or waits for the pacing or for a long-running operation long enough to
 * take it past about 2 seconds, one line says which resource waits, for what, and how long it may
 * still wait. The client reports every wait through its one hook (ClientOptions.onWait); this
 * module decides what is worth a line.
 *
 * Where the line goes: a dynamic provider's methods get no URN (pulumi/pulumi#9434), so the line
 * cannot be attached to the resource's row of the progress display; it names the resource in its
 * text instead. It goes to the log the face gives (log.ts), as the users_sync notice does: a
 * diagnostic of the update, an engine event, printed in the output.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { WaitEvent, WaitKind } from "../client";
import { SETTING } from "./settings";
import { info } from "./log";

/** The resource a provider method works on, for the lines of the requests it makes. */
const current = new AsyncLocalStorage<string>();

/** Runs `fn` with `label` as the resource its requests wait for. */
export function forResource<R>(label: string, fn: () => Promise<R>): Promise<R> {
  return current.run(label, fn);
}

/** The resource the provider method under way works on (`forResource`), if any. */
export function currentResource(): string | undefined {
  return current.getStore();
}

/** A pacing or operation wait shorter than this, in a request under way for less, is not worth a line. */
const VISIBLE_MS = 2_000;
/** At most one line per kind of wait in this long: a paced run of 300 domains says so a few times, not 300. */
const EVERY_MS = 2_000;
const lastLine = new Map<WaitKind, number>();


export function onWait(w: WaitEvent, now = Date.now()): void {
  // Pacing and operations are the normal course of a run: worth a line once they take a while.
  // A 429 or a 423 means someone else spends the account's budget or holds the project: always.
  const routine = w.kind === "pacing" || w.kind === "operation";
  if (routine && w.waitedMs + w.waitMs < VISIBLE_MS) return;
  const last = lastLine.get(w.kind);
  if (last !== undefined && now - last < EVERY_MS) return;
  lastLine.set(w.kind, now);
  info(waitLine(w, current.getStore()));
}

function seconds(ms: number): string {
  if (ms < 59_950) return `${(ms / 1000).toFixed(1)} s`;
  const total = Math.round(ms / 1000);
  const m = Math.floor(total / 60);
  const s = total % 60;
  return s === 0 ? `${m} min` : `${m} min ${s} s`;
}

/** One line: who waits, for what, about how long, and the most it may still wait. */
export function waitLine(w: WaitEvent, resource: string | undefined): string {
  const who = resource ?? `${w.method} ${w.path}`;
  const left = `; it may wait ${seconds(w.leftMs)} more`;
  // Each retry says which it is: a line that only repeated the wait would read as one stuck wait.
  const retry = `retrying in ${seconds(w.waitMs)}${w.attempt ? ` (attempt ${w.attempt.next} of ${w.attempt.of})` : ""}`;
  switch (w.kind) {
    case "pacing":
      return `neon-auth: ${who} waits its turn under Neon's rate limit (pacing), about ${seconds(w.waitMs)}${left} (${SETTING.rateLimitTimeout})`;
    case "rate-limit":
      return `neon-auth: ${who} waits after a 429 from Neon (rate limit: the account's budget is spent, other stacks or tools use it too), ${retry}${left} (${SETTING.rateLimitTimeout})`;
    case "lock":
      return `neon-auth: ${who} waits: the project is locked by another operation (423), ${retry}${left} (${SETTING.lockTimeout})`;
    case "operation":
      return `neon-auth: ${who} waits for Neon operation ${w.requestId} to finish, next look in ${seconds(w.waitMs)}${left}`;
  }
}
