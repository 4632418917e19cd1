/** A provider context over a faked client, for calling handlers directly. */
import { systemClock } from "../../src/clock";
import type { NeonClient, WriteEvent } from "../../src/client";
import { Reads, type Context } from "../../src/provider/context";
import { resolveSettings } from "../../src/provider/settings";

export function fakeContext(client: Partial<NeonClient> | Record<string, unknown>): Context & { written(w: WriteEvent): void } {
  const reads = new Reads(systemClock);
  return {
    settings: resolveSettings(() => undefined, { NEON_API_KEY: "unit-key" }),
    client: client as NeonClient,
    reads,
    clock: systemClock,
    written: (w) => reads.written(w),
  };
}
