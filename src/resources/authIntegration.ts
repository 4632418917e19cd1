import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { authProvider, branchId, projectId, type Integration, type KeySet, databaseName, keySet, NEON_DEFAULTS, roleName } from "../schemas";
import { createOwned } from "./converge";
import { inputRules, lookupArgs, parsedInputs, compact, joinId, splitId, type Handler, type NaturalKey, type Props, secretOutputs, registration } from "./kit";
import { appEnv } from "./authSdkKeys";
import { deleteUnlessHidden, liveIntegration, projectIntegration } from "./parent";

const KIND = "AuthIntegration";

/** @internal Runtime input rules; kept out of the published types (zod is not a public type). */
export const authIntegrationInputs = z.strictObject({
  projectId,
  branchId,
  databaseName: databaseName.default(NEON_DEFAULTS.database),
  roleName: roleName.default(NEON_DEFAULTS.role),
  authProvider: authProvider.default("stack"),
  adopt: z.boolean().default(false),
});
type Inputs = z.infer<typeof authIntegrationInputs>;

export interface AuthIntegrationArgs {
  /** Neon project id (`^[a-z0-9-]{1,60}$`). */
  projectId: pulumi.Input<string>;
  /** The project's default (production) branch; the users table lives in its database. */
  branchId: pulumi.Input<string>;
  /** Database that gets the `neon_auth.users_sync` table. Default `neondb`. */
  databaseName?: pulumi.Input<string>;
  /** Role that owns it. Default `neondb_owner` (deprecated by Neon, still sent). */
  roleName?: pulumi.Input<string>;
  /** Auth provider; `stack` is the only one of this API generation. */
  authProvider?: pulumi.Input<"stack">;
  /**
   * Take over an integration that already exists for this provider (made outside this stack)
   * instead of failing with 409. Its SDK keys are then regenerated, as the API has no other
   * way to hand them out. Default false.
   */
  adopt?: pulumi.Input<boolean>;
}

const FIELDS = [
  { name: "projectId", replaces: true },
  { name: "branchId", replaces: true },
  { name: "databaseName", replaces: true },
  { name: "roleName", replaces: true },
  { name: "authProvider", replaces: true },
  { name: "adopt" },
] as const;

function outputsOf(inputs: Inputs, keys: Partial<KeySet>, record: Integration | undefined, old: Props = {}): Props {
  // An adopted integration's keys are unknown until generated (see read).
  const envVars = keys.pub_client_key === undefined ? undefined : appEnv(keys as KeySet);
  return compact({
    ...inputs,
    authProviderProjectId: keys.auth_provider_project_id ?? record?.auth_provider_project_id,
    pubClientKey: keys.pub_client_key,
    secretServerKey: keys.secret_server_key,
    jwksUrl: keys.jwks_url ?? record?.jwks_url,
    schemaName: keys.schema_name,
    tableName: keys.table_name,
    dbName: record?.db_name ?? old.dbName ?? inputs.databaseName,
    ownedBy: record?.owned_by ?? old.ownedBy,
    transferStatus: record?.transfer_status,
    createdAt: record?.created_at ?? old.createdAt,
    envVars,
  });
}

/** What names the object of this kind; also its id. */
const OBJECT: NaturalKey = { fields: ["authProvider"], what: "the integration of one project", key: (i) => joinId(i.projectId, i.authProvider) };

