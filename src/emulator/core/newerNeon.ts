/**
 * Newer-Neon mode (`EmulatorOptions.newerNeon`, `--newer-neon`): the API answers as a later Neon
 * would. Neon adds fields and enum values to its answers without a version change (API-BRANCH.md,
 * "Answers grow"), and a package that reads answers strictly breaks the stacks of its users the day
 * it does; with this mode a package's own tests meet such a Neon first. Everything the mode does
 * is here, applied by the request pipeline (server.ts) and by route() to request bodies:
 *
 * - every object of every answer outside `/_emulator`, at any depth, gains `NEWER_FIELD`;
 * - a new integration (either generation) starts with members nobody declared: an OAuth client of a
 *   type the package does not know, a social provider of an unknown id and type, a trusted domain.
 *   They are stored like any other object, so a package that deletes or changes them shows in what
 *   the branch holds, not only in the request log;
 * - a request that writes `NEWER_FIELD` back (a client that keeps the fields it does not know of an
 *   object Neon replaces whole on PATCH) is accepted even with `strict`, and the field is stored
 *   wherever the handler stores the object it sits in, as a Neon that defines it would;
 * - answers say less, and in pages (issue 48): a setting of `GET …/auth/plugins` no write has set
 *   is `null`; `GET …/auth` and the project-level integration list leave out `jwks_url` and
 *   `db_name`; every list the package reads whole comes one member a page, each but the last with
 *   `pagination: {cursor, has_more: true}`, the next asked for with `?cursor=`.
 *
 * Values of existing fields never change: that would be drift, not a newer Neon. The names and
 * values are the emulator's own inventions, obviously so.
 */
import { listKeyOf } from "../../schemas/common";
import type { AnyEndpoint } from "../../schemas/endpoint";
import { BRANCH_SETTINGS, branchEndpoints } from "../../schemas/endpointsBranch";
import { projectEndpoints } from "../../schemas/endpointsProject";
import type { Reply } from "./http";
import type { Store } from "./store";

/**
 * The lists of a branch's integration that this module adds to. The whole record is branch/kit.ts's,
 * which imports route(), which imports this module: restated here so that no import cycle forms.
 */
interface BranchAuthLists {
  auth?: { oauth_clients?: unknown[]; oauth_providers: unknown[]; domains: string[] };
}

/** The field every object of an answer gains. */
export const NEWER_FIELD = "added_by_newer_neon";

/** What it holds: an object with a list of objects, so that a reader strict at any depth meets it. */
function newerFieldValue(): Record<string, unknown> {
  return { since: "2099-01-01", entries: [{ name: "first", enabled: true }, { name: "second", enabled: false }] };
}

/** A client registered by something other than the stack, of a `type` today's API does not have. */
export const FOREIGN_OAUTH_CLIENT = {
  client_id: "6e657765722d6e656f6e2d636c69656e",
  name: "Registered outside the stack",
  type: "dynamic",
  redirect_uris: ["https://agent.newer-neon.example.com/callback"],
  resources: [] as string[],
  skip_consent: false,
  disabled: false,
} as const;

/** A social sign-in provider whose id and type today's API does not have (branch list: with a client id). */
export const FOREIGN_OAUTH_PROVIDER = { id: "apple", type: "enterprise", client_id: "com.example.newer-neon.signin" } as const;

/** A trusted domain nobody declared. */
export const FOREIGN_DOMAIN = "https://console.newer-neon.example.com";

/** The request and its route, as the pipeline knows them once a handler has run. */
export interface Exchange {
  method: string;
  /** Route template; null when no route matched. */
  template: string | null;
  params: Record<string, string>;
  /** The request body as received. */
  body: unknown;
  query?: URLSearchParams;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every object gains the field; one a client wrote back keeps its own value. */
function grown(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(grown);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = k === NEWER_FIELD ? x : grown(x);
  if (!(NEWER_FIELD in out)) out[NEWER_FIELD] = newerFieldValue();
  return out;
}

const isForeign = (v: unknown): boolean =>
  isObject(v) && (v.client_id === FOREIGN_OAUTH_CLIENT.client_id || v.id === FOREIGN_OAUTH_PROVIDER.id);

/**
 * The answer as today's Neon would give it (no invented field, no foreign member), for the
 * emulator's check of its own answers against the package's response schemas; undefined when the
 * answer is a foreign member itself, which today's schemas cannot describe.
 */
export function todaysAnswer(body: unknown): { body: unknown } | undefined {
  if (isForeign(body)) return undefined;
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.filter((x) => !isForeign(x)).map(strip);
    if (!isObject(v)) return v;
    return Object.fromEntries(Object.entries(v).filter(([k]) => k !== NEWER_FIELD).map(([k, x]) => [k, strip(x)]));
  };
  return { body: strip(body) };
}

const is = (x: Exchange, e: { method: string; path: string }) => x.method === e.method && x.template === e.path;

