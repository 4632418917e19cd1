import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { isConflict, isNotFound, mayHaveActed } from "../client";
import { authProvider, email, projectId, userName } from "../schemas";
import { api } from "./context";
import { checkInputs, parsedInputs, compact, diffFields, lookupArgs, MODULE, providerOf, splitId, UNKNOWN, type Handler, type Props } from "./kit";
import { liveUserByEmail, readBackProblem, userById } from "./usersSync";
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

type Inputs = z.output<typeof authUserInputs>;

/** Tries of the create when read-back shows that an earlier try did not make the user. */
const CREATE_TRIES = 3;

/**
 * Creates the user. A try whose answer was lost is resolved by reading `users_sync`: the user is
 * there (taken over) or not (created again); a 409 on such a second try means the lost try made
 * it after all, so the user found by email is taken over. A 409 on the first try is a user made
 * outside this stack, never taken over silently. Without read-back, today's honest errors.
 */
async function createOrTakeOver(inputs: Inputs): Promise<string> {
  let lost: unknown;
  for (let attempt = 1; ; attempt++) {
    try {
      const { id } = await api().createUser({
        project_id: inputs.projectId,
        auth_provider: inputs.authProvider,
        email: inputs.email,
        ...(inputs.name !== undefined ? { name: inputs.name } : {}),
      });
      return id;
    } catch (err) {
      const missing = explainMissingIntegration(KIND, inputs.projectId, err);
      if (missing !== err) throw missing;
      const resolvable = mayHaveActed(err) || (isConflict(err) && lost !== undefined);
      if (!resolvable && !isConflict(err)) throw err;
      const found = await liveUserByEmail(inputs.projectId, inputs.authProvider, inputs.email);
      if (!resolvable) throw conflict(inputs, err, found?.id);
      if (found) return found.id;
      if (found === undefined || attempt >= CREATE_TRIES) throw lostAnswer(inputs, lost ?? err, await readBackProblem(inputs.projectId, inputs.authProvider));
      lost = err;
    }
  }
}

function lostAnswer(inputs: Inputs, err: unknown, why: string | undefined): Error {
  return new Error(
    `AuthUser ${inputs.email}: the create request may have reached Neon but its answer was lost, ` +
      `so the user may exist without this stack knowing its id` +
      (why === undefined ? "" : `, and it cannot be read back from neon_auth.users_sync (${why})`) +
      `. Look for ${inputs.email} in neon_auth.users_sync of project ${inputs.projectId}: if it is there, delete that user ` +
      `(DELETE /projects/${inputs.projectId}/auth/users/<id>) or remove it from this stack, then run ` +
      `\`pulumi up\` again. (${(err as Error).message})`,
  );
}

function conflict(inputs: Inputs, err: unknown, foundId: string | undefined): Error {
  const where = foundId === undefined ? "find its id in neon_auth.users_sync" : `its id is ${foundId}`;
  return new Error(
    `AuthUser ${inputs.email}: project ${inputs.projectId} already has a user with this email, made outside this stack. ` +
      `It is not taken over silently: ${where}; look it up with AuthUser.get instead, or delete it (DELETE /projects/${inputs.projectId}/auth/users/<id>) and run ` +
      `\`pulumi up\` again, or remove it from this stack. (${(err as Error).message})`,
  );
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
    const id = await createOrTakeOver(inputs);
    return { id, outs: compact({ ...inputs, userId: id }) };
  },

  async read(id, props) {
    // A lookup's id is `<projectId>/<id or email>`, also on its later refreshes; a user id has no "/".
    const lookup = id.includes("/");
    const [projectId, key] = lookup ? splitId(KIND, id, 2, "<projectId>/<user id or email>") : [props.projectId as string, id];
    const provider = props.authProvider ?? "stack";
    const parent = await parentOf(KIND, { ...props, projectId });
    if (!parent) return {};
    const user = lookup && key.includes("@") ? await liveUserByEmail(projectId, provider, key) : await userById(projectId, provider, key);
    if (user === undefined) {
      // No read-back (see usersSync.ts): only a gone integration is visible, as before.
      if (lookup) throw new Error(`${KIND} ${id}: cannot look the user up: ${await readBackProblem(projectId, provider)}`);
      return { id, props: { ...props, integration: parent.identity } };
    }
    if (user === null || user.deleted) return {};
    const outs = compact({
      ...props,
      projectId,
      authProvider: provider,
      integration: parent.identity,
      email: user.email.toLowerCase(),
      name: user.name ?? undefined,
      userId: user.id,
    });
    return lookup ? { id, props: outs, inputs: compact({ ...outs, userId: undefined }) } : { id, props: outs };
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
 * account is deleted and created anew). Users are read back from the database's
 * neon_auth.users_sync (setting `neon-auth:readUsersFromDatabase`, default true): a create whose
 * answer was lost converges, and refresh sees a user deleted or renamed elsewhere.
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

  /**
   * Looks up a user made outside the stack by `<projectId>/<user id>` or `<projectId>/<email>`,
   * read from neon_auth.users_sync (so it needs read-back, see the README), without managing it:
   * `destroy` only forgets it.
   */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): AuthUser {
    return new AuthUser(name, { ...lookupArgs<AuthUserArgs>(authUserInputs), userId: undefined } as AuthUserArgs, { ...opts, id });
  }
}
