/** Shared pieces of the emulator's request handling: errors, replies, validation, ids. */
import { randomBytes, randomUUID, createHash } from "node:crypto";
import type { z } from "zod";
import type { Clock } from "../../clock";
import type { Store } from "./store";

/** An error answered with Neon's envelope `{code, message, request_id}`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code = "",
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export interface Reply {
  status: number;
  /** JSON body; absent means an empty body. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface EmulatorConfig {
  operationDelayMs: number;
  /** Refuse unknown request fields instead of ignoring them (EmulatorOptions.strict). */
  strict: boolean;
  /** Answer as a newer Neon would (EmulatorOptions.newerNeon, core/newerNeon.ts). */
  newerNeon: boolean;
  /** Keep each request's JSON body in its log entry (EmulatorOptions.logBodies). */
  logBodies: boolean;
}

/** What a handler of an /api/v2 route gets. */
export interface ApiContext {
  method: string;
  /** Path relative to /api/v2. */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body (undefined when the request had none). */
  body: unknown;
  /** Label of the calling API key. */
  account: string;
  store: Store;
  clock: Clock;
  config: EmulatorConfig;
}

export interface ApiRoute {
  method: string;
  /** Path template relative to /api/v2, e.g. `/projects/{project_id}/auth/domains`. */
  template: string;
  handler: (ctx: ApiContext) => Reply | Promise<Reply>;
  /** @internal Schema the emulator checks its own JSON response against. */
  response?: z.ZodType;
}

/** The API key used when none is configured. */
export const DEFAULT_API_KEY = "neon-emulator-key";

export const LOCKED_MESSAGE = "project already has running conflicting operations, scheduling of new ones is prohibited";

/** A short stable label for an API key: never the key, not reversible. */
export function keyLabel(key: string): string {
  return "key_" + createHash("sha256").update(key, "utf8").digest("hex").slice(0, 12);
}

export function uuid(): string {
  return randomUUID();
}

export function token(bytes: number): string {
  return randomBytes(bytes).toString("hex");
}

export function oneTimeCode(): string {
  return randomBytes(32).toString("base64url");
}

const WORDS_A = ["autumn", "billowing", "bold", "calm", "cool", "crimson", "damp", "dry", "floral", "frosty", "gentle", "green", "holy", "lingering", "misty", "morning", "odd", "patient", "plain", "proud", "quiet", "red", "rough", "shy", "silent", "snowy", "soft", "still", "summer", "twilight", "wandering", "wild", "winter", "young"];
const WORDS_B = ["band", "bird", "breeze", "brook", "cake", "cloud", "darkness", "dawn", "dew", "dream", "dust", "feather", "field", "fire", "flower", "fog", "forest", "frog", "glade", "grass", "haze", "hill", "lake", "leaf", "meadow", "moon", "mountain", "night", "paper", "pine", "pond", "rain", "river", "sea", "shadow", "sky", "smoke", "snow", "sound", "star", "sun", "sunset", "surf", "thunder", "tree", "violet", "water", "wave", "wind"];

function pick(words: readonly string[]): string {
  const i = randomBytes(2).readUInt16BE(0) % words.length;
  return words[i] as string;
}

function digits(n: number): string {
  let s = "";
  const b = randomBytes(n);
  for (let i = 0; i < n; i++) s += String((b[i] as number) % 10);
  return s;
}

/** Neon-like project id, e.g. `misty-sun-12345678`. */
export function newProjectId(): string {
  return `${pick(WORDS_A)}-${pick(WORDS_B)}-${digits(8)}`;
}

/** Neon-like branch id, e.g. `br-misty-sun-a1b2c3d4`. */
export function newBranchId(): string {
  return `br-${pick(WORDS_A)}-${pick(WORDS_B)}-${token(4)}`;
}

/** Branch id of a seeded project when none is given: `br-main-<project id>`, cut to 60 characters. */
export function seedBranchId(projectId: string): string {
  return `br-main-${projectId}`.slice(0, 60);
}

// ---- validation ------------------------------------------------------------------------------

function valueAt(input: unknown, p: readonly PropertyKey[]): { found: boolean; parentIsObject: boolean } {
  let cur: unknown = input;
  for (let i = 0; i < p.length; i++) {
    if (typeof cur !== "object" || cur === null) return { found: false, parentIsObject: false };
    const key = p[i] as PropertyKey;
    if (i === p.length - 1) {
      return { found: (cur as Record<PropertyKey, unknown>)[key] !== undefined, parentIsObject: !Array.isArray(cur) };
    }
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return { found: input !== undefined, parentIsObject: false };
}

/** @internal Formats zod issues as `<path>: <message>` joined by "; ", naming missing fields "is required". */
export function issueText(issues: readonly z.core.$ZodIssue[], input: unknown, prefix: readonly PropertyKey[] = []): string {
  const parts: string[] = [];
  for (const iss of issues) {
    if (iss.code === "unrecognized_keys") {
      for (const k of iss.keys) parts.push(`${[...prefix, ...iss.path, k].map(String).join(".")}: is not a known field`);
      continue;
    }
    const where = [...prefix, ...iss.path].map(String).join(".") || "body";
    let message = iss.message;
    if (iss.path.length === 0 && iss.code === "invalid_type" && iss.expected === "object") {
      message = "must be a JSON object";
    } else if (iss.path.length > 0 && (iss.code === "invalid_type" || iss.code === "invalid_value" || iss.code === "invalid_union")) {
      const at = valueAt(input, iss.path);
      if (!at.found && at.parentIsObject) message = "is required";
    }
    parts.push(`${where}: ${message}`);
  }
  return parts.join("; ");
}

/** @internal Parses with a zod schema; a failure is a 400 whose message names each field. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, prefix: readonly PropertyKey[] = []): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success) throw new HttpError(400, issueText(r.error.issues, input, prefix));
  return r.data;
}

/**
 * @internal The input without the fields `schema` does not define, at any depth: Neon's OpenAPI
 * document does not forbid other fields (no `additionalProperties: false`), so a tolerant server
 * ignores them. The request schemas are strict (for the client's sake); their refusals name the
 * fields to drop.
 */
export function withoutUnknownFields(schema: z.ZodType, input: unknown): unknown {
  let cur = input;
  // Each round drops the unknown fields zod reports; nested objects may report theirs only once
  // their parent parses, hence a few rounds.
  for (let round = 0; round < 8; round++) {
    const r = schema.safeParse(cur);
    const unknown = r.success ? [] : r.error.issues.filter((i) => i.code === "unrecognized_keys");
    if (unknown.length === 0) return cur;
    cur = structuredClone(cur);
    for (const iss of unknown) {
      let at: unknown = cur;
      for (const k of iss.path) at = (at as Record<PropertyKey, unknown> | undefined)?.[k];
      if (typeof at !== "object" || at === null) continue;
      for (const k of iss.keys) delete (at as Record<string, unknown>)[k];
    }
  }
  return cur;
}

/** A control route's body as an object; 400 when it is anything else. */
export function jsonObject(v: unknown): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new HttpError(400, "body: must be a JSON object");
  return v as Record<string, unknown>;
}

/** @internal Validates one path parameter with its field schema; the message names the parameter. */
export function parseParam<S extends z.ZodType>(schema: S, name: string, value: string | undefined): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) {
    const msgs = r.error.issues.map((i) => i.message).join("; ");
    throw new HttpError(400, `${name}: ${msgs}`);
  }
  return r.data;
}
