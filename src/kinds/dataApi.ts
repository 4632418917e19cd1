/**
 * Neon's Data API on one database of a branch: a REST interface over it that accepts the tokens of
 * the branch's Neon Auth (`integration`) or of another identity provider (`jwksUrl`). What the
 * create says of authentication Neon cannot change afterwards (Alchemy's DataApi: "the API only
 * supports updating PostgREST settings"), so those inputs replace; the settings change in place.
 */
import { z } from "zod";
import { isNotFound } from "../client";
import { branchId, databaseName, NEON_DEFAULTS, projectId } from "../schemas";
import { createDataApiRequest, dataApiSettingsRequest, OPENAPI_MODES, type DataApi as Wire, type DataApiSettingsRequest } from "../schemas/dataApi";
import type { Context } from "../provider/context";
import { createOwned } from "../provider/converge";
import { input, inputsOf, output, type InputDeclaration } from "../provider/declaration";
import { childFields, deleteUnlessHidden, childPlace, mustSee } from "../provider/parent";
import { placeOf, where, type Scope } from "../provider/generation";
import { compact, halfMade, inputRules, joinId, splitId, type Handler, type KindDeclaration, type NaturalKey, type Props } from "../provider/kit";
import { sameValue } from "../provider/diff";

const KIND = "DataApi";
const wire = createDataApiRequest.shape;
const setting = dataApiSettingsRequest.shape;

/** Each setting the program names, with Neon's name for it (DataAPISettings). */
/** Each setting's program name and its name at Neon. */
export const DATA_API_SETTINGS = {
  dbSchemas: "db_schemas",
  dbAnonRole: "db_anon_role",
  dbMaxRows: "db_max_rows",
  dbExtraSearchPath: "db_extra_search_path",
  dbAggregatesEnabled: "db_aggregates_enabled",
  jwtRoleClaimKey: "jwt_role_claim_key",
  jwtCacheMaxLifetime: "jwt_cache_max_lifetime",
  openapiMode: "openapi_mode",
  serverCorsAllowedOrigins: "server_cors_allowed_origins",
  serverTimingEnabled: "server_timing_enabled",
} as const satisfies Record<string, keyof DataApiSettingsRequest>;
const SETTINGS = DATA_API_SETTINGS;
type Setting = keyof typeof SETTINGS;
const SETTING_NAMES = Object.keys(SETTINGS) as Setting[];

/** A JWKS URL a program gives: https only, since the keys it lists decide who may read the data. */
const jwksUrl = wire.jwks_url.unwrap().refine((u) => u.startsWith("https://"), { message: "must use https: the keys it lists decide whose tokens the Data API accepts" });

const AUTH = "replaces (Neon cannot change it after creation)";
const SETTING = "in place; left out: not managed";

/** How each setting is published: a setting left out is not managed. */
const SETTING_WORDS: Record<Setting, InputDeclaration> = {
  dbSchemas: { doc: "The schemas exposed as REST endpoints (Neon's default: `public`).", shown: "schema names, at least one", absent: "not managed (Neon: `[\"public\"]`)" },
  dbAnonRole: { doc: "The database role of requests without a token (Neon's default: `anonymous`).", shown: "Postgres role name", absent: "not managed (Neon: `anonymous`)" },
  dbMaxRows: { doc: "The most rows one response returns (Neon's default: 1000).", shown: "whole number ≥ 1", absent: "not managed (Neon: 1000)" },
  dbExtraSearchPath: { doc: "Schemas added to the search path, comma-separated.", absent: "not managed" },
  dbAggregatesEnabled: { doc: "Whether aggregate functions may be used in queries (Neon's default: true).", absent: "not managed (Neon: `true`)" },
  jwtRoleClaimKey: {
    doc: "Where in a token the Data API reads the database role (a JSPath; Neon's default: `.role`, the role an `AuthUser` is given).",
    shown: "text 1–256, a JSPath such as `.role`",
    absent: "not managed (Neon: `.role`)",
  },
  jwtCacheMaxLifetime: { doc: "How long a verified token is cached, in seconds.", shown: "whole number ≥ 0", absent: "not managed" },
  openapiMode: { doc: "Whether the API describes itself (`ignore-privileges`) or not (`disabled`, Neon's default).", shown: '`"ignore-privileges"` | `"disabled"`', absent: "not managed (Neon: `disabled`)" },
  serverCorsAllowedOrigins: { doc: "The origins browsers may call the API from, comma-separated; empty allows every origin.", absent: "not managed (Neon: empty, every origin)" },
  serverTimingEnabled: { doc: "Whether answers carry Server-Timing headers.", absent: "not managed" },
};

