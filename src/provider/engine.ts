/**
 * The Pulumi engine that started a provider process, either face's. Should it die without stopping
 * the provider (`kill -9` of the CLI, a runner torn down), nobody would record what the provider
 * still writes: an object made then is an orphan the ownership rules later refuse, and writes wait
 * in the pacing queue for seconds. So a provider process tied to its engine starts no write once
 * the engine is gone (the client asks before each attempt of a write, ClientOptions.beforeWrite),
 * and exits as soon as it sees it (checked every half second; the timer keeps nothing alive). A
 * request in flight may still be acted on by Neon, as after any lost answer.
 *
 * The engine is the process's parent; or its grandparent when the parent is a shell that started
 * node without `exec` (a `pulumi-resource-pulumi-nodejs` shim): that shell outlives the engine,
 * and is itself handed to another parent when the engine dies. Outside a provider process (unit
 * tests, the import tools) nothing is tied and writes go as always.
 */
import * as fs from "node:fs";

let tied: { label: string; parent: number; grandparent: number | undefined } | undefined;

/** A process's parent and command name from /proc (Linux); undefined where there is none. */
function procOf(pid: number): { ppid: number; comm: string } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    return { comm: stat.slice(stat.indexOf("(") + 1, close), ppid: Number(stat.slice(close + 2).split(" ")[1]) };
  } catch {
    return undefined;
  }
}

const SHELLS = new Set(["sh", "bash", "dash", "ash", "zsh"]);

/** Whether the engine this process was tied to is gone; false when it was never tied. */
export function engineGone(): boolean {
  if (tied === undefined) return false;
  if (process.ppid !== tied.parent) return true;
  return tied.grandparent !== undefined && procOf(tied.parent)?.ppid !== tied.grandparent;
}

function stop(): never {
  process.stderr.write(`${tied!.label}: the Pulumi engine that started this provider is gone; stopping without sending anything more\n`);
  process.exit(1);
}

/** Ties this process to the engine that started it (once); `label` names the process in its last line. */
export function tieToEngine(label: string): void {
  if (tied !== undefined) return;
  const parent = process.ppid;
  const shell = procOf(parent);
  tied = { label, parent, grandparent: shell !== undefined && SHELLS.has(shell.comm) ? shell.ppid : undefined };
  setInterval(() => {
    if (engineGone()) stop();
  }, 500).unref();
}

/** ClientOptions.beforeWrite of a provider process: a write is not started once the engine is gone. */
export function beforeWrite(): void {
  if (engineGone()) stop();
}
