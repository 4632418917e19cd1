/**
 * Where a command's Node CPU goes: one more preview of a stack with every Node process under the
 * CLI started with `--cpu-prof` (the program, the dynamic provider or the plugin), and a summary
 * of each profile: time by package and the heaviest frames. `BENCH_PROFILE=1 npm run bench`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { timedOp, type BenchStack } from "./stacks.mts";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** The process's script, as its profile's first frames show it (program, provider or plugin). */
  process: string;
  busyMs: number;
  byPackageMs: Record<string, number>;
  /** Inclusive ms of the heaviest frames outside Node's module loader. */
  top: Array<{ frame: string; ms: number }>;
}

const IDLE = new Set(["(idle)", "(program)", "(root)"]);

function frameName(f: CallFrame): string {
  const file = f.url.replace(/^file:\/\//, "").replace(/.*\/node_modules\//, "").replace(/.*\/programs\/[^/]+\//, "program/");
  return `${f.functionName || "(anonymous)"} ${file}:${f.lineNumber + 1}`;
}

/** The package a frame's code belongs to, or the program, or Node itself. */
function packageOf(url: string): string {
  const m = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.startsWith("node:")) return "node";
  if (url === "") return "(V8: GC, compiler)";
  return "(program)";
}

export function summarize(profile: CpuProfile, topN = 12): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const time = new Map<number, number>();
  profile.samples.forEach((id, i) => time.set(id, (time.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const inclusive = new Map<string, number>();
  const byPackage: Record<string, number> = {};
  let busy = 0;
  let script = "";
  for (const [id, us] of time) {
    const leaf = byId.get(id)!;
    if (IDLE.has(leaf.callFrame.functionName)) continue;
    busy += us;
    byPackage[packageOf(leaf.callFrame.url)] = (byPackage[packageOf(leaf.callFrame.url)] ?? 0) + us;
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      if (!script && /cmd\/(run|dynamic-provider)\/index\.js|pulumi-resource-neon-auth|plugin\/main\.js/.test(f.url)) script = f.url;
      const name = frameName(f);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + us);
    }
  }
  const ms = (us: number) => Math.round(us / 1000);
  const top = [...inclusive]
    // Frames every stack passes through (the root, the loader, the program's own top level) say nothing.
    .filter(([name]) => !/^\((root|garbage collector|anonymous)\) |node:internal\/|^(processTicksAndRejections|runMicrotasks|runProgram|m\._compile|require\.extensions)/.test(name))
    .sort((a, b) => b[1] - a[1])
    .slice(0, topN)
    .map(([frame, us]) => ({ frame, ms: ms(us) }));
  return {
    process: script.replace(/.*\/node_modules\//, "") || "(unknown)",
    busyMs: ms(busy),
    byPackageMs: Object.fromEntries(Object.entries(byPackage).sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, v]) => [k, ms(v)])),
    top,
  };
}

/** One preview of `s` with CPU profiles of its Node processes, summarized (largest process first). */
export async function profiledPreview(s: BenchStack, dir: string): Promise<ProfileSummary[]> {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const before = s.env.NODE_OPTIONS;
  s.env.NODE_OPTIONS = `${before ?? ""} --cpu-prof --cpu-prof-dir=${dir}`.trim();
  try {
    await timedOp(s, "preview");
  } finally {
    if (before === undefined) delete s.env.NODE_OPTIONS;
    else s.env.NODE_OPTIONS = before;
  }
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => summarize(JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as CpuProfile))
    // The language host's short `node -e` checks are not the command's work.
    .filter((p) => p.busyMs >= 200)
    .sort((a, b) => b.busyMs - a.busyMs);
}

export function profileReport(title: string, summaries: ProfileSummary[]): string {
  let out = `### ${title}\n\n`;
  for (const p of summaries) {
    out += `- **${p.process}**: ${p.busyMs} ms busy; by package: ${Object.entries(p.byPackageMs).map(([k, v]) => `${k} ${v}`).join(", ")}\n`;
    out += `  heaviest frames (inclusive ms): ${p.top.map((t) => `${t.frame} ${t.ms}`).join("; ")}\n`;
  }
  return `${out}\n`;
}
