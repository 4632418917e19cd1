/**
 * Where the suite's CPU goes, per test file: with `NEON_AUTH_CPU_LOG=FILE`, each e2e file appends
 * one line (JSON) with the CPU seconds its worker and every process it waited for used (the Pulumi
 * CLI, programs, plugins, the emulator's databases), and its wall time. A file's wall time says
 * little on 2 cores shared by 3 files; its CPU is what a change of the file gains or costs.
 */
import * as fs from "node:fs";
import { afterAll, beforeAll, expect } from "vitest";

const log = process.env.NEON_AUTH_CPU_LOG;

/** This process's CPU and that of its waited-for descendants, in seconds (/proc/self/stat: utime, stime, cutime, cstime). */
function cpu(): { self: number; children: number } {
  const fields = fs.readFileSync("/proc/self/stat", "utf8").replace(/^.*\) /, "").split(" ").map(Number);
  const tick = 100;
  return { self: (fields[11]! + fields[12]!) / tick, children: (fields[13]! + fields[14]!) / tick };
}

if (log !== undefined) {
  let start: { self: number; children: number; at: number } | undefined;
  beforeAll(() => {
    start = { ...cpu(), at: Date.now() };
  });
  afterAll(() => {
    const end = cpu();
    const file = expect.getState().testPath ?? "?";
    const line = { file: file.replace(/.*\/test\//, "test/"), self: end.self - start!.self, children: end.children - start!.children, wall: (Date.now() - start!.at) / 1000 };
    fs.appendFileSync(log, `${JSON.stringify(line)}\n`);
  });
}
