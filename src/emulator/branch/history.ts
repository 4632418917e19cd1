/**
 * What a root branch's Neon Auth was at earlier times, for instant restore (restore.ts). Neon keeps
 * a branch's whole write-ahead log for its history window and can rebuild any moment of it; the
 * emulator keeps far less, and says so: after every change to the state it compares each root
 * branch's integration record and `neon_auth` users with the last version it kept, and keeps a new
 * timestamped version when they differ. The state at time T is the last version kept at or before
 * T. Bounded: the newest `HISTORY_VERSIONS` per branch; a time before the oldest one kept is
 * refused as outside the history.
 *
 * Only root branches keep versions: Neon restores to a point in time from root branches only
 * (https://neon.com/docs/postgres/backup-restore/branch-restore, "Limitations"). Users changed by
 * SQL become a version when the emulator next copies the table into the state (any API call that
 * reads the users, a control dump, a branching, a database stop), stamped with that time.
 */
import type { AuthBranchRec, AuthVersion, BranchAuthRec, BranchUserRec } from "./kit";
import type { Store } from "../core/store";

/** How many versions a branch keeps (the oldest go first). */
export const HISTORY_VERSIONS = 50;

/** The last version's text, so that an unchanged branch costs one stringify per change. */
const lastText = new WeakMap<AuthBranchRec, string>();

function textOf(auth: BranchAuthRec | null | undefined, neonAuth: { users: BranchUserRec[] } | null | undefined): string {
  return JSON.stringify([auth ?? null, neonAuth ?? null]);
}

/** Keeps a version of every root branch whose Neon Auth changed since its last one (a store listener). */
export function recordHistory(store: Store): void {
  const now = store.now();
  for (const project of Object.values(store.data.projects)) {
    for (const b of project.branches as AuthBranchRec[]) {
      if (b.parent_id !== undefined) continue;
      const text = textOf(b.auth, b.neon_auth);
      const history = (b.auth_history ??= []);
      const last = history.at(-1);
      const before = lastText.get(b) ?? (last === undefined ? undefined : textOf(last.auth, last.neon_auth));
      if (text === before) continue;
      lastText.set(b, text);
      const [auth, neonAuth] = JSON.parse(text) as [AuthVersion["auth"], AuthVersion["neon_auth"]];
      // Two changes in one millisecond: the later one is what that instant shows.
      if (last !== undefined && last.at_ms === now) history.pop();
      history.push({ at_ms: now, auth, neon_auth: neonAuth });
      if (history.length > HISTORY_VERSIONS) history.splice(0, history.length - HISTORY_VERSIONS);
    }
  }
}

/** The version in effect at `at` (epoch ms), or undefined when it is older than every version kept. */
export function versionAt(branch: AuthBranchRec, at: number): AuthVersion | undefined {
  const history = branch.auth_history ?? [];
  let found: AuthVersion | undefined;
  for (const v of history) {
    if (v.at_ms > at) break;
    found = v;
  }
  return found;
}

/** Since when the branch's history reaches back (undefined: nothing kept yet). */
export function historyStart(branch: AuthBranchRec): number | undefined {
  return branch.auth_history?.[0]?.at_ms;
}
