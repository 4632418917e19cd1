/** The request log and counters. Entries never hold an API key (only its label) nor any body. */

export interface RequestLogEntry {
  method: string;
  /** Path as requested, without the query string. */
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
}

export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private byStatus: Record<string, number> = {};
  private byRoute: Record<string, number> = {};
  private total = 0;

  constructor(private readonly limit = 10_000) {}

  add(e: RequestLogEntry): void {
    this.entries.push(e);
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
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
    this.byStatus = {};
    this.byRoute = {};
    this.total = 0;
    return n;
  }

  stats() {
    return { total: this.total, byStatus: { ...this.byStatus }, byRoute: { ...this.byRoute } };
  }
}
