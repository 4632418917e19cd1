/**
 * Waiting for the long-running operations a write starts (project and branch creation): polls each
 * until it is finished, skipped or cancelled, with a growing pause, against one time bound.
 */
import type { Clock } from "../clock";
import { TERMINAL_OPERATION_STATUSES, type Operation } from "../schemas";
import { NeonOperationError, NeonTimeoutError } from "./errors";
import type { WaitEvent } from "./options";
import { redactText, serverText } from "./redact";

export interface OperationPoller {
  clock: Clock;
  /** Bound of one poll. */
  deadlineMs: number;
  apiKey: string;
  /** Reads one operation, the poll bounded by `deadlineMs`. */
  getOperation(projectId: string, operationId: string, deadlineMs: number): Promise<Operation>;
  /** Told of each pause before the next poll. */
  onWait?: ((wait: WaitEvent) => void) | undefined;
}

/** Waits for every operation in turn; throws NeonOperationError for a failed one or when `timeoutMs` passes. */
export async function waitForOperations(poller: OperationPoller, operations: readonly Operation[], timeoutMs: number): Promise<void> {
  const { clock } = poller;
  const started = clock.now();
  const until = started + timeoutMs;
  // One after the other: the service runs a project's operations in order anyway.
  for (const first of operations) {
    let op = first;
    let delay = 250;
    for (;;) {
      if (TERMINAL_OPERATION_STATUSES.includes(op.status)) break;
      if (op.status === "error" || op.status === "failed") {
        throw new NeonOperationError({
          operationId: op.id,
          projectId: op.project_id,
          action: op.action,
          status: op.status,
          timedOut: false,
          ...(op.error ? { detail: redactText(serverText(op.error, 1000), [poller.apiKey]) } : {}),
        });
      }
      const left = until - clock.now();
      if (left <= 0) {
        throw new NeonOperationError({
          operationId: op.id,
          projectId: op.project_id,
          action: op.action,
          status: op.status,
          timedOut: true,
          detail: `${timeoutMs} ms`,
        });
      }
      const pause = Math.min(delay, left);
      const path = `/projects/${op.project_id}/operations/${op.id}`;
      try {
        poller.onWait?.({ kind: "operation", method: "GET", path, requestId: op.id, waitMs: pause, waitedMs: clock.now() - started, leftMs: left });
      } catch {
        // An observer's failure is not the wait's.
      }
      await clock.sleep(pause);
      delay = Math.min(delay * 2, 5_000);
      const remaining = until - clock.now();
      if (remaining <= 0) continue; // reported as a timeout by the next turn
      try {
        op = await poller.getOperation(op.project_id, op.id, Math.min(poller.deadlineMs, remaining));
      } catch (e) {
        if (e instanceof NeonTimeoutError) continue;
        throw e;
      }
    }
  }
}
