/**
 * Neon Auth on one branch: the branch-scoped (Better Auth) API generation (`/projects/{id}/branches/{id}/auth`), with
 * its singleton settings as properties. Named after Neon's own product name, as its console and
 * docs say "Neon Auth" for this generation; the project-level `AuthIntegration` keeps its name.
 */
import { z } from "zod";
import { isNotFound } from "../client";
import * as s from "../schemas";
import type { Context } from "../provider/context";
import { adoptSwitch, input, inputsOf, output } from "../provider/declaration";
import { AREAS, EVERY_SETTING, liveSettings, refuseOAuthServerOffRoot, SETTINGS, where, write, type Area, type Where } from "./neonAuthSettings";
import { createOwned } from "../provider/converge";
import { declaredFields, inputRules, compact, halfMade, joinId, splitId, type Handler, type KindDeclaration, type NaturalKey, type Props } from "../provider/kit";
import { namedIn, sameValue } from "../provider/diff";
import { deleteUnlessHidden, liveIntegration } from "../provider/parent";
import { placeholder } from "../provider/placeholders";
import { oauthServerUrls } from "../provider/authUrls";

const KIND = "NeonAuth";

/** @internal Runtime input rules, each published input described on its rule; kept out of the published types. */
export const neonAuthInputs = z
  .strictObject({
    projectId: input(s.projectId, { doc: "Neon project id (`^[a-z0-9-]{1,60}$`).", outputDoc: "The Neon project.", shown: "string `^[a-z0-9-]{1,60}$`", replaces: true }),
    branchId: input(s.branchId, {
      doc: "The branch that gets Neon Auth; each branch has its own integration, users and settings.",
      outputDoc: "The branch this Neon Auth belongs to.",
      shown: "string `^[a-z0-9-]{1,60}$`",
      replaces: true,
    }),
    authProvider: input(z.enum(["better_auth", "stack"], { message: 'must be "better_auth" or "stack"' }).default("better_auth"), {
      doc: "`better_auth` (default) or `stack` (deprecated by Neon for this generation). Replaces on change.",
      outputDoc: "`better_auth` or `stack`.",
      replaces: true,
      change: "replaces (delete first)",
    }),
    databaseName: input(s.databaseName.optional(), {
      doc: "Database that gets the `neon_auth` schema; default the branch's default database. Replaces on change.",
      outputDoc: "The database given to hold `neon_auth`, if any (`dbName` is Neon's answer).",
      shown: "Postgres identifier",
      absent: "the branch's default database",
      replaces: true,
    }),
    deleteDataOnDestroy: input(z.boolean().default(false), {
      doc: "Destroy drops the branch's `neon_auth` schema and its users too (`delete_data: true`). Default false: destroy disables Neon Auth and keeps the data.",
      outputDoc: "Whether destroy drops the branch's users and `neon_auth` data.",
      change: "in place (only matters at destroy)",
    }),
    appName: input(s.text(256).optional(), {
      doc: "The app name shown in auth emails.",
      outputDoc: "The app name, when managed.",
      shown: "string 1–256",
      absent: "not managed",
      change: "in place (`PATCH …/auth/config`)",
    }),
    allowLocalhost: input(z.boolean().optional(), {
      doc: "Whether sign-in from localhost is allowed (the service's default is true).",
      outputDoc: "Whether sign-in from localhost is allowed, when managed.",
      absent: "not managed",
      change: "in place (`PATCH …/auth/allow_localhost`)",
    }),
    // The settings: published from their own table (`also`), so described but no inputs of the Args here.
    ...(Object.fromEntries(s.BRANCH_SETTINGS.map((row) => [row.name, AREAS[row.name].optional().describe(row.doc)])) as { [K in Area]: z.ZodOptional<(typeof AREAS)[K]> }),
    adopt: adoptSwitch(
      "Take over Neon Auth that is already enabled on the branch instead of failing: this stack then manages the settings it declares and disables auth on destroy. " +
        "A branch made from one with Neon Auth has it already (auth branches with the database), so a stack per preview branch sets this. " +
        "It extends to the children declared in this NeonAuth: a domain, provider, email server or user found there is taken over and made what the program declares " +
        "(a child's own `adopt: false` keeps it strict). Default false: auth found on a branch may be another stack's or a person's, and is not taken over unasked.",
      "Whether Neon Auth found on the branch was (or may be) taken over at creation.",
    ),
  })
  .superRefine((v, ctx) => {
    // What the service refuses must fail at preview, not after auth is enabled.
    if (v.webhooks?.enabled === true && v.webhooks.webhookUrl === undefined) {
      ctx.addIssue({ code: "custom", path: ["webhooks", "webhookUrl"], message: "is required when webhooks.enabled is true (Neon refuses enabled webhooks without a URL)" });
    }
  });
