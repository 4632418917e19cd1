/**
 * Requests and responses of Neon's Data API (`…/branches/{branch_id}/data-api/{database_name}`,
 * tag DataAPI of the OpenAPI document): a REST interface over one database of a branch. As in
 * auth.ts, requests are strict and responses lenient (Neon adds fields and values).
 */
import { z } from "zod";
import { oneOf, roleName } from "./common";
import { pgIdentifier, text } from "./fields";

/** Who issues the tokens the Data API accepts: the branch's Neon Auth, or a JWKS of your own. */
export const DATA_API_AUTH_PROVIDERS = ["neon_auth", "external"] as const;
export const dataApiAuthProvider = z.enum(DATA_API_AUTH_PROVIDERS, { message: oneOf(DATA_API_AUTH_PROVIDERS) });

/** The document's two modes of the generated OpenAPI description ("ignore-privileges, disabled"). */
export const OPENAPI_MODES = ["ignore-privileges", "disabled"] as const;
export const openapiMode = z.enum(OPENAPI_MODES, { message: oneOf(OPENAPI_MODES) });

/** A schema the Data API exposes: a PostgreSQL identifier, as a database's name is. */
export const schemaName = pgIdentifier("database");

/** Whole numbers the settings take: rows and seconds, never negative. */
const count = (min: number) =>
  z.number({ message: "must be a number" }).int({ message: "must be a whole number" }).min(min, { message: `must be at least ${min}` });

/** The settings a create or an update sends (DataAPISettings); each optional, unknown ones refused. */
export const dataApiSettingsRequest = z.strictObject({
  db_aggregates_enabled: z.boolean().optional(),
  db_anon_role: roleName.optional(),
  db_extra_search_path: z.string().max(1024, { message: "must be at most 1024 characters" }).optional(),
  db_max_rows: count(1).optional(),
  db_schemas: z.array(schemaName).min(1, { message: "must name at least one schema" }).optional(),
  jwt_role_claim_key: text(256).optional(),
  jwt_cache_max_lifetime: count(0).optional(),
  openapi_mode: openapiMode.optional(),
  server_cors_allowed_origins: z.string().max(4096, { message: "must be at most 4096 characters" }).optional(),
  server_timing_enabled: z.boolean().optional(),
});
export type DataApiSettingsRequest = z.input<typeof dataApiSettingsRequest>;

/** The settings as Neon answers them: any field may be missing, and a new mode is no error. */
export const dataApiSettings = z.looseObject({
  db_aggregates_enabled: z.boolean().optional(),
  db_anon_role: z.string().optional(),
  db_extra_search_path: z.string().optional(),
  db_max_rows: z.number().optional(),
  db_schemas: z.array(z.string()).optional(),
  jwt_role_claim_key: z.string().optional(),
  jwt_cache_max_lifetime: z.number().optional(),
  openapi_mode: z.string().optional(),
  server_cors_allowed_origins: z.string().optional(),
  server_timing_enabled: z.boolean().optional(),
});
export type DataApiSettings = z.infer<typeof dataApiSettings>;

/** The document's `format: uri`: any absolute URL on the wire (the package's input asks for https). */
export const jwksUrlWire = z.url({ message: "must be an absolute URL" }).max(2048, { message: "must be at most 2048 characters" });

export const createDataApiRequest = z.strictObject({
  auth_provider: dataApiAuthProvider.optional(),
  jwks_url: jwksUrlWire.optional(),
  provider_name: text(256).optional(),
  jwt_audience: text(1024).optional(),
  add_default_grants: z.boolean().optional(),
  skip_auth_schema: z.boolean().optional(),
  settings: dataApiSettingsRequest.optional(),
});
export type CreateDataApiRequest = z.input<typeof createDataApiRequest>;

export const dataApiCreated = z.looseObject({ url: z.string() });

/** GET's answer (DataAPIReponse, sic): `settings` and `available_schemas` may be null. */
export const dataApi = z.looseObject({
  url: z.string(),
  status: z.string(),
  settings: dataApiSettings.nullable().optional(),
  available_schemas: z.array(z.string()).nullable().optional(),
});
export type DataApi = z.infer<typeof dataApi>;

export const updateDataApiRequest = z.strictObject({ settings: dataApiSettingsRequest.optional() });
export type UpdateDataApiRequest = z.input<typeof updateDataApiRequest>;
