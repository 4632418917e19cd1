/**
 * Convergence of creates whose answer may have been lost (shared by the resources).
 */
import { isConflict, mayHaveActed } from "../client";

/**
 * Creates an object through a POST, which the client does not replay once the request may have
 * reached the server (an answer lost, or a connection reset after sending: the client cannot
 * tell the two apart). After such a failure:
 *
 * - with `find` (objects with a natural key): the object is looked up. Found: the earlier
 *   attempt acted, and the caller takes it over (`{ found }`). Absent: the server did not act,
 *   so asking again cannot make a second one. A 409 on a later attempt means an earlier one
 *   acted after all; it is looked up once more.
 * - without `find` (a new SDK key set, a transfer URL): asking again is harmless; what the lost
 *   attempt made was never seen by anyone.
 *
 * At most `attempts` POSTs (default 5); every other error is thrown as it is.
 */
export async function createConverging<C, F>(opts: {
  create: () => Promise<C>;
  find?: () => Promise<F | undefined>;
  attempts?: number;
}): Promise<{ created: C; found?: undefined } | { found: F; created?: undefined }> {
  const attempts = opts.attempts ?? 5;
  let lost = false;
  for (let attempt = 1; ; attempt++) {
    try {
      return { created: await opts.create() };
    } catch (err) {
      const conflictAfterLoss = lost && isConflict(err);
      if (!mayHaveActed(err) && !conflictAfterLoss) throw err;
      if (opts.find) {
        const found = await opts.find();
        if (found !== undefined) return { found };
        if (conflictAfterLoss) throw err;
      }
      if (attempt >= attempts) throw err;
      lost = true;
    }
  }
}