/** @internal Runtime input rules, each published input described on its rule; kept out of the published types (zod is not a public type). */
export const dataApiInputs = z
  .strictObject({
    projectId: input(projectId.optional(), { doc: "Neon project id, for a Data API bound to another identity provider (with `integration` it comes from the NeonAuth).", shown: "string `^[a-z0-9-]{1,60}$`", requiredWhen: "without `integration`", replaces: true }),
    branchId: input(branchId.optional(), { doc: "The branch, for a Data API bound to another identity provider (with `integration` it comes from the NeonAuth).", shown: "string `^[a-z0-9-]{1,60}$`", requiredWhen: "without `integration`", replaces: true }),
    integration: childPlace.integration.optional(),
    database: input(databaseName.default(NEON_DEFAULTS.database), { doc: "The database of the branch the Data API serves; default the branch's default database (`neondb`).", shown: "Postgres identifier", replaces: true }),
    jwksUrl: input(jwksUrl.optional(), {
      doc: "The JWKS URL of another identity provider (Clerk, Auth0, Cognito…) whose tokens the Data API accepts (`auth_provider: external`); https. Not with `integration`.",
      shown: "https URL; not with `integration`",
      replaces: true,
      change: AUTH,
    }),
    providerName: input(wire.provider_name, { doc: "The name of the provider of `jwksUrl` (Clerk, Auth0…).", shown: "text 1–256; with `jwksUrl`", replaces: true, change: AUTH }),
    jwtAudience: input(wire.jwt_audience, {
      doc: "The audience the provider of `jwksUrl` puts in its tokens: tokens with another `aud` are refused (Neon still accepts tokens without one).",
      shown: "text 1–1024; with `jwksUrl`",
      replaces: true,
      change: AUTH,
    }),
    addDefaultGrants: input(z.boolean().default(false), { doc: "At creation, grant authenticated users every permission on the tables of the `public` schema. Default false.", replaces: true, change: AUTH }),
    skipAuthSchema: input(z.boolean().default(false), { doc: "At creation, do not create the `auth` schema and its row-level-security functions. Default false.", replaces: true, change: AUTH }),
    ...(Object.fromEntries(SETTING_NAMES.map((k) => [k, input(setting[SETTINGS[k]], { change: SETTING, ...SETTING_WORDS[k] })])) as { [K in Setting]: (typeof setting)[(typeof SETTINGS)[K]] }),
    adopt: input(z.boolean().optional(), {
      doc: "Take over a Data API that already exists on the database instead of failing (its authentication stays as Neon has it; the settings the program names are written). Default false.",
      absent: "`false`",
      change: "in place (matters at create only)",
    }),
  })
  .superRefine((v, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if (v.integration !== undefined && v.jwksUrl !== undefined) issue("jwksUrl", "cannot be given with integration: a Data API trusts either the branch's Neon Auth or the provider of a JWKS URL");
    if (v.integration !== undefined && (v.projectId !== undefined || v.branchId !== undefined)) {
      issue(v.projectId !== undefined ? "projectId" : "branchId", "comes from integration: give it only with jwksUrl, for another identity provider");
    }
    if (v.integration !== undefined && v.integration.branchId === undefined) issue("integration", "must be a NeonAuth: a Data API serves a branch");
    if (v.integration === undefined && (v.projectId === undefined || v.branchId === undefined)) {
      issue("integration", "is required (the NeonAuth whose tokens the Data API accepts), or projectId and branchId with jwksUrl for another identity provider");
    }
    for (const f of ["providerName", "jwtAudience"] as const) if (v[f] !== undefined && v.jwksUrl === undefined) issue(f, "describes the provider of jwksUrl, which is not given");
  });
type Inputs = z.infer<typeof dataApiInputs>;

