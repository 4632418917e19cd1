/**
 * The reads a provider process shares (provider/context.ts): one request for concurrent reads of
 * a list, reused for a moment, and forgotten by the client's own writes in that scope, which the
 * client reports by itself (no call site resets anything).
 */
import { describe, expect, it, vi } from "vitest";
import { ManualClock } from "../../src/clock";
import { Reads } from "../../src/provider/context";

function setup() {
  const clock = new ManualClock();
  const reads = new Reads(clock);
  let n = 0;
  const load = vi.fn(async () => ++n);
  return { clock, reads, load };
}

describe("reads shared by a run", () => {
  it("one request for concurrent reads, reused until the TTL, then read again", async () => {
    const { clock, reads, load } = setup();
    expect(await Promise.all([reads.get("p-1", "domains", load), reads.get("p-1", "domains", load)])).toEqual([1, 1]);
    await clock.advance(Reads.TTL_MS - 1);
    expect(await reads.get("p-1", "domains", load)).toBe(1);
    await clock.advance(1);
    expect(await reads.get("p-1", "domains", load)).toBe(2);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("a write in a scope forgets that scope's reads only; a branch is its own scope", async () => {
    const { reads, load } = setup();
    await reads.get("p-1", "domains", load);
    await reads.get("p-1/br-1", "domains", load);
    await reads.get("p-2", "domains", load);
    reads.written({ projectId: "p-1", branchId: undefined, created: false });
    expect(await reads.get("p-1", "domains", load)).toBe(4);
    expect(await reads.get("p-1/br-1", "domains", load)).toBe(2);
    expect(await reads.get("p-2", "domains", load)).toBe(3);
    reads.written({ projectId: "p-1", branchId: "br-1", created: false });
    expect(await reads.get("p-1/br-1", "domains", load)).toBe(5);
  });

  it("after a create only a read-before-create of another object may reuse the list", async () => {
    const { reads, load } = setup();
    await reads.get("p-1", "domains", load);
    reads.written({ projectId: "p-1", branchId: undefined, created: true });
    expect(await reads.get("p-1", "domains", load, "beforeCreate")).toBe(1);
    expect(await reads.get("p-1", "domains", load)).toBe(2);
  });

  it("a read before a create serves the creates of other objects for BEFORE_CREATE_TTL_MS, a plain read for TTL_MS", async () => {
    const { clock, reads, load } = setup();
    expect(Reads.BEFORE_CREATE_TTL_MS).toBe(8571);
    expect(await reads.get("p-1", "domains", load, "beforeCreate")).toBe(1);
    reads.written({ projectId: "p-1", branchId: undefined, created: true });
    await clock.advance(Reads.BEFORE_CREATE_TTL_MS - 1);
    expect(await reads.get("p-1", "domains", load, "beforeCreate")).toBe(1);
    await clock.advance(1);
    expect(await reads.get("p-1", "domains", load, "beforeCreate")).toBe(2);
    await clock.advance(Reads.TTL_MS);
    expect(await reads.get("p-1", "domains", load)).toBe(3);
    // A delete (any write but a create) forgets the list for reads before creates too.
    reads.written({ projectId: "p-1", branchId: undefined, created: false });
    expect(await reads.get("p-1", "domains", load, "beforeCreate")).toBe(4);
  });

  it("a failed read is not kept", async () => {
    const { reads } = setup();
    await expect(reads.get("p-1", "auth", () => Promise.reject(new Error("404")))).rejects.toThrow("404");
    expect(await reads.get("p-1", "auth", async () => "ok")).toBe("ok");
  });
});
