import { z } from "zod";
import { authProvider, branchId, projectId, type Integration, type KeySet, databaseName, NEON_DEFAULTS, roleName } from "../schemas";
import { createOwned } from "../provider/converge";
import { declaredFields, halfMade, inputRules, compact, joinId, splitId, type Handler, type KindDeclaration, type NaturalKey, type Props } from "../provider/kit";
import { CREATE_TIME_SWITCH, input, inputsOf, output } from "../provider/declaration";
import { appEnv, KEY_SET_OUTPUTS } from "./authSdkKeys";
import { OWNER_OUTPUTS } from "./authOwnershipTransfer";
import { deleteUnlessHidden, liveIntegration, projectIntegration } from "../provider/parent";

const KIND = "AuthIntegration";

/** @internal Runtime input rules, each published input described on its rule; kept out of the published types (zod is not a public type). */
export const authIntegrationInputs = z.strictObject({
  projectId: input(projectId, { doc: "Neon project id (`^[a-z0-9-]{1,60}$`).", outputDoc: "The Neon project.", replaces: true }),
  branchId: input(branchId, {
    doc: "The project's default (production) branch; the users table lives in its database.",
    outputDoc: "The project's default (production) branch the integration is bound to.",
    replaces: true,
    change: "replaces; the project's default (production) branch",
  }),
  databaseName: input(databaseName.default(NEON_DEFAULTS.database), {
    doc: `Database that gets the \`neon_auth.users_sync\` table. Default \`${NEON_DEFAULTS.database}\`.`,
    outputDoc: "The database that holds `neon_auth.users_sync`, as declared.",
    replaces: true,
    change: "replaces; database that gets `neon_auth.users_sync`",
  }),
  roleName: input(roleName.default(NEON_DEFAULTS.role), {
    doc: `Role that owns it. Default \`${NEON_DEFAULTS.role}\` (deprecated by Neon, still sent).`,
    outputDoc: "The role sent at creation, as declared.",
    replaces: true,
    change: "replaces; sent as the API asks (Neon marks it deprecated)",
  }),
  authProvider: input(authProvider.default("stack"), {
    doc: "Auth provider; `stack` is the only one of this API generation.",
    outputDoc: "The auth provider: `stack`.",
    replaces: true,
  }),
  adopt: input(z.boolean().default(false), {
    ...CREATE_TIME_SWITCH,
    doc: "Take over an integration that already exists for this provider (made outside this stack) instead of failing with 409. Its SDK keys are then regenerated, as the API has no other way to hand them out. Default false.",
    outputDoc: "Whether an existing integration was (or may be) taken over at creation.",
  }),
});
type Inputs = z.infer<typeof authIntegrationInputs>;

const INPUTS = inputsOf(authIntegrationInputs);

function outputsOf(inputs: Inputs, keys: Partial<KeySet>, record: Integration | undefined, old: Props = {}): Props {
  // An adopted integration's keys are unknown until generated (see read).
  const envVars = keys.pub_client_key === undefined ? undefined : appEnv(keys as KeySet);
  return compact({
    ...inputs,
    authProviderProjectId: keys.auth_provider_project_id ?? record?.auth_provider_project_id,
    pubClientKey: keys.pub_client_key,
    secretServerKey: keys.secret_server_key,
    jwksUrl: keys.jwks_url ?? record?.jwks_url ?? old.jwksUrl,
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

/** @internal What either face's provider process runs for this kind (provider/runtime.ts guards it). */
export const integrationHandler: Handler<Inputs> = {
  ...inputRules(KIND, authIntegrationInputs, (_olds, news) => declaredFields(INPUTS, news), { deleteBeforeReplace: true }),

  async create(inputs, ctx) {
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
    const id = OBJECT.key(inputs)!;
    let keys: Partial<KeySet> = made.created ?? {};
    try {
      if (made.created === undefined) keys = (await createOwned({ create: () => ctx.client.generateSdkKeys({ project_id: inputs.projectId, auth_provider: inputs.authProvider }) })).created!;
      const record = await projectIntegration(ctx, inputs.projectId, inputs.authProvider);
      return { id, outs: outputsOf(inputs, keys, record) };
    } catch (err) {
      // The integration exists: recorded with what was seen of it, so refresh fills the rest in.
      throw halfMade(`${KIND}: project ${inputs.projectId}'s "${inputs.authProvider}" integration exists, but reading it back failed; \`pulumi refresh\` or the next \`pulumi up\` completes it. (${(err as Error).message})`, id, outputsOf(inputs, keys, undefined));
    }
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

/** @internal The kind, declared once (provider/declaration.ts). */
export const authIntegrationKind: KindDeclaration = {
  kind: KIND,
  doc:
    "Neon Auth on a project: provisions a managed auth project at the provider and the\n" +
    "`neon_auth.users_sync` table. Any input change replaces it (delete first: one per provider).\n" +
    "Refresh reads it from the project's integration list.\n" +
    "\n" +
    "@example\n" +
    "```ts\n" +
    'const auth = new AuthIntegration("auth", { projectId: "p-123", branchId: "br-main-1" });\n' +
    "export const env = auth.envVars; // secret\n" +
    "```",
  keptByUpdate: ["authProviderProjectId", "createdAt", "ref"],
  inputs: INPUTS,
  outputs: {
    ...KEY_SET_OUTPUTS,
    schemaName: output(z.string(), { doc: "Schema of the synchronised users table: `neon_auth`." }),
    tableName: output(z.string(), { doc: "The synchronised users table: `users_sync`." }),
    dbName: output(z.string(), { doc: "The database as Neon reports it." }),
    ...OWNER_OUTPUTS,
    createdAt: output(z.string(), { doc: "When Neon created the integration (ISO 8601, UTC); part of its identity." }),
  },
  id: "`<projectId>/<authProvider>`, e.g. `p-123/stack`.",
  importable: "the API never shows its keys again; declare it with `adopt: true` (its keys are regenerated)",
  schema: authIntegrationInputs,
  object: OBJECT,
  handler: integrationHandler,
};