/** A new integration's members nobody declared (see the module's comment). */
function addForeignMembers(store: Store, x: Exchange): void {
  if (is(x, branchEndpoints.enableBranchAuth)) {
    const branch = store.data.projects[x.params.project_id ?? ""]?.branches.find((b) => b.id === x.params.branch_id) as BranchAuthLists | undefined;
    const auth = branch?.auth;
    if (auth === undefined) return;
    // Of types today's records do not have (a client type, a provider id and type): that is the point.
    (auth.oauth_clients ??= []).push({ ...FOREIGN_OAUTH_CLIENT, redirect_uris: [...FOREIGN_OAUTH_CLIENT.redirect_uris], resources: [], created_ms: store.now() });
    auth.oauth_providers.push({ ...FOREIGN_OAUTH_PROVIDER });
    auth.domains.push(FOREIGN_DOMAIN);
  } else if (is(x, projectEndpoints.createIntegration)) {
    const req = x.body as { project_id?: string; auth_provider?: string };
    const integration = store.data.projects[req.project_id ?? ""]?.integrations[req.auth_provider ?? ""];
    if (integration === undefined) return;
    // The project-level list shows `{id, type}` only.
    (integration.oauth_providers as unknown[]).push({ id: FOREIGN_OAUTH_PROVIDER.id, type: FOREIGN_OAUTH_PROVIDER.type });
    integration.domains.push(FOREIGN_DOMAIN);
  } else {
    return;
  }
  store.mutated();
}

/**
 * The reply as a newer Neon sends it, after the handler ran: a successful creation of an
 * integration gets its foreign members first; a read says less, in pages; then every object of
 * the body gains the field.
 */
export function newerNeonReply(store: Store, x: Exchange, reply: Reply): Reply {
  if (reply.status === 201) addForeignMembers(store, x);
  if (reply.status >= 200 && reply.status < 300) noteWritten(store, x);
  const body = reply.status === 200 && x.method === "GET" ? saidLess(store, x, reply.body) : reply.body;
  return body === undefined ? reply : { ...reply, body: grown(body) };
}

const ENDPOINTS = new Map<string, AnyEndpoint>([...Object.values(branchEndpoints), ...Object.values(projectEndpoints)].map((e) => [`${e.method} ${e.path}`, e as AnyEndpoint]));
const endpointOf = (x: Exchange) => ENDPOINTS.get(`${x.method} ${x.template}`);
const SETTING_WRITES = new Map<string, string>(BRANCH_SETTINGS.filter((row) => row.aggregated).map((row) => [`${row.write.method} ${row.write.path}`, row.key]));

/** The settings of each branch that a write has set since the emulator started: the others read `null`. */
const written = new WeakMap<Store, Set<string>>();
function noteWritten(store: Store, x: Exchange): void {
  const key = SETTING_WRITES.get(`${x.method} ${x.template}`);
  if (key === undefined) return;
  if (!written.has(store)) written.set(store, new Set());
  written.get(store)!.add(`${x.params.project_id}/${x.params.branch_id}/${key}`);
}

/** Of a page's request, the page: one member, and a cursor to the next while there is one. */
const PAGE_CURSOR = "newer-neon-page-";

function saidLess(store: Store, x: Exchange, body: unknown): unknown {
  if (!isObject(body)) return body;
  if (is(x, branchEndpoints.getBranchPlugins)) {
    const set = written.get(store);
    const unset = [...SETTING_WRITES.values()].filter((k) => !set?.has(`${x.params.project_id}/${x.params.branch_id}/${k}`));
    return { ...body, ...Object.fromEntries(unset.map((k) => [k, null])) };
  }
  if (is(x, branchEndpoints.getBranchAuth)) return withoutDescription(body);
  const key = listKeyOf(endpointOf(x)?.response);
  const all = key === undefined ? undefined : body[key];
  if (key === undefined || !Array.isArray(all)) return body;
  const at = Number(/^newer-neon-page-(\d+)$/.exec(x.query?.get("cursor") ?? "")?.[1] ?? 0);
  const page = { ...body, [key]: all.slice(at, at + 1).map((m) => (is(x, projectEndpoints.listIntegrations) ? withoutDescription(m) : m)) };
  return at + 1 < all.length ? { ...page, pagination: { cursor: `${PAGE_CURSOR}${at + 1}`, has_more: true } } : page;
}

/** An integration's record without what only describes it. */
function withoutDescription(v: unknown): unknown {
  if (!isObject(v)) return v;
  const { jwks_url: _, db_name: __, ...rest } = v;
  return rest;
}

type Path = (string | number)[];

/** The request body without the invented field at any depth, and where each one was. */
function withoutNewerField(input: unknown): { rest: unknown; found: { at: Path; value: unknown }[] } {
  const found: { at: Path; value: unknown }[] = [];
  const walk = (v: unknown, at: Path): unknown => {
    if (Array.isArray(v)) return v.map((x, i) => walk(x, [...at, i]));
    if (!isObject(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === NEWER_FIELD) found.push({ at, value: x });
      else out[k] = walk(x, [...at, k]);
    }
    return out;
  };
  return { rest: walk(input, []), found };
}

/** Puts the invented fields back where they were into the parsed body (where it still has an object there). */
function withNewerField<T>(parsed: T, found: readonly { at: Path; value: unknown }[]): T {
  for (const { at, value } of found) {
    let cur: unknown = parsed;
    for (const k of at) cur = isObject(cur) || Array.isArray(cur) ? (cur as Record<string | number, unknown>)[k] : undefined;
    if (isObject(cur)) cur[NEWER_FIELD] = value;
  }
  return parsed;
}

/** Parses a request body with the invented field set aside, then put back. */
export function parseKeepingNewerField<T>(input: unknown, parse: (rest: unknown) => T): T {
  const { rest, found } = withoutNewerField(input);
  return withNewerField(parse(rest), found);
}
