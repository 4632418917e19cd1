/** The bench's result as markdown tables (bench/out/bench.md, and DEVELOPMENT.md's performance section). */

export interface OpRow {
  /** The TypeScript classes (dynamic provider) or the provider plugin through a YAML program. */
  face?: string;
  generation: string;
  n: number;
  /** Dynamic resources: the integration and the N domains. */
  resources: number;
  op: string;
  parallel: string;
  ok: boolean;
  wallS: number;
  cpuS: number | null;
  /** max(0, resources - burst) × 60/perMinute: one request per resource at the service's limit. */
  floorS: number;
  /** The do-nothing provider's wall time for the same command on a stack of the same shape. */
  noopS: number | null;
  /** The best any provider could do (up: the engine's start + floor + tail, or the no-op up). */
  boundS: number | null;
  requests: number;
  deleteDomainRequests: number;
  status429: number;
  failedResources: number;
  surfaced429: number;
}

export interface Result {
  date: string;
  machine: Record<string, unknown>;
  limits: { perMinute: number; burst: number };
  rows: OpRow[];
  memory: Array<{ face?: string; generation: string; n: number; providerPeakMiB: number | null; noopPeakMiB: number | null }>;
  state: Array<{ face?: string; generation: string; n: number; bytesPerResource: number; domainEntryBytes: number; noopBytesPerResource: number; noopEntryBytes: number; providerBytesPerResource: number }>;
  benchWallS: number;
}

export function fmt(x: number | null | undefined, digits = 1): string {
  return x === null || x === undefined ? "—" : x.toFixed(digits);
}

export function markdownTable(head: string[], body: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |\n`;
  return line(head) + line(widths.map((w) => "-".repeat(w))) + body.map(line).join("");
}

export function report(r: Result): string {
  let out = `Bench of ${r.date} (${JSON.stringify(r.machine)}); emulator at ${r.limits.perMinute}/min, burst ${r.limits.burst}.\n\n`;
  out += markdownTable(
    ["face", "generation", "N", "op", "parallel", "wall s", "floor s", "do-nothing s", "bound s", "wall/bound", "requests", "DELETE domains", "429s", "failed"],
    r.rows.map((t) => [
      t.face ?? "classes",
      t.generation,
      String(t.n),
      t.op,
      t.parallel,
      fmt(t.wallS, 2),
      fmt(t.floorS, 2),
      fmt(t.noopS, 2),
      fmt(t.boundS, 2),
      t.boundS ? fmt(t.wallS / t.boundS, 2) : "—",
      `${t.requests}${t.op === "refresh" ? ` (${fmt(t.requests / t.resources, 3)}/res.)` : ""}`,
      t.op.startsWith("destroy") ? String(t.deleteDomainRequests) : "",
      `${t.status429}${t.surfaced429 ? ` (${t.surfaced429} surfaced)` : ""}`,
      `${t.failedResources}${t.ok ? "" : " FAILED"}`,
    ]),
  );
  out +=
    "\nfloor = max(0, R − burst) × 60/perMinute s for R = one request per resource (the integration and N domains).\n" +
    "do-nothing = the same command on bench/noop-stack (as many dynamic resources, same shape, a provider that makes no\n" +
    "request). bound = for up, the larger of the no-op up and (its first create + floor + its tail); for destroy, refresh\n" +
    "and preview, the no-op command itself. preview: median of 5, interleaved with the no-op stack's, whose resources\n" +
    "then take the generation's place (a branch's also its branch).\n" +
    "face: classes = the TypeScript program (bench/domains-stack) on the dynamic provider; plugin = the same resources\n" +
    "in a YAML program on the provider plugin (scripts/bench/plugin.mts). Both against the same do-nothing stack and bound.\n" +
    "Peak MiB: VmHWM of the provider process during the up (dynamic provider, or plugin). __provider: none on the plugin.\n\n";
  out += markdownTable(
    ["face", "generation", "N", "provider peak MiB (up)", "do-nothing peak MiB", "state B/resource", "do-nothing B/resource", "domain entry B", "do-nothing entry B", "__provider B/resource"],
    r.memory.map((m) => {
      const s = r.state.find((x) => (x.face ?? "classes") === (m.face ?? "classes") && x.generation === m.generation && x.n === m.n);
      return [
        m.face ?? "classes",
        m.generation,
        String(m.n),
        fmt(m.providerPeakMiB),
        fmt(m.noopPeakMiB),
        s ? String(s.bytesPerResource) : "—",
        s ? String(s.noopBytesPerResource) : "—",
        s ? String(s.domainEntryBytes) : "—",
        s ? String(s.noopEntryBytes) : "—",
        s ? String(s.providerBytesPerResource) : "—",
      ];
    }),
  );
  return out;
}
