/**
 * Neon Auth on one branch: the branch-scoped (Better Auth) API generation (`/projects/{id}/branches/{id}/auth`), with
 * its singleton settings as properties. Named after Neon's own product name, as its console and
 * docs say "Neon Auth" for this generation; the project-level `AuthIntegration` keeps its name.
 */
import * as pulumi from "@pulumi/pulumi";
import { declareOAuthServer } from "./oauthServerChecks";
import { z } from "zod";
import { isNotFound } from "../client";
import * as s from "../schemas";
import type { Context } from "./context";
import type { NeonAuthSettingsArgs, NeonAuthSettingsOutputs } from "./settingTypes";
import { AREAS, EVERY_SETTING, liveSettings, refuseOAuthServerOffRoot, SETTINGS, where, write, type Area, type Where } from "./neonAuthSettings";
import { createOwned } from "./converge";
import { inputRules, compact, joinId, lookupArgs, parsedInputs, splitId, type Handler, type NaturalKey, type Props, registration } from "./kit";
import { sameValue } from "./diff";
import { ADOPTS_CHILDREN, deleteUnlessHidden, liveIntegration } from "./parent";

const KIND = "NeonAuth";

/** @internal Runtime input rules; kept out of the published types. */
export const neonAuthInputs = z
  .strictObject({
  projectId: s.projectId,
  branchId: s.branchId,
  authProvider: z.enum(["better_auth", "stack"], { message: 'must be "better_auth" or "stack"' }).default("better_auth"),
  databaseName: s.databaseName.optional(),
  deleteDataOnDestroy: z.boolean().default(false),
  appName: s.text(256).optional(),
  allowLocalhost: z.boolean().optional(),
  ...Object.fromEntries(Object.entries(AREAS).map(([k, v]) => [k, v.optional()])) as { [K in Area]: z.ZodOptional<(typeof AREAS)[K]> },
  adopt: z.boolean().optional(),
  })
  .superRefine((v, ctx) => {
    // What the service refuses must fail at preview, not after auth is enabled.
    if (v.webhooks?.enabled === true && v.webhooks.webhookUrl === undefined) {
      ctx.addIssue({ code: "custom", path: ["webhooks", "webhookUrl"], message: "is required when webhooks.enabled is true (Neon refuses enabled webhooks without a URL)" });
    }
  });
type Inputs = z.infer<typeof neonAuthInputs>;

const FIELDS = [
  { name: "projectId", replaces: true },
  { name: "branchId", replaces: true },
  { name: "authProvider", replaces: true },
  { name: "databaseName", replaces: true },
  { name: "deleteDataOnDestroy" },
  { name: "adopt" },
  ...SETTINGS.map((name) => ({ name })),
] as const;

