/**
 * Waiting for the long-running operations a write starts (project and branch creation): polls each
 * until it is finished, skipped or cancelled, with a growing pause, against one time bound.
 */
import type { Clock } from "../clock";
import { TERMINAL_OPERATION_STATUSES, type Operation } from "../schemas";
import { NeonOperationError, NeonTimeoutError } from "./errors";
import { redactText, serverText } from "./redact";

export interface OperationPoller {
  clock: Clock;
  /** Bound of one poll. */
  deadlineMs: number;
  apiKey: string;
  /** Reads one operation, the poll bounded by `deadlineMs`. */
  getOperation(projectId: string, operationId: string, deadlineMs: number): Promise<Operation>;
}

/** Waits for every operation in turn; throws NeonOperationError for a failed one or when `timeoutMs` passes. */
export async function waitForOperations(poller: OperationPoller, operations: readonly Operation[], timeoutMs: number): Promise<void> {
  const { clock } = poller;
  const until = clock.now() + timeoutMs;
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
      await clock.sleep(Math.min(delay, left));
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
