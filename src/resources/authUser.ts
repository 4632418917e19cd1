import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { isConflict, isNotFound, mayHaveActed } from "../client";
import { authProvider, email, projectId, userName } from "../schemas";
import { api, existingIntegration } from "./context";
import { checkInputs, parsedInputs, compact, diffFields, MODULE, providerOf, type Handler } from "./kit";

const KIND = "AuthUser";

/** @internal Runtime input rules; kept out of the published types (zod is not a public type). */
export const authUserInputs = z.strictObject({
  projectId,
  // Addresses are compared case-insensitively by the auth provider; normalising here keeps
  // `Ada@Example.com` and `ada@example.com` from showing as a change.
  email: z.string().trim().toLowerCase().pipe(email),
  name: userName.optional(),
  authProvider: authProvider.default("stack"),
});

export interface AuthUserArgs {
  projectId: pulumi.Input<string>;
  /** The user's email address (1 to 256 characters). */
  email: pulumi.Input<string>;
  /** Display name, 1 to 255 characters. */
  name?: pulumi.Input<string>;
  authProvider?: pulumi.Input<"stack">;
}

// The API has no update for users: every change replaces. Delete first, as the auth provider
// keeps email addresses unique.
const FIELDS = [
  { name: "projectId", replaces: true },
  { name: "email", replaces: true },
  { name: "name", replaces: true },
  { name: "authProvider", replaces: true },
] as const;

/** @internal What the dynamic-provider process runs for this kind (runtime.ts). */
export const userHandler: Handler = {
  async check(_olds, news) {
    return checkInputs(KIND, authUserInputs, news);
  },

  async diff(_id, olds, news) {
    return diffFields(olds, news, FIELDS, { deleteBeforeReplace: true });
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
    // There is no read endpoint for users: refresh can only see that the whole integration is
    // gone (then so are its users). A user deleted on its own stays in state until replaced.
    return (await existingIntegration(props.projectId, props.authProvider ?? "stack")) ? { id, props } : {};
  },

  async update(_id, olds) {
    return { outs: olds };
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
 * them: any change replaces the user (delete first), and refresh cannot see a user deleted
 * elsewhere (see the README's limits).
 *
 * @example
 * ```ts
 * const ada = new AuthUser("ada", { projectId, email: "ada@example.com", name: "Ada" }, { dependsOn: auth });
 * export const adaId = ada.userId;
 * ```
 */
export class AuthUser extends pulumi.dynamic.Resource {
  declare readonly projectId: pulumi.Output<string>;
  declare readonly email: pulumi.Output<string>;
  declare readonly name: pulumi.Output<string | undefined>;
  declare readonly authProvider: pulumi.Output<string>;
  /** The user's id at the auth provider; also the resource id. */
  declare readonly userId: pulumi.Output<string>;

  constructor(name: string, args: AuthUserArgs, opts?: pulumi.CustomResourceOptions) {
    super(providerOf(KIND), name, { ...args, userId: undefined }, opts, MODULE, KIND);
  }
}
