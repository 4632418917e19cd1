/**
 * The SQL of a Better Auth branch's tables (`neon_auth."user"`, `neon_auth.project_config`), with
 * the columns of a real Managed Better Auth branch (see API-BRANCH.md: uuid ids, camelCase quoted
 * columns, email unique, roles comma-separated in `role`). neonAuthTables.ts says who writes them.
 */
import type { AuthBranchRec, BranchAuthRec, BranchUserRec } from "./kit";
import { lit, NEON_AUTH_SCHEMA, type SqlSession } from "../core/database";
import { iso } from "../core/store";
import { BRANCH_SETTINGS } from "../../schemas/endpointsBranch";

export const USER_TABLE = `${NEON_AUTH_SCHEMA}."user"`;
export const CONFIG_TABLE = `${NEON_AUTH_SCHEMA}.project_config`;

export const USER_DDL = `
CREATE SCHEMA IF NOT EXISTS ${NEON_AUTH_SCHEMA};
CREATE TABLE IF NOT EXISTS ${USER_TABLE} (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  email text NOT NULL CONSTRAINT user_email_key UNIQUE,
  "emailVerified" boolean NOT NULL DEFAULT false,
  image text,
  "createdAt" timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updatedAt" timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
  role text,
  banned boolean,
  "banReason" text,
  "banExpires" timestamptz
);`;

export const CONFIG_DDL = `
CREATE SCHEMA IF NOT EXISTS ${NEON_AUTH_SCHEMA};
CREATE TABLE IF NOT EXISTS ${CONFIG_TABLE} (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  endpoint_id text NOT NULL UNIQUE,
  name text,
  trusted_origins jsonb NOT NULL,
  social_providers jsonb NOT NULL,
  email_provider jsonb,
  email_and_password jsonb,
  plugin_configs jsonb,
  webhook_config jsonb,
  allow_localhost boolean NOT NULL,
  "createdAt" timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updatedAt" timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP
);`;

/** Roles as Better Auth's admin plugin keeps them: one comma-separated text. */
export function roleText(roles: readonly string[]): string | null {
  return roles.length === 0 ? null : roles.join(",");
}

export function rolesOf(role: string | null): string[] {
  return (role ?? "").split(",").map((r) => r.trim()).filter((r) => r !== "");
}

/** INSERT of the stored users into a freshly made table (the database's first start, or a re-enable). */
export function insertUsersSql(users: readonly BranchUserRec[]): string {
  if (users.length === 0) return "";
  const values = users.map((u) => {
    const ts = (ms: number | null | undefined) => (ms === undefined || ms === null ? "NULL" : lit(iso(ms)));
    return `(${[
      lit(u.id),
      // Older state files kept a missing name as null; the column does not allow it.
      lit(u.name ?? ""),
      lit(u.email),
      u.email_verified === true ? "true" : "false",
      lit(u.image ?? null),
      ts(u.created_ms),
      ts(u.updated_ms ?? u.created_ms),
      lit(roleText(u.roles)),
      u.banned === undefined || u.banned === null ? "NULL" : String(u.banned),
      lit(u.ban_reason ?? null),
      ts(u.ban_expires_ms),
    ].join(", ")})`;
  });
  return ` INSERT INTO ${USER_TABLE} (id, name, email, "emailVerified", image, "createdAt", "updatedAt", role, banned, "banReason", "banExpires") VALUES ${values.join(", ")};`;
}

/**
 * The settings `project_config` keeps in `plugin_configs`: those `GET …/auth/plugins` aggregates
 * (the table's rows), but email and password, which has a column of its own: from the table, so
 * that a new setting needs no line here.
 */
const PLUGIN_CONFIGS = BRANCH_SETTINGS.filter((row) => row.aggregated && row.key !== "email_and_password").map((row) => row.key);

/** `project_config` as the branch's settings make it; one row per auth endpoint. */
export function configRowSql(a: BranchAuthRec, projectName: string): string {
  const j = (v: unknown) => `${lit(JSON.stringify(v))}::jsonb`;
  const values = [
    lit(a.auth_provider_project_id),
    lit(a.name ?? projectName),
    j(a.domains),
    j(a.oauth_providers.map((o) => ({ id: o.id, type: o.type, ...(o.client_id === undefined ? {} : { clientId: o.client_id, clientSecret: o.client_secret }) }))),
    j(a.email_provider),
    j(a.email_and_password),
    j(Object.fromEntries(PLUGIN_CONFIGS.map((k) => [k, a[k]]))),
    j(a.webhooks),
    String(a.allow_localhost),
    lit(iso(a.created_ms)),
  ];
  return ` INSERT INTO ${CONFIG_TABLE} (endpoint_id, name, trusted_origins, social_providers, email_provider, email_and_password, plugin_configs, webhook_config, allow_localhost, "createdAt") VALUES (${values.join(", ")});`;
}

interface UserRow {
  id: string;
  name: string;
  email: string;
  email_verified: boolean;
  image: string | null;
  created_at: Date;
  updated_at: Date;
  role: string | null;
  banned: boolean | null;
  ban_reason: string | null;
  ban_expires: Date | null;
}

const SELECT_USERS =
  `SELECT id::text AS id, name, email, "emailVerified" AS email_verified, image, "createdAt" AS created_at, "updatedAt" AS updated_at, ` +
  `role, banned, "banReason" AS ban_reason, "banExpires" AS ban_expires FROM ${USER_TABLE} ORDER BY "createdAt", id`;

function recOf(r: UserRow): BranchUserRec {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    roles: rolesOf(r.role),
    created_ms: new Date(r.created_at).getTime(),
    updated_ms: new Date(r.updated_at).getTime(),
    email_verified: r.email_verified,
    image: r.image,
    banned: r.banned,
    ban_reason: r.ban_reason,
    ban_expires_ms: r.ban_expires === null ? null : new Date(r.ban_expires).getTime(),
  };
}

/** The table as it is now, copied into the stored snapshot; true when the snapshot changed. */
export async function pull(db: SqlSession, branch: AuthBranchRec): Promise<boolean> {
  const users = (await db.query<UserRow>(SELECT_USERS)).rows.map(recOf);
  if (branch.neon_auth === undefined) return false;
  if (JSON.stringify(users) === JSON.stringify(branch.neon_auth.users)) return false;
  branch.neon_auth.users = users;
  return true;
}