/** @internal What the dynamic-provider process runs for this kind (runtime.ts). */
export const integrationHandler: Handler = {
  ...inputRules(KIND, authIntegrationInputs, FIELDS, { deleteBeforeReplace: true }),
  object: OBJECT,

  async create(props, ctx) {
    const inputs = parsedInputs(authIntegrationInputs, props);
    const request = {
      auth_provider: inputs.authProvider,
      project_id: inputs.projectId,
      branch_id: inputs.branchId,
      database_name: inputs.databaseName,
      role_name: inputs.roleName,
    };
    // The integration's keys come only with its creation. When the integration exists without
    // keys we saw (a lost answer, or an existing one the user asked us to adopt), it is found by
    // its natural key and its keys are obtained the only way the API offers: a new set.
    const find = () => projectIntegration(ctx, inputs.projectId, inputs.authProvider);
    const made = await createOwned({
      create: () => ctx.client.createIntegration(request),
      find,
      adopt: inputs.adopt,
      object: `${KIND}: project ${inputs.projectId}'s "${inputs.authProvider}" integration`,
    });
    const keys =
      made.created ??
      (await createOwned({ create: () => ctx.client.generateSdkKeys({ project_id: inputs.projectId, auth_provider: inputs.authProvider }) })).created!;
    const record = await projectIntegration(ctx, inputs.projectId, inputs.authProvider);
    return { id: OBJECT.key(inputs)!, outs: outputsOf(inputs, keys, record) };
  },

  async read(id, props, ctx) {
    const [project, provider] = splitId(KIND, id, 2, "<projectId>/<authProvider>");
    const record = await liveIntegration(ctx, KIND, { projectId: project }, provider);
    if (!record) return {};
    // The list carries no keys: they stay as created. An imported integration has none (the
    // API hands keys out only by generating new ones; use AuthSdkKeys for that), and neither has
    // one replaced outside Pulumi: the keys in state belonged to the one before (its children
    // then read as gone and are made again in this one).
    const replaced = props.authProviderProjectId !== undefined && props.authProviderProjectId !== record.auth_provider_project_id;
    const keys: Partial<KeySet> = {
      auth_provider_project_id: record.auth_provider_project_id,
      pub_client_key: replaced ? undefined : props.pubClientKey,
      secret_server_key: replaced ? undefined : props.secretServerKey,
      jwks_url: record.jwks_url,
      schema_name: props.schemaName ?? "neon_auth",
      table_name: props.tableName ?? "users_sync",
    };
    const inputs: Inputs = {
      projectId: project,
      branchId: record.branch_id,
      databaseName: props.databaseName ?? record.db_name,
      roleName: props.roleName ?? NEON_DEFAULTS.role,
      authProvider: "stack",
      adopt: props.adopt ?? false,
    };
    const outs = outputsOf(inputs, keys, record, props);
    return { id, props: outs, inputs: compact({ ...inputs }) };
  },

  async update(_id, olds, news) {
    // Only `adopt` can change in place; it matters at create time alone.
    return { outs: { ...olds, adopt: news.adopt } };
  },

  async delete(id, _props, ctx) {
    const [project, provider] = splitId(KIND, id, 2, "<projectId>/<authProvider>");
    await deleteUnlessHidden(ctx, KIND, { projectId: project }, () => ctx.client.deleteIntegration(project, provider));
  },
};

/**
 * Neon Auth on a project: provisions a managed auth project at the provider and the
 * `neon_auth.users_sync` table. Any input change replaces it (delete first: one per provider).
 * Refresh reads it from the project's integration list.
 *
 * @example
 * ```ts
 * const auth = new AuthIntegration("auth", { projectId: "p-123", branchId: "br-main-1" });
 * export const env = auth.envVars; // secret
 * ```
 */
export class AuthIntegration extends pulumi.dynamic.Resource {
  /** The Neon project. */
  declare readonly projectId: pulumi.Output<string>;
  /** The project's default (production) branch the integration is bound to. */
  declare readonly branchId: pulumi.Output<string>;
  /** The database that holds `neon_auth.users_sync`, as declared. */
  declare readonly databaseName: pulumi.Output<string>;
  /** The role sent at creation, as declared. */
  declare readonly roleName: pulumi.Output<string>;
  /** The auth provider: `stack`. */
  declare readonly authProvider: pulumi.Output<string>;
  /** Whether an existing integration was (or may be) taken over at creation. */
  declare readonly adopt: pulumi.Output<boolean>;
  /** Project id at the auth provider (Stack Auth). */
  declare readonly authProviderProjectId: pulumi.Output<string>;
  /** Publishable client key for the frontend SDK (secret). */
  declare readonly pubClientKey: pulumi.Output<string>;
  /** Secret server key for the backend SDK (secret). */
  declare readonly secretServerKey: pulumi.Output<string>;
  /** Address of the auth project's JSON Web Key Set, for verifying its tokens. */
  declare readonly jwksUrl: pulumi.Output<string>;
  /** Schema of the synchronised users table: `neon_auth`. */
  declare readonly schemaName: pulumi.Output<string>;
  /** The synchronised users table: `users_sync`. */
  declare readonly tableName: pulumi.Output<string>;
  /** The database as Neon reports it. */
  declare readonly dbName: pulumi.Output<string>;
  /** `neon` until an ownership transfer is confirmed, then `user`. */
  declare readonly ownedBy: pulumi.Output<string>;
  /** `initiated` or `finished` once a transfer was requested. */
  declare readonly transferStatus: pulumi.Output<string | undefined>;
  /** When Neon created the integration (ISO 8601, UTC); part of its identity. */
  declare readonly createdAt: pulumi.Output<string>;
  /** The environment variables a Stack Auth app needs (secret). */
  declare readonly envVars: pulumi.Output<Record<string, string>>;

  constructor(name: string, args: AuthIntegrationArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      ...registration(KIND, name, authIntegrationInputs, args, opts, {
        computed: ["authProviderProjectId", "pubClientKey", "secretServerKey", "jwksUrl", "schemaName", "tableName", "dbName", "ownedBy", "transferStatus", "createdAt", "envVars"],
        outputs: [...secretOutputs(keySet), "envVars"],
        object: OBJECT,
      }),
    );
  }

  /**
   * Looks up an existing integration by its id, `<projectId>/<authProvider>`
   * (e.g. `p-123/stack`), without managing it: the engine reads it on
   * every `up` and `refresh`, and `destroy` only forgets it.
   */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): AuthIntegration {
    return new AuthIntegration(name, lookupArgs<AuthIntegrationArgs>(authIntegrationInputs), { ...opts, id });
  }
}
