/**
 * Creates whose answer may have been lost, and who owns what they find (shared by the resources).
 *
 * The rule of ownership: a create takes over an object only when that object was absent before
 * its first attempt. An object that existed before (made in the console, by another stack, or by
 * a run of this stack that was killed) is someone else's until the program says `adopt: true`;
 * the error is the same whether the service answered 409 or an ambiguous failure hid the answer.
 */
import { isConflict, mayHaveActed } from "../client";

/** @internal The error of `notOwned`: the plugin, which knows the resource's name, adds the exact `pulumi import` (plugin/server.ts). */
export class NotOwnedError extends Error {}

/**
 * The one error of an object that exists and is not this stack's: names it, says why it is not
 * taken over, and the ways out. First `aliases`: the likeliest owner of an object that exists is
 * this very stack under another name (a resource renamed, or moved into a component), and adopting
 * it then would leave the old resource's delete to follow. Then `adopt: true`, or removing it at Neon.
 */
export function notOwned(object: string, how: { adopt?: string; extra?: string } = {}): Error {
  const adopt = how.adopt ?? "set `adopt: true` on this resource to take it over on purpose (this stack then updates it and deletes it on destroy)";
  return new NotOwnedError(
    `${object} already exists and was not made by this stack under this name. If this stack declares it under another name ` +
      "(a resource renamed, or moved into or out of a component), give this resource `aliases` naming the old one: it keeps the " +
      'object, with no request (README, "Renaming resources"). Otherwise it was made outside this stack (in the console, by another ' +
      `stack, or by a run of this stack that was killed) and is not taken over silently: ${adopt}; or delete it at Neon first` +
      `${how.extra === undefined ? "" : `; ${how.extra}`}.`,
  );
}

/**
 * Creates an object through a POST, which the client does not replay once the request may have
 * reached the server (an answer lost, or a connection reset after sending: the client cannot
 * tell the two apart). Without `find` (a new SDK key set, a transfer URL) asking again is
 * harmless: what a lost attempt made was never seen by anyone, and nothing can be taken over.
 *
 * With `find` (objects with a natural key), ownership is decided by what existed before:
 * - `find` is asked once before the first POST, with `fresh` false: a list this run read a few
 *   seconds ago for a sibling serves (60 domains made at once read their list once, not 60 times;
 *   how long, and what that costs, at `Reads.BEFORE_CREATE_TTL_MS`). Where the service refuses a
 *   second object of the key (an integration, a provider id) an object made since that read makes
 *   our POST answer 409, which is refused below. An object found there is not ours: with `adopt`
 *   it is returned as `{ adopted }` (no POST), otherwise `notOwned` (no POST either: the service
 *   would answer 409).
 * - After an ambiguous failure, or a 409 on a later attempt (an earlier one acted after all), `find`
 *   is asked with `fresh` true (it must see what our own attempt did), and an object found is the
 *   one our attempt made (`{ found }`); absent, the server did not act and
 *   the POST is sent again. A 409 on the first attempt is someone who made it since the read.
 * - When the read before could not be made (`find` threw, say users without read-back), the
 *   first attempt decides alone, and an ambiguous failure is `undecidable`'s error.
 *
 * At most `attempts` POSTs (default 5); every other error is thrown as it is.
 */
export async function createOwned<C, F>(opts: {
  create: () => Promise<C>;
  find?: (fresh: boolean) => Promise<F | undefined>;
  /** The object in words, for `notOwned` (`RedirectDomain https://a.example.com of project p-1`). */
  object?: string;
  adopt?: boolean;
  /**
   * An object found before that the service made by itself (Neon's defaults of a new integration,
   * such as its shared Google sign-in) is nobody's: it is taken over as if adopted, and the caller
   * makes it what the program declares.
   */
  nobodys?: (found: F) => boolean;
  /** The error when `find` could not read before and an attempt failed ambiguously. */
  undecidable?: (err: unknown) => Error;
  /** Ways out beyond adopting, said in the error. */
  how?: Parameters<typeof notOwned>[1];
  attempts?: number;
}): Promise<{ created: C; found?: undefined; adopted?: undefined } | { found: F; created?: undefined; adopted: boolean }> {
  const attempts = opts.attempts ?? 5;
  const refuse = () => notOwned(opts.object ?? "The object", opts.how);
  let knownAbsent = opts.find === undefined;
  if (opts.find) {
    let before: F | undefined;
    try {
      before = await opts.find(false);
      knownAbsent = before === undefined;
    } catch (err) {
      if (opts.undecidable === undefined) throw err;
    }
    if (before !== undefined) {
      if (opts.adopt || opts.nobodys?.(before)) return { found: before, adopted: true };
      throw refuse();
    }
  }
  let lost = false;
  for (let attempt = 1; ; attempt++) {
    try {
      return { created: await opts.create() };
    } catch (err) {
      if (isConflict(err) && !lost) {
        // Made by someone else between our read and our POST (or never read: a first-try 409).
        if (!opts.find) throw err;
        if (opts.adopt) {
          const existing = await opts.find(true);
          if (existing !== undefined) return { found: existing, adopted: true };
          throw err;
        }
        throw refuse();
      }
      if (!mayHaveActed(err) && !(lost && isConflict(err))) throw err;
      if (opts.find) {
        if (!knownAbsent) throw opts.undecidable!(err);
        const found = await opts.find(true);
        if (found !== undefined) return { found, adopted: false };
        if (isConflict(err)) throw err;
      }
      if (attempt >= attempts) throw err;
      lost = true;
    }
  }
}