const INPUTS = inputsOf(dataApiInputs);

/** One Data API per database of a branch; also its id. */
const OBJECT: NaturalKey = { fields: ["database"], what: "the Data API of one database", key: (i) => (i.branchId && i.database ? joinId(i.projectId, i.branchId, i.database) : undefined) };

type Place = Scope & { branchId: string; database: string };
const at = (p: Place) => ({ ...where(p), database_name: p.database });
const named = (p: Place) => `${KIND} of database ${p.database} on ${placeOf(p)}`;
const placeOfId = (id: string): Place => {
  const [projectId, branchId, database] = splitId(KIND, id, 3, "<projectId>/<branchId>/<database>");
  return { projectId, branchId, database: database! };
};

/** The settings the program names, as Neon names them; undefined when it names none. */
function settingsOf(inputs: Props): DataApiSettingsRequest | undefined {
  const out = compact(Object.fromEntries(SETTING_NAMES.map((k) => [SETTINGS[k], inputs[k]])));
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The Data API of a database, or undefined when it has none (404). */
async function live(ctx: Context, p: Place): Promise<Wire | undefined> {
  try {
    return await ctx.client.branchAuth.getProjectBranchDataAPI(at(p));
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** The outputs Neon computes. */
const computed = (w: Wire) => compact({ url: w.url, status: w.status, availableSchemas: w.available_schemas ?? undefined });

/**
 * @internal
 * A Data API as refresh sees it, for this kind and for a lookup function: the settings `managed`
 * names (all of them when it names none: an import), the rest as recorded. Undefined when the
 * database has none and its branch answers (a branch this key cannot see is an error, never "gone").
 */
export async function readDataApi(ctx: Context, p: Place, recorded: Props = {}): Promise<Props | undefined> {
  const w = await live(ctx, p);
  if (w === undefined) {
    await mustSee(ctx, KIND, p, "refresh");
    return undefined;
  }
  const managed = SETTING_NAMES.some((k) => recorded[k] !== undefined) ? SETTING_NAMES.filter((k) => recorded[k] !== undefined) : SETTING_NAMES;
  const settings = Object.fromEntries(managed.map((k) => [k, (w.settings as Props | null | undefined)?.[SETTINGS[k]]]));
  return compact({
    ...recorded,
    projectId: p.projectId,
    branchId: p.branchId,
    database: p.database,
    addDefaultGrants: recorded.addDefaultGrants ?? false,
    skipAuthSchema: recorded.skipAuthSchema ?? false,
    ...settings,
    ...computed(w),
  });
}

/**
 * The diff: a child's, the settings the program leaves out not compared (as Neon has them); its
 * own `projectId` and `branchId` only without an integration (with one, they are its outputs).
 */
function fields(olds: Props, news: Props) {
  const own = news.integration === undefined ? [] : ["projectId", "branchId"];
  return childFields(olds, news, INPUTS).filter((f) => !own.includes(f.name) && !((SETTING_NAMES as string[]).includes(f.name) && news[f.name] === undefined));
}

/** @internal What either face's provider process runs for this kind (provider/runtime.ts guards it). */
export const dataApiHandler: Handler<Inputs> = {
  // One Data API per database: a replacement deletes the old one first (Neon answers 409 to a second).
  ...inputRules(KIND, dataApiInputs, fields, { deleteBeforeReplace: true }),

  async create(inputs, ctx) {
    const p = inputs as Place;
    const id = OBJECT.key(inputs)!;
    const settings = settingsOf(inputs);
    const body = compact({
      auth_provider: inputs.integration !== undefined ? ("neon_auth" as const) : inputs.jwksUrl !== undefined ? ("external" as const) : undefined,
      jwks_url: inputs.jwksUrl,
      provider_name: inputs.providerName,
      jwt_audience: inputs.jwtAudience,
      add_default_grants: inputs.addDefaultGrants || undefined,
      skip_auth_schema: inputs.skipAuthSchema || undefined,
      settings,
    });
    const r = await createOwned({
      create: () => ctx.client.branchAuth.createProjectBranchDataAPI(at(p), body),
      find: () => live(ctx, p),
      adopt: inputs.adopt,
      object: named(p),
      how: { adopt: `set \`adopt: true\` on this DataApi to take it over on purpose, or bring it into the stack with \`pulumi import\` (id ${id})` },
    });
    let w: Wire | undefined;
    try {
      // A Data API found (taken over, or made by an attempt whose answer was lost) gets the settings named.
      if (r.found !== undefined && settings !== undefined && !Object.entries(settings).every(([k, v]) => sameValue((r.found!.settings as Props | null)?.[k], v))) {
        await ctx.client.branchAuth.updateProjectBranchDataAPI(at(p), { settings });
      }
      w = await ctx.client.branchAuth.getProjectBranchDataAPI(at(p));
    } catch (err) {
      throw halfMade(`${named(p)} was created but not read back; the next \`pulumi up\` finishes it. (${(err as Error).message})`, id, { ...inputs, url: r.created?.url });
    }
    return { id, outs: compact({ ...inputs, ...computed(w) }) };
  },

  async read(id, props, ctx) {
    const outs = await readDataApi(ctx, placeOfId(id), props);
    if (outs === undefined) return {};
    const { url: _, status: __, availableSchemas: ___, ...inputs } = outs;
    return { id, props: outs, inputs };
  },

  async update(id, olds, inputs, ctx) {
    const p = placeOfId(id);
    const settings = settingsOf(inputs);
    // One PATCH with every setting the program names: whether Neon merges a partial one is not documented.
    const changed = SETTING_NAMES.some((k) => inputs[k] !== undefined && !sameValue(olds[k], inputs[k]));
    try {
      if (changed && settings !== undefined) await ctx.client.branchAuth.updateProjectBranchDataAPI(at(p), { settings });
      const w = await ctx.client.branchAuth.getProjectBranchDataAPI(at(p));
      return { outs: compact({ ...olds, ...inputs, ...computed(w) }) };
    } catch (err) {
      if (!isNotFound(err)) throw err;
      throw new Error(`${named(p)} is gone: it was deleted outside this stack. Run \`pulumi refresh\` (or \`pulumi up --refresh\`): the next \`up\` then creates it again. (${(err as Error).message})`);
    }
  },

  async delete(id, _props, ctx) {
    const p = placeOfId(id);
    await deleteUnlessHidden(ctx, KIND, p, () => ctx.client.branchAuth.deleteProjectBranchDataAPI(at(p)));
  },
};

/** @internal The kind, declared once (provider/declaration.ts). */
export const dataApiKind: KindDeclaration = {
  kind: KIND,
  doc:
    "Neon's Data API on one database of a branch: a REST interface over it that accepts the tokens of\n" +
    "the branch's Neon Auth (`integration`) or of another identity provider (`jwksUrl`, with\n" +
    "`projectId` and `branchId`). Authentication is fixed at creation (a change replaces it); the\n" +
    "settings change in place, and those left out are left as Neon has them. The role of a request is\n" +
    "read from its token at `jwtRoleClaimKey` (`.role`: an `AuthUser`'s roles). Id (for `get` and\n" +
    "`importFile`): `<projectId>/<branchId>/<database>`.\n" +
    "\n" +
    "@example\n" +
    "```ts\n" +
    'const api = new DataApi("api", { integration: auth, dbSchemas: ["api"], jwtRoleClaimKey: ".role" });\n' +
    "export const dataApiUrl = api.url;\n" +
    "```",
  parent: "NeonAuth",
  parentUnless: "unless `jwksUrl` names another identity provider (then `projectId` and `branchId`)",
  withProvider: false,
  inputs: INPUTS,
  outputs: {
    url: output(z.string(), { doc: "The Data API's REST endpoint." }),
    status: output(z.string(), { doc: "Its deployment status, as Neon reports it." }),
    availableSchemas: output(z.array(z.string()).optional(), { doc: "The schemas it can serve, as Neon reports them." }),
  },
  types: { DataApiOpenapiMode: { values: OPENAPI_MODES, doc: "Whether the Data API describes itself in OpenAPI: `ignore-privileges` or `disabled`." } },
  id: "`<projectId>/<branchId>/<database>`.",
  importable: true,
  schema: dataApiInputs,
  object: OBJECT,
  handler: dataApiHandler,
};
