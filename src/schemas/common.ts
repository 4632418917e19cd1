/**
 * Field rules shared by what we send, what the emulator accepts and what `check` validates.
 * One definition each, so a rule cannot drift between the three.
 */
import { z } from "zod";
import { hostname, identityRule, personName, pgIdentifier, secret, text, token } from "./fields";
import { origin } from "./urls";

/** Project and branch ids as Neon issues them. */
export const ID_PATTERN = /^[a-z0-9-]{1,60}$/;

export const projectId = z
  .string()
  .regex(ID_PATTERN, { message: "must match ^[a-z0-9-]{1,60}$ (lowercase letters, digits and '-', 1 to 60 characters)" });

export const branchId = projectId;

/** The one auth provider of this API generation. */
export const AUTH_PROVIDERS = ["stack"] as const;
export const authProvider = z.enum(AUTH_PROVIDERS, { message: 'must be "stack", the only auth provider of this API generation' });
export type AuthProvider = z.infer<typeof authProvider>;

/**
 * The database and its owner role a new Neon project has, which Neon Auth uses unless told
 * otherwise (Neon's docs: "Manage databases" and "Manage roles"; the OpenAPI document's defaults of
 * `database_name` and `role_name` in NeonAuthCreateIntegrationRequest).
 */
export const NEON_DEFAULTS = { database: "neondb", role: "neondb_owner" } as const;

/** `must be one of "a", "b"`: the message of an enum, from its list. */
export const oneOf = (ids: readonly string[]) => `must be one of ${ids.map((i) => `"${i}"`).join(", ")}`;

export const OAUTH_PROVIDER_IDS = ["google", "github", "microsoft"] as const;
export const oauthProviderId = z.enum(OAUTH_PROVIDER_IDS, { message: oneOf(OAUTH_PROVIDER_IDS) });
export type OAuthProviderId = z.infer<typeof oauthProviderId>;

export const email = z
  .string()
  .superRefine(identityRule)
  .min(1, { message: "must not be empty" })
  .max(256, { message: "must be at most 256 characters" })
  .pipe(z.email({ message: "must be a valid email address" }));

export const userName = personName(255);
/** A user's address: compared case-insensitively by the auth provider, so lower-cased, but judged as given first. */
export const userEmail = z.string().superRefine(identityRule).trim().toLowerCase().pipe(email);

/** A redirect domain: an origin in canonical form. */
export const domain = origin;

export const databaseName = pgIdentifier("database");
export const roleName = pgIdentifier("role");
export const oauthClientId = token(256);
export const oauthClientSecret = secret(1024);
export const smtpHost = hostname;
export const smtpUsername = text(256);
export const smtpPassword = secret(1024);
export const senderName = text(255);
/** A free label whose only meaning is "changed or not" (key rotation). */
export const triggerText = text(256);

/** Neon's error envelope: `code` is a free string, often empty. */
export const errorBody = z.object({
  code: z.string().optional().default(""),
  message: z.string().optional().default(""),
  request_id: z.string().optional(),
});
export type ErrorBody = z.infer<typeof errorBody>;

/**
 * A list answer the package reads as the whole list (to learn that an object is gone, or absent
 * before a create). Neon defines no paging for the auth lists (OpenAPI 2.7.3 and the API
 * reference: no cursor, limit, `has_more` or next link), but its paged lists do, in two shapes:
 * `pagination: {cursor}` (`Pagination`: the cursor of the next page, an empty page at the end) and
 * `pagination: {next}` (`CursorPagination`: absent at the end), each sent back as the `cursor`
 * query parameter. An answer that carries any cursor or `has_more`, at the top level or inside
 * `pagination`, is a page: the client follows it (client.ts) and the list is whole only with every
 * page, so a refresh never forgets what a later page holds. One that says more follows without a
 * cursor to ask for it is refused, naming the list.
 */
export function wholeList<S extends z.ZodRawShape>(shape: S) {
  const key = Object.keys(shape).find((k) => !["pagination", "has_more", "cursor", "next", "next_cursor"].includes(k))!;
  const schema = z.looseObject(shape).superRefine((v, ctx) => {
    const mark = pageMarkOf(v, key);
    if (mark.more && mark.cursor === undefined) {
      ctx.addIssue({ code: "custom", message: "Neon answered part of the list (has_more) without a cursor for the next page; the package refuses to take a partial list as complete" });
    }
  }).transform((v) => {
    const out = Object.fromEntries(Object.keys(shape).map((k) => [k, (v as Record<string, unknown>)[k]])) as z.output<z.ZodObject<S>>;
    const { cursor } = pageMarkOf(v, key);
    // Not enumerable: the list's value is the same with or without it; only the client looks.
    if (cursor !== undefined) Object.defineProperty(out, NEXT_PAGE, { value: cursor, enumerable: false });
    return out;
  });
  LIST_KEYS.set(schema, key);
  return schema;
}

/** The cursor of the page after an answer of a `wholeList`, where it names one to follow. */
export const NEXT_PAGE: unique symbol = Symbol("next page");
const LIST_KEYS = new WeakMap<z.ZodType, string>();
/** The field holding the items of a `wholeList` answer; undefined for any other schema. */
export const listKeyOf = (schema: z.ZodType | undefined): string | undefined => (schema === undefined ? undefined : LIST_KEYS.get(schema));

/** Whether an answer says more follows, and the cursor to ask for it with (see `wholeList`). */
export function pageMarkOf(v: unknown, key: string): { more: boolean; cursor?: string } {
  const top = (v ?? {}) as Record<string, unknown>;
  const nested = (typeof top.pagination === "object" && top.pagination !== null ? top.pagination : {}) as Record<string, unknown>;
  const cursor = [nested.next, nested.cursor, nested.next_cursor, top.next_cursor, top.cursor].find((c): c is string => typeof c === "string" && c !== "");
  const hasMore = [top.has_more, nested.has_more].find((h) => typeof h === "boolean");
  const items = top[key];
  // Said outright, or a cursor beside a page that is not empty (Neon's `Pagination` ends on an empty page).
  const more = hasMore ?? (cursor !== undefined && Array.isArray(items) && items.length > 0);
  return more ? { more, ...(cursor === undefined ? {} : { cursor }) } : { more };
}
