/**
 * The state file on disk: read without following a symlink and kept private (0600), written
 * atomically (temp file in the same folder, fsync, rename, fsync of the folder), and temp files of
 * dead writers removed at start. See "State file" in README.md.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * The state file's text, or undefined when there is none. The file holds every secret of the
 * emulated accounts: it is opened without following a symlink, and a mode wider than 0600 (say,
 * a file made by an older version under a 022 umask) is tightened before it is read.
 */
export function readPrivate(file: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") throw new Error(`state file ${file} is a symbolic link; give the path of a regular file`);
    throw e;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error(`state file ${file} is not a regular file`);
    if ((st.mode & 0o077) !== 0) fs.fchmodSync(fd, 0o600);
    return fs.readFileSync(fd, "utf8");
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A new temp file beside `file`, created exclusively (never an existing file, never through a
 * symlink) under a name nobody can guess ahead: `.<name>.<pid>.<random>.tmp`. The pid lets a
 * later start tell a live writer's file from a stale one.
 */
async function createTemp(file: string): Promise<{ tmp: string; fh: fs.promises.FileHandle }> {
  const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;
  for (let attempt = 1; ; attempt++) {
    const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(12).toString("hex")}.tmp`);
    try {
      return { tmp, fh: await fs.promises.open(tmp, flags, 0o600) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 5) throw e;
    }
  }
}

/** Temp file in the same folder + fsync + rename + fsync of the folder. */
export async function atomicWrite(file: string, text: string): Promise<void> {
  const dir = path.dirname(file);
  const { tmp, fh } = await createTemp(file);
  try {
    await fh.writeFile(text, "utf8");
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await fs.promises.rename(tmp, file);
  } catch (e) {
    await fs.promises.unlink(tmp).catch(() => undefined);
    throw e;
  }
  try {
    const dh = await fs.promises.open(dir, "r");
    try {
      await dh.sync();
    } finally {
      await dh.close();
    }
  } catch {
    /* some file systems do not allow fsync on folders */
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes temp files of dead processes left beside `file` (a live writer's are left alone). */
export function removeStaleTempFiles(file: string): void {
  const dir = path.dirname(file);
  const prefix = `.${path.basename(file)}.`;
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    if (n.startsWith(prefix) && n.endsWith(".tmp")) {
      // `.<name>.<pid>.<n>.tmp`: leave files of a live process alone.
      const pid = Number(n.slice(prefix.length).split(".")[0]);
      if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid)) continue;
      try {
        fs.unlinkSync(path.join(dir, n));
      } catch {
        /* another process may own it */
      }
    }
  }
}
