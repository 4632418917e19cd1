/**
 * A user's terminal session, for the tests that run documented commands as written
 * (readme.test.ts, release.test.ts): a script of blocks (test/readme-blocks.ts, `sessionScript`)
 * run by bash in a new home with only the environment given, then the Pulumi CLI in the folder it
 * ended in, with the Pulumi settings it exported; and its end: every stack there destroyed, the
 * jobs it left running (an emulator) stopped.
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";

export interface Session {
  code: number;
  out: string;
  /** The folder the last block left the session in. */
  cwd?: string;
  env: Record<string, string>;
  /** The process groups to stop at the end: the session's own, and one per job it left running. */
  groups: number[];
}

/**
 * A port free now, below the range the system hands out for port 0 (32768 and up here): a session
 * starts its emulator on it only after installing packages, and meanwhile any process asking for
 * any port (a Pulumi plugin's gRPC server) could be given one from that range (it happened:
 * EADDRINUSE). Below it, only a caller naming the port can take it.
 */
export async function freePort(): Promise<number> {
  for (let i = 0; ; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = net.createServer();
    const ok = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => resolve(true));
    });
    if (ok) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
    if (i === 50) throw new Error("no free port below 32000 after 50 tries");
  }
}

/** Runs `script` with bash from `home`/work, HOME being `home`; `env` is the whole environment. */
export async function runSession(home: string, script: string, env: Record<string, string>): Promise<Session> {
  fs.mkdirSync(path.join(home, "work"), { recursive: true });
  fs.writeFileSync(path.join(home, "session.sh"), script);
  const all: Record<string, string> = { ...env, HOME: home };
  // A process group of its own, stopped at the end with whatever it started.
  const proc = spawn("bash", [path.join(home, "session.sh")], { cwd: path.join(home, "work"), env: all, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (out += d));
  const code = await new Promise<number>((resolve) => proc.on("exit", (c) => resolve(c ?? -1)));
  const cwd = /^::cwd (.*)$/m.exec(out)?.[1];
  const exported = path.join(home, "session.env");
  if (fs.existsSync(exported)) {
    for (const line of fs.readFileSync(exported, "utf8").split("\n")) {
      const eq = line.indexOf("=");
      if (eq > 0) all[line.slice(0, eq)] = line.slice(eq + 1);
    }
  }
  const jobs = path.join(home, "jobs.pids");
  const groups = fs.existsSync(jobs) ? fs.readFileSync(jobs, "utf8").split("\n").filter((l) => /^\d+$/.test(l)).map(Number) : [];
  return { code, out, ...(cwd ? { cwd } : {}), env: all, groups: [proc.pid!, ...groups] };
}

/** Runs the Pulumi CLI in the session's last folder, with its environment. */
export const sessionPulumi = (s: Session, ...args: string[]): string =>
  execFileSync("pulumi", args, { cwd: s.cwd, env: s.env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 });

/** The stacks in the session's last folder (none when it has no project). */
export const stacksOf = (s: Session): { name: string; current: boolean }[] =>
  s.cwd && fs.existsSync(path.join(s.cwd, "Pulumi.yaml")) ? (JSON.parse(sessionPulumi(s, "stack", "ls", "--json")) as { name: string; current: boolean }[]) : [];

/** The stack the session ended in: the one selected there, else its only one. */
export function lastStack(s: Session): string | undefined {
  const stacks = stacksOf(s);
  return (stacks.find((t) => t.current) ?? (stacks.length === 1 ? stacks[0] : undefined))?.name;
}

/** No changes on a second preview and on a refresh of the stack the session ended in. */
export function expectNoChanges(s: Session, stack: string, expectMatch: (out: string) => void): void {
  expectMatch(sessionPulumi(s, "preview", "--expect-no-changes", "--color", "never", "--stack", stack));
  expectMatch(sessionPulumi(s, "refresh", "--yes", "--expect-no-changes", "--color", "never", "--stack", stack));
}

/** Stacks the session made in its last folder: unprotected and destroyed; then its processes stop. */
export function endSession(s: Session | undefined): void {
  if (!s) return;
  try {
    for (const { name } of stacksOf(s)) {
      sessionPulumi(s, "state", "unprotect", "--all", "--yes", "--stack", name);
      sessionPulumi(s, "destroy", "--yes", "--remove", "--stack", name);
    }
  } finally {
    for (const group of s.groups) {
      try {
        process.kill(-group, "SIGTERM");
      } catch {
        // Already gone.
      }
    }
  }
}
