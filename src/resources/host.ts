/**
 * Two things the dynamic-provider host of `@pulumi/pulumi` (`cmd/dynamic-provider/index.js`,
 * 3.259) does not let a dynamic provider say, and how the package says them anyway, in the
 * provider process only. Each adjustment is installed only when the loaded host's source shows
 * exactly the line it relies on; with another host, results and errors go out as before.
 *
 * 1. The changed fields of a diff, so that `pulumi preview --diff` and `up --diff` name them
 *    (`~ clientSecret: [secret] => [secret]`). The host's Diff RPC copies only `changes`,
 *    `replaces` and `deleteBeforeReplace` of the result into the `DiffResponse`: `DiffResult` has no
 *    field for the changed properties (`diffs`) or the detailed diff (`detailedDiff`,
 *    `hasDetailedDiff`), and the host never sets them. The CLI then finds the changes itself by
 *    comparing old and new properties after masking every secret as `[secret]`: two different
 *    secrets compare equal, so a rotated client secret, SMTP password or anything in a secret
 *    `webhooks` showed as `(update)` with no field at all. The host passes a truthy
 *    `result.deleteBeforeReplace` as it is to the response's `setDeletebeforereplace`; that setter,
 *    on the host's own `DiffResponse` class, is wrapped: given a `DiffDetail` (a truthy object
 *    carrying the real flag and the changed paths), it sets the flag, the changed keys and the
 *    detailed diff.
 * 2. An error once, without a stack trace. For check, diff, read and delete the host both
 *    returns the error to the engine (which reports it with its resource) and prints
 *    `${err}: ${err.stack}` on the process's stderr, which the CLI shows too: a wrong key on
 *    `refresh` came out as the message, its stack trace, and the message again. `console.error` is
 *    wrapped to drop exactly those printed forms of the errors this package throws (`reported`),
 *    nothing else.
 * 3. The resource's last inputs in a diff, where its old outputs hold a placeholder an import
 *    wrote (provider/placeholders.ts): the host passes the provider the old outputs alone, and the
 *    secret the program gave since is recorded in the inputs only (an unchanged resource keeps its
 *    outputs). Without them a placeholder would stand for every later value and hide its changes.
 *    The host's `DiffRequest.getOlds` is wrapped to add them under `RECORDED_INPUTS`, for such
 *    olds only. The engine checks a resource before its diff, which loads this module first.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import type { FieldsDiff, PropertyChange } from "../provider/diff";
import { placeholdersIn } from "../provider/placeholders";

const BRAND = Symbol.for("pulumi-neon-auth.diffDetail");

interface DiffDetail {
  [BRAND]: Record<string, PropertyChange>;
  deleteBeforeReplace: boolean;
}

/** The host's line this relies on; if it changes, nothing is installed. */
const PASS_THROUGH = "resp.setDeletebeforereplace(result.deleteBeforeReplace)";
const HOST = /[\\/]@pulumi[\\/]pulumi[\\/]cmd[\\/]dynamic-provider[\\/]index\.js$/;

let installed: boolean | undefined;

/** The loaded host's file name and source; undefined outside the dynamic-provider process. */
function hostSource(): { filename: string; source: string } | undefined {
  const host = Object.values(require.cache).find((m) => m !== undefined && HOST.test(m.filename));
  return host && { filename: host.filename, source: fs.readFileSync(host.filename, "utf8") };
}

/** Wraps the host's DiffResponse setter once; whether the detail can reach the engine. */
function install(): boolean {
  if (installed !== undefined) return installed;
  installed = false;
  try {
    const host = hostSource();
    if (host === undefined || !host.source.includes(PASS_THROUGH)) return false;
    const proto = require.cache[path.join(path.dirname(host.filename), "..", "..", "proto", "provider_pb.js")]?.exports;
    const DiffResponse = proto?.DiffResponse;
    const PropertyDiff = proto?.PropertyDiff;
    const kinds = PropertyDiff?.Kind;
    const p = DiffResponse?.prototype;
    if (!p || !kinds || ![p.setDeletebeforereplace, p.setDiffsList, p.getDetaileddiffMap, p.setHasdetaileddiff].every((f) => typeof f === "function")) {
      return false;
    }
    const kindOf: Record<PropertyChange, number> = {
      add: kinds.ADD,
      addReplace: kinds.ADD_REPLACE,
      delete: kinds.DELETE,
      deleteReplace: kinds.DELETE_REPLACE,
      update: kinds.UPDATE,
      updateReplace: kinds.UPDATE_REPLACE,
    };
    const original = p.setDeletebeforereplace;
    p.setDeletebeforereplace = function (this: any, value: unknown) {
      const detail = (value as DiffDetail | undefined)?.[BRAND];
      if (detail === undefined) return original.call(this, value);
      const map = this.getDetaileddiffMap();
      for (const [property, change] of Object.entries(detail)) {
        const d = new PropertyDiff();
        d.setKind(kindOf[change]);
        // Compared with the old inputs: every field diffed is an input.
        d.setInputdiff(true);
        map.set(property, d);
      }
      this.setDiffsList([...new Set(Object.keys(detail).map((k) => k.split(".")[0]!))]);
      this.setHasdetaileddiff(true);
      return original.call(this, (value as DiffDetail).deleteBeforeReplace);
    };
    installed = true;
  } catch {
    installed = false;
  }
  return installed;
}

