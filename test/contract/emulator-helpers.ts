/** Helpers for the emulator's contract tests: plain `fetch` over real HTTP, no client library. */
import { afterAll, beforeAll, expect } from "vitest";
import { startEmulator, type EmulatorHandle, type EmulatorOptions } from "../../src/emulator";
import { ManualClock } from "../../src/clock";
import { ENDPOINTS, type AnyEndpoint } from "../../src/schemas/endpoints";
import { generalError, operation, validate } from "./openapi";

export const KEY_A = "test-key-a";
export const KEY_B = "test-key-b";
export const PROJECT = "p-contract";
export const BRANCH = "br-main-p-contract";

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when the body is empty. */
  json: any;
}

export interface Harness {
  emu: EmulatorHandle;
  api(method: string, path: string, opts?: { body?: unknown; key?: string | null; headers?: Record<string, string>; rawBody?: string }): Promise<HttpResult>;
  control(method: string, path: string, body?: unknown): Promise<HttpResult>;
  close(): Promise<void>;
}

async function toResult(res: Response): Promise<HttpResult> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text === "" ? undefined : JSON.parse(text) };
}

export async function startHarness(options: EmulatorOptions = {}): Promise<Harness> {
  // Strict: a field the client misspells fails here rather than being ignored (as Neon would).
  const emu = await startEmulator({ apiKeys: [KEY_A, KEY_B], seedProjects: [PROJECT], strict: true, ...options });
  return {
    emu,
    async api(method, path, opts = {}) {
      const headers: Record<string, string> = { accept: "application/json", ...(opts.headers ?? {}) };
      const key = opts.key === undefined ? KEY_A : opts.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      let body: string | undefined;
      if (opts.rawBody !== undefined) body = opts.rawBody;
      else if (opts.body !== undefined) body = JSON.stringify(opts.body);
      if (body !== undefined && headers["content-type"] === undefined) headers["content-type"] = "application/json";
      const r = await toResult(await fetch(emu.url + path, { method, headers, body }));
      conformsToDocument(method, path, r);
      return r;
    },
    async control(method, path, body) {
      // Control writes must be JSON; the token unlocks secrets (the tests of the guards use fetch).
      const headers: Record<string, string> = { authorization: `Bearer ${emu.controlToken}` };
      if (method !== "GET") headers["content-type"] = "application/json";
      const init: RequestInit = { method, headers };
      if (body !== undefined) init.body = JSON.stringify(body);
      return toResult(await fetch(emu.controlUrl + path, init));
    },
    close: () => emu.close(),
  };
}

/**
 * The harness of a file's tests: started (then `setUp`) before them, closed after them. Each member
 * reads the started one, so a file declares it once at its top.
 */
export function useHarness(options: EmulatorOptions, setUp?: (h: Harness) => Promise<unknown>): Harness {
  let made: Harness | undefined;
  beforeAll(async () => {
    made = await startHarness(options);
    await setUp?.(made);
  });
  afterAll(async () => {
    await made?.close();
  });
  const started = (): Harness => {
    if (made === undefined) throw new Error("useHarness: the harness starts in beforeAll, before the tests");
    return made;
  };
  return {
    get emu() {
      return started().emu;
    },
    api: (...args) => started().api(...args),
    control: (...args) => started().control(...args),
    close: () => started().close(),
  };
}

/** The table entry whose method and template match a concrete path (most literal segments win). */
function entryFor(method: string, path: string): AnyEndpoint | undefined {
  const parts = path.split("?")[0]!.split("/");
  let best: { e: AnyEndpoint; literals: number } | undefined;
  for (const e of ENDPOINTS) {
    if (e.method !== method) continue;
    const segs = e.path.split("/");
    if (segs.length !== parts.length) continue;
    if (!segs.every((seg, i) => seg.startsWith("{") || seg === parts[i])) continue;
    const literals = segs.filter((seg) => !seg.startsWith("{")).length;
    if (best === undefined || literals > best.literals) best = { e, literals };
  }
  return best?.e;
}

/**
 * Every answer the emulator gives in the contract tests to an endpoint of the table is checked
 * against Neon's OpenAPI document: a success body by the operation's schema (no body where the
 * document has none), an error body by GeneralError. Endpoints newer than the document are left
 * to their own tests (branch-helpers.ts).
 */
function conformsToDocument(method: string, path: string, r: HttpResult): void {
  const e = entryFor(method, path);
  const op = e && operation(e.method, e.path);
  if (e === undefined || op === undefined) return;
  const where = `${e.name} answered ${r.status} ${r.text.slice(0, 300)}`;
  if (r.status >= 200 && r.status < 300) {
    const shape = op.response(r.status);
    const leftOut = e.deviations.flatMap((d) => (d.kind === "response-optional" ? d.fields.map((f) => `$.${f}: is required`) : []));
    if (shape === undefined) expect(r.text, where).toBe("");
    else expect(validate(shape, r.json).filter((p) => !leftOut.includes(p)), where).toEqual([]);
  } else if (r.json !== undefined) {
    expect(validate(generalError, r.json), where).toEqual([]);
  }
}

/** The one clock of the package (src/clock.ts), stopped at a fixed start: time moves when a test advances it. */
export function manualClock(start = Date.UTC(2025, 0, 1, 12, 0, 0)): ManualClock {
  return new ManualClock(start);
}

/** Creates the stack integration on the seeded project and returns the key set. */
export async function enableAuth(h: Harness, project = PROJECT, branch = BRANCH, key = KEY_A) {
  const r = await h.api("POST", "/projects/auth/create", {
    key,
    body: { auth_provider: "stack", project_id: project, branch_id: branch },
  });
  if (r.status !== 201) throw new Error(`create integration: ${r.status} ${r.text}`);
  return r.json as Record<string, string>;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** The emulator's answer to enabling Better Auth on a branch (`POST …/branches/{id}/auth`), for the auth project `id`. */
export function betterAuthEnabled(id: string) {
  const base = `https://${id}.neonauth.emulator.invalid/neondb/auth`;
  return {
    auth_provider: "better_auth",
    auth_provider_project_id: id,
    pub_client_key: "",
    secret_server_key: "",
    jwks_url: `${base}/.well-known/jwks.json`,
    schema_name: "neon_auth",
    table_name: "users_sync",
    base_url: base,
  };
}

/** That integration as `GET …/branches/{id}/auth` shows it, on a project named as its id. */
export function betterAuthRecord(id: string, project: string, branch: string, createdAt: string) {
  const base = `https://${id}.neonauth.emulator.invalid/neondb/auth`;
  return {
    auth_provider: "better_auth",
    auth_provider_project_id: id,
    branch_id: branch,
    db_name: "neondb",
    created_at: createdAt,
    owned_by: "neon",
    jwks_url: `${base}/.well-known/jwks.json`,
    base_url: base,
    name: project,
  };
}
