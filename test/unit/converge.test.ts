/**
 * The one ownership rule of every create (converge.ts): an object is taken over only when it was
 * absent before the first attempt, whatever the attempts answered.
 */
import { describe, expect, it, vi } from "vitest";
import { NeonApiError, NeonNetworkError } from "../../src/client";
import { createOwned } from "../../src/provider/converge";

const lost = () => new NeonNetworkError({ method: "POST", path: "/x", attempts: 1, detail: "socket hang up", mayHaveActed: true });
const conflict = () => new NeonApiError({ method: "POST", path: "/x", attempts: 1, status: 409, code: "", neonMessage: "exists", retryable: false, mayHaveActed: false });
const OBJECT = "RedirectDomain https://a.example.com of project p-1";
const REFUSED = `${OBJECT} already exists and was not made by this stack`;

/** `find` answering each value in turn, and `create` failing or answering in turn. */
function fakes(found: (string | undefined)[], created: (Error | string)[]) {
  const find = vi.fn(async () => found.shift());
  const create = vi.fn(async () => {
    const next = created.shift();
    if (next instanceof Error) throw next;
    return next;
  });
  return { find, create };
}

describe("createOwned", () => {
  it("creates when the object was absent before", async () => {
    const f = fakes([undefined], ["made"]);
    expect(await createOwned({ ...f, object: OBJECT })).toEqual({ created: "made" });
    expect(f.find).toHaveBeenCalledTimes(1);
  });

  it("refuses an object there before the first attempt, without sending it; adopts it only on purpose", async () => {
    const f = fakes(["theirs"], []);
    await expect(createOwned({ ...f, object: OBJECT })).rejects.toThrow(REFUSED);
    expect(f.create).not.toHaveBeenCalled();
    const g = fakes(["theirs"], []);
    expect(await createOwned({ ...g, object: OBJECT, adopt: true })).toEqual({ found: "theirs", adopted: true });
    expect(g.create).not.toHaveBeenCalled();
  });

  it("takes over what its own lost attempt made (absent before, there after)", async () => {
    const f = fakes([undefined, "ours"], [lost()]);
    expect(await createOwned({ ...f, object: OBJECT })).toEqual({ found: "ours", adopted: false });
    expect(f.create).toHaveBeenCalledTimes(1);
  });

  it("asks again when the lost attempt made nothing; a 409 then is its own earlier attempt", async () => {
    const f = fakes([undefined, undefined, "ours"], [lost(), conflict()]);
    expect(await createOwned({ ...f, object: OBJECT })).toEqual({ found: "ours", adopted: false });
    expect(f.create).toHaveBeenCalledTimes(2);
  });

  it("a 409 on the first attempt is someone who made it since the read: refused, or adopted on purpose", async () => {
    await expect(createOwned({ ...fakes([undefined, "theirs"], [conflict()]), object: OBJECT })).rejects.toThrow(REFUSED);
    expect(await createOwned({ ...fakes([undefined, "theirs"], [conflict()]), object: OBJECT, adopt: true })).toEqual({ found: "theirs", adopted: true });
  });

  it("when the read before fails, an ambiguous failure is undecidable, never a take-over", async () => {
    const find = vi.fn().mockRejectedValueOnce(new Error("no read-back")).mockResolvedValue("someone's");
    const create = vi.fn().mockRejectedValueOnce(lost());
    const undecidable = vi.fn(() => new Error("cannot tell"));
    await expect(createOwned({ create, find, object: OBJECT, undecidable })).rejects.toThrow("cannot tell");
    expect(find).toHaveBeenCalledTimes(1);
  });

  it("without a natural key a lost attempt is simply asked again", async () => {
    const create = vi.fn().mockRejectedValueOnce(lost()).mockResolvedValueOnce("new set");
    expect(await createOwned({ create })).toEqual({ created: "new set" });
  });
});