/**
 * The diff as the host will pass it on: with the changed paths folded into `deleteBeforeReplace`
 * when the wrapper is in place, and without them otherwise.
 */
export function forEngine(diff: FieldsDiff): pulumi.dynamic.DiffResult {
  const { detailedDiff, ...rest } = diff;
  if (detailedDiff === undefined || Object.keys(detailedDiff).length === 0 || !install()) return rest;
  const carrier: DiffDetail = { [BRAND]: detailedDiff, deleteBeforeReplace: rest.deleteBeforeReplace ?? false };
  return { ...rest, deleteBeforeReplace: carrier as unknown as boolean };
}

/** Where a diff's old outputs carry the resource's last inputs (host.ts, 3). */
export const RECORDED_INPUTS = "__neonAuthRecordedInputs";
/** The host's line this relies on: the old outputs are read once, as a Struct. */
const OLDS_READ = "const olds = req.getOlds().toJavaScript();";
let recording: boolean | undefined;

/** Wraps the host's DiffRequest getter once (3). */
export function installRecordedInputs(): void {
  if (recording !== undefined) return;
  recording = false;
  try {
    const host = hostSource();
    if (host === undefined || !host.source.includes(OLDS_READ)) return;
    const p = require.cache[path.join(path.dirname(host.filename), "..", "..", "proto", "provider_pb.js")]?.exports?.DiffRequest?.prototype;
    if (!p || typeof p.getOlds !== "function" || typeof p.getOldInputs !== "function") return;
    const original = p.getOlds;
    p.getOlds = function (this: any) {
      const olds = original.call(this);
      const plain = olds?.toJavaScript?.();
      if (plain === undefined || placeholdersIn(plain).length === 0) return olds;
      const inputs = this.getOldInputs()?.toJavaScript();
      return inputs === undefined ? olds : olds.constructor.fromJavaScript({ ...plain, [RECORDED_INPUTS]: inputs });
    };
    recording = true;
  } catch {
    recording = false;
  }
}

/** The host's line that prints an error it also returns to the engine. */
const PRINTED = "console.error(`${e}: ${e.stack}`);";
/**
 * Printed forms of errors the engine reports anyway, with how many prints to drop: one error
 * object may fail several calls (a shared read), and the host prints it for each.
 */
const pending = new Map<string, number>();
let quiet: boolean | undefined;

function installQuiet(): boolean {
  if (quiet !== undefined) return quiet;
  quiet = false;
  try {
    if (!hostSource()?.source.includes(PRINTED)) return false;
    const print = console.error.bind(console);
    console.error = (...args: unknown[]) => {
      const n = args.length === 1 && typeof args[0] === "string" ? pending.get(args[0]) : undefined;
      if (n !== undefined) {
        if (n > 1) pending.set(args[0] as string, n - 1);
        else pending.delete(args[0] as string);
        return;
      }
      print(...args);
    };
    quiet = true;
  } catch {
    quiet = false;
  }
  return quiet;
}

/**
 * An error about to be returned to the engine from check, diff, read or delete: the engine
 * reports it with its resource, so the host's own print of it (with its stack trace) is dropped.
 */
export function reported<E>(e: E): E {
  if (e instanceof Error && installQuiet()) {
    const printed = `${e}: ${e.stack}`;
    pending.set(printed, (pending.get(printed) ?? 0) + 1);
    // Should the host not print it after all, the entry does not outlive the moment.
    setTimeout(() => pending.delete(printed), 5_000).unref();
  }
  return e;
}