type Inputs = z.infer<typeof neonAuthInputs>;

const INPUTS = inputsOf(neonAuthInputs);

/** A field Neon leaves out of its answer is not set there, not changed: the output keeps what `old` recorded. */
function outputsOf(inputs: Props, record: s.BranchIntegration, old: Props = {}): Props {
  // Only where the program turns the OAuth server on: a setting it does not manage is not read.
  const server = inputs.oauthServer?.enabled === true ? oauthServerUrls(record.base_url) : undefined;
  return compact({
    oauthServerIssuer: server?.issuer,
    oauthServerDiscoveryUrl: server?.discoveryUrl,
    ...inputs,
    authProviderProjectId: record.auth_provider_project_id,
    jwksUrl: record.jwks_url ?? old.jwksUrl,
    baseUrl: record.base_url ?? old.baseUrl,
    dbName: record.db_name ?? old.dbName,
    ownedBy: record.owned_by ?? old.ownedBy,
    createdAt: record.created_at,
  });
}

/** The branch's integration, or undefined when auth is not enabled on it (a 404). */
async function enabled(ctx: Context, p: Where): Promise<s.BranchIntegration | undefined> {
  try {
    return await ctx.client.branchAuth.getBranchAuth(p);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** What names the object of this kind; also its id. */
const OBJECT: NaturalKey = { fields: [], what: "Neon Auth of one branch", key: (i) => i.branchId && joinId(i.projectId, i.branchId) };

/** @internal What either face's provider process runs for this kind (provider/runtime.ts guards it). */
export const neonAuthHandler: Handler<Inputs> = {
  // A setting the program does not name, or a field of one, is left as the service has it (update),
  // so it is no change either: an import by id, which reads every field of every setting, previews as
  // no change for those the program leaves out.
  ...inputRules(
    KIND,
    neonAuthInputs,
    (_olds, news) =>
      [...declaredFields(INPUTS, news), ...s.BRANCH_SETTINGS.map((row) => ({ name: row.name, namedOnly: true }))].filter(
        (f) => news[f.name] !== undefined || !(SETTINGS as readonly string[]).includes(f.name),
      ),
    { deleteBeforeReplace: true },
  ),

  async create(inputs, ctx) {
    const p = where(inputs);
    const id = OBJECT.key(inputs)!;
    await refuseOAuthServerOffRoot(ctx, p, inputs);
    await createOwned({
      create: () => ctx.client.branchAuth.enableBranchAuth(p, compact({ auth_provider: inputs.authProvider, database_name: inputs.databaseName })),
      find: () => enabled(ctx, p),
      adopt: inputs.adopt,
      object: `${KIND}: Neon Auth on branch ${inputs.branchId} of project ${inputs.projectId}`,
      how: {
        adopt: "set `adopt: true` on this NeonAuth to take it over on purpose (this stack then manages its settings and disables it on destroy)",
        extra: `or, if a killed run of this stack enabled it, import it as the recovery from interrupted runs in docs/troubleshooting.md says (id ${id})`,
      },
    });
    // Each setting is its own request. One that fails leaves auth enabled: the engine records the
    // NeonAuth with the settings written so far (a partial create), and the next `up` writes the rest.
    const done: Props = { ...inputs };
    for (const area of SETTINGS) delete done[area];
    for (const area of SETTINGS) {
      if (inputs[area] === undefined) continue;
      try {
        await write(ctx, p, area, inputs[area]);
      } catch (err) {
        const record = await enabled(ctx, p).catch(() => undefined);
        const message = `${KIND}: Neon Auth is enabled on branch ${inputs.branchId}, but setting ${area} failed; the next \`pulumi up\` sets it again. (${(err as Error).message})`;
        throw halfMade(message, id, record ? outputsOf(done, record) : done);
      }
      done[area] = inputs[area];
    }
    const record = await ctx.client.branchAuth.getBranchAuth(p);
    return { id, outs: outputsOf(inputs, record) };
  },

  async read(id, props, ctx) {
    const [projectId, branchId] = splitId(KIND, id, 2, "<projectId>/<branchId>");
    const p = where({ projectId, branchId });
    // Shared with the branch's children; forgotten only when the branch is visible and lacks it.
    const record = (await liveIntegration(ctx, KIND, { projectId, branchId }, "")) as s.BranchIntegration | undefined;
    if (record === undefined) return {};
    // A lookup (`NeonAuth.get`) has no recorded props: it reads every setting.
    const managed = props.projectId === undefined ? EVERY_SETTING : props;
    const inputs = compact({
      projectId,
      branchId,
      authProvider: record.auth_provider,
      databaseName: props.databaseName,
      deleteDataOnDestroy: props.deleteDataOnDestroy ?? false,
      adopt: props.adopt,
      ...(await liveSettings(ctx, p, record, managed)),
    });
    // Nothing recorded (an import by id or a lookup): the webhook URL, a secret, goes into the
    // inputs (what `pulumi import` writes into a program) as a placeholder for its configuration.
    const webhooks = (inputs as Props).webhooks as Props | undefined;
    const url = props.projectId === undefined ? webhooks?.webhookUrl : undefined;
    const given = url === undefined ? inputs : { ...inputs, webhooks: { ...webhooks, webhookUrl: placeholder("webhookUrl", true) } };
    return { id, props: outputsOf(inputs, record, props), inputs: given };
  },

  async update(_id, olds, inputs, ctx) {
    const p = where(inputs);
    // A setting the program stops naming is left as the service has it, and so is a field of one.
    const changed = SETTINGS.filter((a) => inputs[a] !== undefined && !sameValue(namedIn(olds[a], inputs[a]), inputs[a]));
    if (changed.includes("oauthServer") && olds.oauthServer?.enabled !== true) await refuseOAuthServerOffRoot(ctx, p, inputs);
    for (const area of changed) await write(ctx, p, area, inputs[area]);
    const record = await ctx.client.branchAuth.getBranchAuth(p);
    return { outs: outputsOf(inputs, record, olds) };
  },

  async delete(id, props, ctx) {
    const [projectId, branchId] = splitId(KIND, id, 2, "<projectId>/<branchId>");
    // `delete_data` only when the program asked: the default keeps the branch's users.
    await deleteUnlessHidden(ctx, KIND, { projectId, branchId }, () =>
      ctx.client.branchAuth.disableBranchAuth(where({ projectId, branchId }), props.deleteDataOnDestroy === true ? { delete_data: true } : {}),
    );
  },
};

/** @internal The kind, declared once (provider/declaration.ts). */
export const neonAuthKind: KindDeclaration = {
  kind: KIND,
  doc:
    "Neon Auth on one branch (the branch-scoped API generation, Better Auth). The id is\n" +
    "`<projectId>/<branchId>`. Settings given are applied after enabling and compared on refresh;\n" +
    "settings and fields left out are left as the service has them.\n" +
    "\n" +
    "@example\n" +
    "```ts\n" +
    'const auth = new NeonAuth("auth", { projectId: "p-123", branchId: "br-main-1", allowLocalhost: false });\n' +
    "```",
  keptByUpdate: ["authProviderProjectId", "createdAt", "ref"],
  also: { args: "NeonAuthSettingsArgs", outputs: "NeonAuthSettingsOutputs" },
  inputs: INPUTS,
  outputs: {
    authProviderProjectId: output(z.string(), { doc: "The auth project's id at the provider." }),
    jwksUrl: output(z.string(), { doc: "Address of the JSON Web Key Set, for verifying tokens." }),
    baseUrl: output(z.string().optional(), { doc: "Base URL of the auth service (Better Auth)." }),
    dbName: output(z.string(), { doc: "The database that holds `neon_auth`, as Neon reports it." }),
    ownedBy: output(z.string(), { doc: "`neon`, or `user` after an ownership transfer." }),
    createdAt: output(z.string(), { doc: "When Neon enabled auth on the branch (ISO 8601, UTC)." }),
    oauthServerIssuer: output(z.string().optional(), { doc: "The OAuth server's issuer, which a resource server checks in tokens: set when the program enables `oauthServer`." }),
    oauthServerDiscoveryUrl: output(z.string().optional(), { doc: "The OAuth server's OpenID discovery document (`{issuer}/.well-known/openid-configuration`): set when the program enables `oauthServer`." }),
  },
  id: "`<projectId>/<branchId>`.",
  importable: true,
  schema: neonAuthInputs,
  object: OBJECT,
  handler: neonAuthHandler,
};

