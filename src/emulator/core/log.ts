/** The request log and counters. Entries never hold an API key (only its label), nor a body unless `logBodies` asks. */

export interface RequestLogEntry {
  method: string;
  /** Path as requested, without the query string; cut after 256 characters. */
  path: string;
  /** Matched route template relative to /api/v2, or null. */
  route: string | null;
  /** Status answered, or the status that was lost (fault `lost`); 0 when the socket was reset first. */
  status: number;
  /** ISO 8601 UTC with milliseconds. */
  time: string;
  duration_ms: number;
  request_id: string;
  /** Label of the API key (`key_<12 hex of sha256>`), or null when none or an unknown one was sent. */
  key: string | null;
  /** Injected fault, if any. */
  fault?: string;
  /** The request's JSON body, with `logBodies` only (it may hold secrets). */
  body?: unknown;
}

export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private sizes: number[] = [];
  private bytes = 0;
  private byStatus: Record<string, number> = {};
  private byRoute: Record<string, number> = {};
  private total = 0;

  /** Keeps at most `limit` entries and about `maxBytes` of them (oldest go first). */
  constructor(
    private readonly limit = 10_000,
    private readonly maxBytes = 4 * 1024 * 1024,
  ) {}

  add(e: RequestLogEntry): void {
    const size = JSON.stringify(e).length;
    this.entries.push(e);
    this.sizes.push(size);
    this.bytes += size;
    let drop = 0;
    while (this.entries.length - drop > this.limit || (this.bytes > this.maxBytes && this.entries.length - drop > 1)) {
      this.bytes -= this.sizes[drop]!;
      drop++;
    }
    if (drop > 0) {
      this.entries.splice(0, drop);
      this.sizes.splice(0, drop);
    }
    this.total++;
    const s = String(e.status);
    this.byStatus[s] = (this.byStatus[s] ?? 0) + 1;
    const r = `${e.method} ${e.route ?? "(no route)"}`;
    this.byRoute[r] = (this.byRoute[r] ?? 0) + 1;
  }

  list(): RequestLogEntry[] {
    return this.entries.map((e) => ({ ...e }));
  }

  clear(): number {
    const n = this.entries.length;
    this.entries = [];
    this.sizes = [];
    this.bytes = 0;
    this.byStatus = {};
    this.byRoute = {};
    this.total = 0;
    return n;
  }

  stats() {
    return { total: this.total, byStatus: { ...this.byStatus }, byRoute: { ...this.byRoute } };
  }
}
