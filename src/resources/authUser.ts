import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { isConflict, isNotFound, mayHaveActed } from "../client";
import { authProvider, email, projectId, userName } from "../schemas";
import { api } from "./context";
import { checkInputs, parsedInputs, compact, diffFields, MODULE, providerOf, UNKNOWN, type Handler, type Props } from "./kit";
import { childInputs, explainMissingIntegration, identityRule, integrationIdentity, parentOf, type IntegrationIdentity, type ParentIntegration } from "./parent";

const KIND = "AuthUser";

/** @internal Runtime input rules; kept out of the published types (zod is not a public type). */
export const authUserInputs = z.strictObject({
  projectId,
  integration: integrationIdentity,
  // Addresses are compared case-insensitively by the auth provider; normalising here keeps
  // `Ada@Example.com` and `ada@example.com` from showing as a change.
  email: z.string().trim().toLowerCase().pipe(email),
  name: userName.optional(),
  authProvider: authProvider.default("stack"),
  recreateOnChange: z.boolean().optional(),
});

export interface AuthUserArgs {
  /** The AuthIntegration the user lives in; the user is created after it and replaced with it. */
  integration: ParentIntegration;
  /** The user's email address (1 to 256 characters). */
  email: pulumi.Input<string>;
  /** Display name, 1 to 255 characters. */
  name?: pulumi.Input<string>;
  /**
   * The API cannot change a user: a new email or name means deleting the account (its id,
   * sign-ins and sessions) and creating another. Such a change is refused at preview unless this
   * is true. Default false.
   */
  recreateOnChange?: pulumi.Input<boolean>;
}

// The API has no update for users: every change replaces. Delete first, as the auth provider
// keeps email addresses unique.
const fields = (olds: Props) =>
  [
    { name: "projectId", replaces: true },
    identityRule(olds),
    { name: "email", replaces: true },
    { name: "name", replaces: true },
    { name: "authProvider", replaces: true },
  ] as const;

/**
 * A new email or name on a user that exists, in the same integration, without
 * `recreateOnChange`: refused, as it would delete the account. A user whose integration is
 * replaced is gone with it anyway.
 */
function refusedChanges(olds: Props, news: Props): pulumi.dynamic.CheckFailure[] {
  if (olds.email === undefined || news.recreateOnChange === true) return [];
  if (JSON.stringify(olds.integration) !== JSON.stringify(news.integration)) return [];
  return (["email", "name"] as const)
    .filter((f) => news[f] !== UNKNOWN && (olds[f] ?? null) !== (news[f] ?? null))
    .map((f) => ({
      property: f,
      reason:
        `${KIND} ${f} cannot change in place: the API has no update for users, so changing it from ` +
        `${JSON.stringify(olds[f] ?? null)} to ${JSON.stringify(news[f] ?? null)} would delete the account ` +
        `${olds.email} (its id, sign-ins and sessions) and create a new one. To do that on purpose, set ` +
        "`recreateOnChange: true` on this AuthUser; otherwise put the old value back.",
    }));
}

/** @internal What the dynamic-provider process runs for this kind (runtime.ts). */
export const userHandler: Handler = {
  async check(olds, news) {
    const checked = checkInputs(KIND, authUserInputs, news);
    const refused = checked.failures ? [] : refusedChanges(olds, checked.inputs ?? {});
    return refused.length > 0 ? { inputs: checked.inputs, failures: refused } : checked;
  },

  async diff(_id, olds, news) {
    return diffFields(olds, news, fields(olds), { deleteBeforeReplace: true });
  },

  async create(props) {
    const inputs = parsedInputs(authUserInputs, props);
    try {
      const { id } = await api().createUser({
        project_id: inputs.projectId,
        auth_provider: inputs.authProvider,
        email: inputs.email,
        ...(inputs.name !== undefined ? { name: inputs.name } : {}),
      });
      return { id, outs: compact({ ...inputs, userId: id }) };
    } catch (err) {
      const missing = explainMissingIntegration(KIND, inputs.projectId, err);
      if (missing !== err) throw missing;
      if (mayHaveActed(err)) {
        // The API cannot look a user up, so a lost answer cannot be resolved here. Say so
        // plainly rather than risk a second user with the same address.
        throw new Error(
          `AuthUser ${inputs.email}: the create request may have reached Neon but its answer was lost, ` +
            `so the user may exist without this stack knowing its id. Look for ${inputs.email} in ` +
            `neon_auth.users_sync of project ${inputs.projectId}: if it is there, delete that user ` +
            `(DELETE /projects/${inputs.projectId}/auth/users/<id>) or remove it from this stack, then run ` +
            `\`pulumi up\` again. (${(err as Error).message})`,
        );
      }
      if (isConflict(err)) {
        throw new Error(
          `AuthUser ${inputs.email}: project ${inputs.projectId} already has a user with this email (made outside ` +
            `this stack, or by an earlier run whose answer was lost). The API cannot look users up, so it cannot be ` +
            `taken over: find its id in neon_auth.users_sync, delete it (DELETE /projects/${inputs.projectId}/auth/users/<id>) ` +
            `and run \`pulumi up\` again, or remove it from this stack. (${(err as Error).message})`,
        );
      }
      throw err;
    }
  },

  async read(id, props) {
    // There is no read endpoint for users: refresh can only see that the integration it was made
    // in is gone (then so is the user). A user deleted on its own stays in state until replaced.
    const parent = await parentOf(KIND, props);
    return parent ? { id, props: { ...props, integration: parent.identity } } : {};
  },

  async update(_id, olds, news) {
    // Only what needs no request: the integration's identity (state written before it was
    // recorded) and `recreateOnChange`.
    return { outs: compact({ ...olds, integration: news.integration, recreateOnChange: news.recreateOnChange }) };
  },

  async delete(id, props) {
    try {
      await api().deleteUser(props.projectId, id);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  },
};

/**
 * A user of the project's auth. The API can create and delete users but not read or update
 * them: a new email or name is refused at preview unless `recreateOnChange` is set (then the
 * account is deleted and created anew), and refresh cannot see a user deleted elsewhere, only
 * the integration it lives in being gone or replaced (see the README's limits).
 *
 * @example
 * ```ts
 * const ada = new AuthUser("ada", { integration: auth, email: "ada@example.com", name: "Ada" });
 * export const adaId = ada.userId;
 * ```
 */
export class AuthUser extends pulumi.dynamic.Resource {
  /** The Neon project, from the integration. */
  declare readonly projectId: pulumi.Output<string>;
  /** The identity of the integration the user was made in. */
  declare readonly integration: pulumi.Output<IntegrationIdentity>;
  /** The email address the user was created with. */
  declare readonly email: pulumi.Output<string>;
  /** The display name the user was created with. */
  declare readonly name: pulumi.Output<string | undefined>;
  /** The auth provider, from the integration. */
  declare readonly authProvider: pulumi.Output<string>;
  /** The user's id at the auth provider; also the resource id. */
  declare readonly userId: pulumi.Output<string>;

  constructor(name: string, args: AuthUserArgs, opts?: pulumi.CustomResourceOptions) {
    super(providerOf(KIND), name, { ...childInputs(args), userId: undefined }, opts, MODULE, KIND);
  }
}