function outputsOf(inputs: Props, record: s.BranchIntegration): Props {
  return compact({
    ...inputs,
    authProviderProjectId: record.auth_provider_project_id,
    jwksUrl: record.jwks_url,
    baseUrl: record.base_url,
    dbName: record.db_name,
    ownedBy: record.owned_by,
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

/** @internal What the dynamic-provider process runs for this kind (runtime.ts). */
export const neonAuthHandler: Handler = {
  ...inputRules(KIND, neonAuthInputs, FIELDS, { deleteBeforeReplace: true }),
  object: OBJECT,

  async create(props, ctx) {
    const inputs: Inputs = parsedInputs(neonAuthInputs, props);
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
        extra: `or, if a killed run of this stack enabled it, import it as the README's recovery from interrupted runs says (id ${id})`,
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
        // The engine shows `reasons` for such a partial create, so the whole message goes there.
        const message = `${KIND}: Neon Auth is enabled on branch ${inputs.branchId}, but setting ${area} failed; the next \`pulumi up\` sets it again. (${(err as Error).message})`;
        throw Object.assign(new Error(message), { id, properties: record ? outputsOf(done, record) : compact(done), reasons: [message] });
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
    return { id, props: outputsOf(inputs, record), inputs };
  },

  async update(_id, olds, news, ctx) {
    const inputs: Inputs = parsedInputs(neonAuthInputs, news);
    const p = where(inputs);
    // A setting the program stops naming is left as the service has it.
    const changed = SETTINGS.filter((a) => inputs[a] !== undefined && !sameValue(olds[a], inputs[a]));
    if (changed.includes("oauthServer") && olds.oauthServer?.enabled !== true) await refuseOAuthServerOffRoot(ctx, p, inputs);
    for (const area of changed) await write(ctx, p, area, inputs[area]);
    const record = await ctx.client.branchAuth.getBranchAuth(p);
    return { outs: outputsOf(inputs, record) };
  },

  async delete(id, props, ctx) {
    const [projectId, branchId] = splitId(KIND, id, 2, "<projectId>/<branchId>");
    // `delete_data` only when the program asked: the default keeps the branch's users.
    await deleteUnlessHidden(ctx, KIND, { projectId, branchId }, () =>
      ctx.client.branchAuth.disableBranchAuth(where({ projectId, branchId }), props.deleteDataOnDestroy === true ? { delete_data: true } : {}),
    );
  },
};

export interface NeonAuthArgs extends NeonAuthSettingsArgs {
  /** Neon project id (`^[a-z0-9-]{1,60}$`). */
  projectId: pulumi.Input<string>;
  /** The branch that gets Neon Auth; each branch has its own integration, users and settings. */
  branchId: pulumi.Input<string>;
  /** `better_auth` (default) or `stack` (deprecated by Neon for this generation). Replaces on change. */
  authProvider?: pulumi.Input<"better_auth" | "stack">;
  /** Database that gets the `neon_auth` schema; default the branch's default database. Replaces on change. */
  databaseName?: pulumi.Input<string>;
  /**
   * Destroy drops the branch's `neon_auth` schema and its users too (`delete_data: true`).
   * Default false: destroy disables Neon Auth and keeps the data.
   */
  deleteDataOnDestroy?: pulumi.Input<boolean>;
  /** The app name shown in auth emails. */
  appName?: pulumi.Input<string>;
  /** Whether sign-in from localhost is allowed (the service's default is true). */
  allowLocalhost?: pulumi.Input<boolean>;
  /**
   * Take over Neon Auth that is already enabled on the branch instead of failing: this stack then
   * manages the settings it declares and disables auth on destroy. A branch made from one with
   * Neon Auth has it already (auth branches with the database), so a stack per preview branch sets
   * this. It extends to the children declared in this NeonAuth: a domain, provider, email server
   * or user found there is taken over and made what the program declares (a child's own
   * `adopt: false` keeps it strict). Default false: auth found on a branch may be another stack's
   * or a person's, and is not taken over unasked.
   */
  adopt?: pulumi.Input<boolean>;
}

/**
 * Neon Auth on one branch (the branch-scoped API generation, Better Auth). The id is
 * `<projectId>/<branchId>`. Settings given are applied after enabling and compared on refresh;
 * settings and fields left out are left as the service has them.
 *
 * @example
 * ```ts
 * const auth = new NeonAuth("auth", { projectId: "p-123", branchId: "br-main-1", allowLocalhost: false });
 * ```
 */
// The settings' outputs, declared from the table of settings (settingTypes.ts).
export interface NeonAuth extends NeonAuthSettingsOutputs {}
export class NeonAuth extends pulumi.dynamic.Resource {
  /** The Neon project. */
  declare readonly projectId: pulumi.Output<string>;
  /** The branch this Neon Auth belongs to. */
  declare readonly branchId: pulumi.Output<string>;
  /** `better_auth` or `stack`. */
  declare readonly authProvider: pulumi.Output<string>;
  /** Whether destroy drops the branch's users and `neon_auth` data. */
  declare readonly deleteDataOnDestroy: pulumi.Output<boolean>;
  /** The auth project's id at the provider. */
  declare readonly authProviderProjectId: pulumi.Output<string>;
  /** Address of the JSON Web Key Set, for verifying tokens. */
  declare readonly jwksUrl: pulumi.Output<string>;
  /** Base URL of the auth service (Better Auth). */
  declare readonly baseUrl: pulumi.Output<string | undefined>;
  /** The database that holds `neon_auth`, as Neon reports it. */
  declare readonly dbName: pulumi.Output<string>;
  /** `neon`, or `user` after an ownership transfer. */
  declare readonly ownedBy: pulumi.Output<string>;
  /** When Neon enabled auth on the branch (ISO 8601, UTC). */
  declare readonly createdAt: pulumi.Output<string>;
  /** The database given to hold `neon_auth`, if any (`dbName` is Neon's answer). */
  declare readonly databaseName: pulumi.Output<string | undefined>;
  /** The app name, when managed. */
  declare readonly appName: pulumi.Output<string | undefined>;
  /** Whether sign-in from localhost is allowed, when managed. */
  declare readonly allowLocalhost: pulumi.Output<boolean | undefined>;

  constructor(name: string, args: NeonAuthArgs, opts?: pulumi.CustomResourceOptions) {
    // Registered even when left out, as children read them: `deleteDataOnDestroy` tells them their
    // parent is a NeonAuth (parent.ts), `authProvider` is sent with their requests.
    // Every setting is registered, given or not, so that each input is also an output.
    const settings = Object.fromEntries(SETTINGS.map((k) => [k, undefined]));
    super(
      ...registration(KIND, name, neonAuthInputs, { databaseName: undefined, deleteDataOnDestroy: undefined, authProvider: undefined, ...settings, ...args }, opts, {
        computed: ["authProviderProjectId", "jwksUrl", "baseUrl", "dbName", "ownedBy", "createdAt"],
        object: OBJECT,
      }),
    );
    (this as { [ADOPTS_CHILDREN]?: pulumi.Input<boolean> })[ADOPTS_CHILDREN] = args.adopt;
    declareOAuthServer(this, name, args.oauthServer);
  }

  /**
   * Looks up Neon Auth on a branch by its id, `<projectId>/<branchId>`, without managing it: the
   * engine reads it (with every setting) on every `up` and `refresh`, and `destroy` only forgets
   * it. Children may take it as `integration`.
   */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): NeonAuth {
    return new NeonAuth(name, lookupArgs<NeonAuthArgs>(neonAuthInputs), { ...opts, id });
  }
}
