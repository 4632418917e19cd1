/**
 * The emulator's state: plain JSON-serialisable records, one owner (an API key label) per project,
 * and optional persistence to a file with atomic writes (stateFile.ts). A killed emulator leaves
 * either the previous or the next complete state file, never a half-written one.
 */
import * as path from "node:path";
import { systemClock, type Clock } from "../../clock";
import { atomicWrite, readPrivate, removeStaleTempFiles } from "./stateFile";

export const STATE_VERSION = 1;

export interface OperationRec {
  id: string;
  project_id: string;
  branch_id: string;
  action: string;
  /** Epoch milliseconds. */
  created_ms: number;
  /** Epoch milliseconds at which the operation reports `finished`. */
  finish_ms: number;
  /** The branch's `current_state` while the operation runs; absent: `init` (a branch being made). */
  branch_state?: "resetting";
}

export interface BranchRec {
  id: string;
  name: string;
  default: boolean;
  created_ms: number;
  /** The branch it was made from; absent on a root branch. */
  parent_id?: string;
  /** The last reset or restore of the branch (`last_reset_at`). */
  last_reset_ms?: number;
}

export interface UserRec {
  id: string;
  email: string;
  name: string | null;
  created_ms: number;
  /** Last change made outside the API (a control route); absent: never changed. */
  updated_ms?: number;
}

/** A deleted user as `neon_auth.users_sync` keeps it (soft delete). */
export interface DeletedUserRec extends UserRec {
  deleted_ms: number;
}

export interface OAuthProviderRec {
  id: string;
  type: "shared" | "standard";
  client_id?: string;
  client_secret?: string;
}

export type EmailServerRec =
  | { type: "shared" }
  | {
      type: "standard";
      host: string;
      port: number;
      username: string;
      password: string;
      sender_email: string;
      sender_name: string;
    };

export interface KeySetRec {
  pub_client_key: string;
  secret_server_key: string;
  created_ms: number;
}

export interface IntegrationRec {
  auth_provider: string;
  auth_provider_project_id: string;
  branch_id: string;
  db_name: string;
  role_name: string;
  created_ms: number;
  owned_by: "neon" | "user";
  transfer_status?: "initiated" | "finished";
  /** Every key set issued, oldest first (all stay valid, as at the auth provider). */
  keys: KeySetRec[];
  users: UserRec[];
  /** Deleted users, kept as the database's soft-deleted rows. */
  deleted_users?: DeletedUserRec[];
  oauth_providers: OAuthProviderRec[];
  domains: string[];
  email_server: EmailServerRec;
}

/** One JWKS URL of a project (core/jwks.ts). */
export interface JwksRec {
  id: string;
  project_id: string;
  /** The branch it is scoped to; absent: every branch. */
  branch_id?: string;
  jwks_url: string;
  provider_name: string;
  jwt_audience?: string;
  created_ms: number;
}

export interface ProjectRec {
  id: string;
  name: string;
  /** Label of the API key that created the project (never the key itself). */
  owner: string;
  created_ms: number;
  branches: BranchRec[];
  operations: OperationRec[];
  /** Keyed by auth provider. */
  integrations: Record<string, IntegrationRec>;
  /** Password of the project's database roles, made on the first `connection_uri` request. */
  db_password?: string;
  /** Its JWKS URLs, oldest first; absent in a state written before they were emulated. */
  jwks?: JwksRec[];
}

export interface TransferRec {
  code: string;
  project_id: string;
  auth_provider: string;
  auth_provider_project_id: string;
  created_ms: number;
  used: boolean;
}

export interface StateData {
  version: number;
  projects: Record<string, ProjectRec>;
  transfers: Record<string, TransferRec>;
}

export function emptyState(): StateData {
  return { version: STATE_VERSION, projects: {}, transfers: {} };
}

export interface StoreOptions {
  /** Persist to this file; absent: in memory only. */
  file?: string;
  clock?: Clock;
}

export class Store {
  data: StateData;
  readonly file: string | undefined;
  readonly clock: Clock;
  private dirty = false;
  private writing: Promise<void> | null = null;
  private writeCount = 0;
  private lastError: Error | null = null;
  /** The state as last written (or loaded): a write that would change nothing is skipped. */
  private onDisk: string | undefined;
  private readonly listeners: Array<() => void> = [];

  private constructor(data: StateData, opts: StoreOptions) {
    this.data = data;
    this.file = opts.file === undefined ? undefined : path.resolve(opts.file);
    this.clock = opts.clock ?? systemClock;
  }

  /** Opens a store, loading the state file when it exists. A corrupt file is an error, never overwritten. */
  static open(opts: StoreOptions = {}): Store {
    let data = emptyState();
    const text = opts.file === undefined ? undefined : readPrivate(opts.file);
    if (opts.file !== undefined && text !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not the parser's message: it quotes the text around the fault, which may be a secret.
        throw new Error(`state file ${opts.file} is not valid JSON`);
      }
      if (!isStateData(parsed)) throw new Error(`state file ${opts.file} is not an emulator state (version ${STATE_VERSION})`);
      data = parsed;
    }
    const store = new Store(data, opts);
    // The file holds exactly this state only when it is already written in our format.
    if (text === JSON.stringify(data, null, 1)) store.onDisk = text;
    if (store.file !== undefined) removeStaleTempFiles(store.file);
    return store;
  }

  now(): number {
    return this.clock.now();
  }

  /** Replaces the whole state (reset) and persists it. */
  replace(data: StateData): void {
    this.data = data;
    this.mutated();
  }

  /** Call after every change: schedules an atomic write (one in flight at a time, coalesced). */
  mutated(): void {
    for (const l of this.listeners) l();
    if (this.file === undefined) return;
    this.dirty = true;
    if (this.writing === null) this.writing = this.writeLoop();
  }

  /** Calls `listener` after every change (the emulated databases follow the state this way). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Resolves once every change made so far is on disk. */
  async flush(): Promise<void> {
    while (this.writing !== null) await this.writing;
    if (this.lastError) {
      const e = this.lastError;
      this.lastError = null;
      throw e;
    }
  }

  /** Number of completed state file writes (for tests and stats). */
  get writes(): number {
    return this.writeCount;
  }

  private async writeLoop(): Promise<void> {
    // First yield: the loop may finish without writing, and its `finally` must run after mutated()
    // has stored this promise, or `writing` would never return to null.
    await null;
    try {
      while (this.dirty) {
        this.dirty = false;
        const text = JSON.stringify(this.data, null, 1);
        // Writes are persisted from one place whether or not they changed anything (server.ts);
        // what is already on disk is not written again.
        if (text === this.onDisk) continue;
        try {
          await atomicWrite(this.file as string, text);
          this.onDisk = text;
          this.writeCount++;
        } catch (e) {
          this.lastError = e as Error;
          process.emitWarning(`neon-auth-emulator: could not write state file: ${(e as Error).message}`);
        }
      }
    } finally {
      this.writing = null;
    }
  }

}

function isStateData(v: unknown): v is StateData {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    o.version === STATE_VERSION &&
    typeof o.projects === "object" &&
    o.projects !== null &&
    typeof o.transfers === "object" &&
    o.transfers !== null
  );
}

/** ISO 8601 UTC without milliseconds, as Neon prints timestamps. */
export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
