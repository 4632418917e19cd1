/**
 * One plain sentence instead of a crash deep inside a dependency (undici 8 and @pulumi/pulumi need
 * a newer Node than the one some machines still ship, and fail with messages that never say so).
 * The requirement is read from package.json's `engines`, its one home.
 */
export function assertNodeVersion(who: string, version: string = process.versions.node): void {
  const wanted = requiredNode();
  if (wanted && compare(version, wanted) < 0) {
    const err = new Error(
      `${who} needs Node.js ${wanted} or newer, but runs on Node.js ${version} (${process.execPath}). ` +
        "Put a newer node first on PATH (the one Pulumi starts programs and providers with) and run again.",
    );
    // The sentence is the whole story; a stack trace into this file would only bury it.
    err.stack = err.message;
    throw err;
  }
}

/** For a command line: the sentence on stderr, prefixed by the command, and exit 1. */
export function exitUnlessNodeVersion(command: string): void {
  try {
    assertNodeVersion("pulumi-neon-auth");
  } catch (err) {
    process.stderr.write(`${command}: ${(err as Error).message}\n`);
    process.exit(1);
  }
}

function requiredNode(): string | undefined {
  try {
    const range = (require("../package.json") as { engines?: { node?: string } }).engines?.node ?? "";
    return /(\d+\.\d+\.\d+)/.exec(range)?.[1];
  } catch {
    return undefined;
  }
}

function compare(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

