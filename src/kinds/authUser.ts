import { z } from "zod";
import { userEmail, userName } from "../schemas";
import { userRoles } from "../schemas/branchAuth";
import type { Context } from "../provider/context";
import { createOwned } from "../provider/converge";
import { checkInputs, halfMade, compact, type CheckFailure, type Handler, type KindDeclaration, type NaturalKey, type Props } from "../provider/kit";
import { adoptSwitch, input, inputsOf, output } from "../provider/declaration";
import { diffFields, sameValue, UNKNOWN } from "../provider/diff";
import { liveUserByEmail, readBackProblem, userById } from "../provider/usersSync";
import { childId, generationOf, placeOf, splitChildId, type Scope } from "../provider/generation";
import { integrationInput, type Placed } from "../provider/place";
import { childFields, childAuthProvider, deleteUnlessHidden, despiteIntegration, explainMissingIntegration, generationRules, parentOf, restoredInPlace } from "../provider/parent";

const KIND = "AuthUser";

/** @internal Runtime input rules; kept out of the published types (zod is not a public type). */
export const authUserInputs = z
  .strictObject({
    integration: integrationInput({ authProvider: childAuthProvider }),
    // Addresses are compared case-insensitively by the auth provider; normalising here keeps
    // `Ada@Example.com` and `ada@example.com` from showing as a change.
    email: input(userEmail, {
      doc: "The user's email address (1 to 256 characters).",
      outputDoc: "The email address the user was created with.",
      shown: "string, 1–256 characters",
      replaces: true,
      change: "refused at preview unless `recreateOnChange` (compared lower-case)",
    }),
    name: input(userName.optional(), {
      doc: "Display name, 1 to 255 characters.",
      outputDoc: "The display name the user was created with.",
      shown: "string, 1–255 characters",
      replaces: true,
      change: "refused at preview unless `recreateOnChange`",
    }),
    roles: input(userRoles.optional(), {
      only: "NeonAuth",
      doc: "The user's roles (`PUT …/users/{id}/role`); a change is an in-place update. Left out, the service's default (`user`) stays and is not managed.",
      outputDoc: "The roles (NeonAuth only): as set, and as read back from `neon_auth.\"user\"` when the program manages them or looks the user up.",
      shown: "string[] (each a token, 1–64, no comma), at least one, none twice",
      absent: "not managed (Neon gives `user`)",
      change: "in place (`PUT …/users/{id}/role`, the whole set)",
    }),
    recreateOnChange: input(z.boolean().optional(), {
      compared: false,
      doc: "The API cannot change a user: a new email or name means deleting the account (its id, sign-ins and sessions) and creating another. Such a change is refused at preview unless this is true. Default false.",
      absent: "`false`",
      change: "in place; see below",
    }),
    adopt: adoptSwitch("Take over a user with this address that already exists (made outside this stack) instead of failing; it needs read-back (see docs/AuthUser.md). The stack then deletes it on destroy. Default false."),
  })
  .superRefine((v, ctx) => generationRules(v, ctx, ["roles"]), despiteIntegration);

const INPUTS = inputsOf(authUserInputs);

/**
 * A new email or name on a user that exists, in the same integration, without
 * `recreateOnChange`: refused, as it would delete the account. A user whose integration is
 * replaced is gone with it anyway.
 */
function refusedChanges(olds: Props, news: Props): CheckFailure[] {
  if (olds.email === undefined || news.recreateOnChange === true) return [];
  const made = (p: Props) => [p.integration?.authProviderProjectId, p.integration?.createdAt];
  if (!sameValue(made(olds), made(news))) return [];
  return (["email", "name"] as const)
    .filter((f) => news[f] !== UNKNOWN && (olds[f] ?? null) !== (news[f] ?? null))
    .map((f) => ({
      // Not the property: the engine would print its value beside the reason (see checkInputs).
      property: "",
      reason:
        `${KIND} ${f} cannot change in place: the API has no update for users, so changing it from ` +
        `${JSON.stringify(olds[f] ?? null)} to ${JSON.stringify(news[f] ?? null)} would delete the account ` +
        `${olds.email} (its id, sign-ins and sessions) and create a new one. To do that on purpose, set ` +
        "`recreateOnChange: true` on this AuthUser; otherwise put the old value back.",
    }));
}

type Inputs = Placed<z.output<typeof authUserInputs>>;

/** Tries of the create when read-back shows that an earlier try did not make the user. */
const CREATE_TRIES = 3;

/**
 * Creates the user, or takes over the one `createOwned` allows: made by a try whose answer was
 * lost (found by its address in the users table, `neon_auth."user"` on a NeonAuth or `users_sync`,
 * where it was absent before the first try), or adopted on purpose. Without read-back nothing can be decided after a lost answer: the
 * honest error says what to look for.
 */
async function createOrTakeOver(ctx: Context, inputs: Inputs): Promise<{ id: string; adopted: boolean }> {
  const scope: Scope = { projectId: inputs.projectId, branchId: inputs.branchId };
  const named = inputs.name !== undefined ? { name: inputs.name } : {};
  const noReadBack = async (err: unknown) => lostAnswer(inputs, err, await readBackProblem(ctx, scope, inputs.authProvider));
  const find = async () => {
    const found = await liveUserByEmail(ctx, scope, inputs.authProvider, inputs.email);
    if (found === undefined) throw await noReadBack(new Error("the user could not be read back"));
    return found ?? undefined;
  };
  let why: Error | undefined;
  try {
    const made = await createOwned({
      create: () => generationOf(scope).calls(ctx, scope).users.create({ email: inputs.email, ...named }, inputs.authProvider),
      find,
      adopt: inputs.adopt,
      object: `${KIND} ${inputs.email} of ${placeOf(scope)}`,
      how: { extra: "or look it up without managing it with AuthUser.get" },
      // Read-back may be off: known only once the first try failed ambiguously.
      undecidable: (err) => (why = err as Error),
      attempts: CREATE_TRIES,
    });
    return made.created ? { id: made.created.id, adopted: false } : { id: made.found.id, adopted: made.adopted };
  } catch (err) {
    if (why !== undefined && err === why) throw await noReadBack(err);
    throw explainMissingIntegration(KIND, inputs.projectId, err);
  }
}

/** The whole set of roles, replacing the user's current ones. */
async function setRoles(ctx: Context, inputs: Inputs, userId: string): Promise<void> {
  await generationOf(inputs).calls(ctx, inputs).users.setRoles(userId, inputs.roles!);
}

/** Where the user lives and how it is deleted by hand, for the messages below. */
function userPlace(inputs: Inputs) {
  const generation = generationOf(inputs);
  return { table: generation.usersTable.name, where: placeOf(inputs), deletePath: generation.userDeletePath(inputs) };
}

function lostAnswer(inputs: Inputs, err: unknown, why: string | undefined): Error {
  const { table, where, deletePath } = userPlace(inputs);
  return new Error(
    `AuthUser ${inputs.email}: the create request may have reached Neon but its answer was lost, ` +
      `so the user may exist without this stack knowing its id` +
      (why === undefined ? "" : `, and it cannot be read back from ${table} (${why})`) +
      `. Look for ${inputs.email} in ${table} of ${where}: if it is there, delete that user ` +
      `(DELETE ${deletePath}) or remove it from this stack, then run ` +
      `\`pulumi up\` again. (${(err as Error).message})`,
  );
}

/**
 * What names the object of this kind: one address is one user (Neon compares addresses
 * case-insensitively). Not its id: Neon makes that.
 */
const OBJECT: NaturalKey = { fields: ["email"], what: "one user", key: (i) => i.email && childId(i as Scope, i.email.toLowerCase()) };

/** @internal What either face's provider process runs for this kind (provider/runtime.ts guards it). */
export const userHandler: Handler<Inputs> = {
  async check(olds, news) {
    const checked = checkInputs(KIND, authUserInputs, news);
    const refused = checked.failures ? [] : refusedChanges(olds, checked.inputs ?? {});
    return refused.length > 0 ? { inputs: checked.inputs, failures: refused } : checked;
  },

  async diff(_id, olds, news) {
    // The API has no update for users: every change but roles replaces. Delete first, as the auth
    // provider keeps email addresses unique.
    return diffFields(olds, news, childFields(olds, news, INPUTS), { deleteBeforeReplace: true });
  },

  async create(inputs, ctx) {
    const generation = generationOf(inputs);
    const { id: userId } = await createOrTakeOver(ctx, inputs);
    const id = generation.userResourceId(inputs, userId);
    const outs = compact({ ...inputs, userId, ...generation.newUserOutputs });
    if (inputs.roles !== undefined) {
      try {
        await setRoles(ctx, inputs, userId);
      } catch (err) {
        // The user exists: recorded without its roles, so the next `up` sets them (and destroy deletes it).
        throw halfMade(`${KIND} ${inputs.email} was created, but setting its roles failed; the next \`pulumi up\` sets them. (${(err as Error).message})`, id, { ...outs, roles: undefined });
      }
    }
    return { id, outs };
  },

  async read(id, props, ctx) {
    // A project-level user's id is its user id; a branch user's `<projectId>/<branchId>/<user id>`.
    // A lookup names `<projectId>/[<branchId>/]<user id or email>`, also on its later refreshes.
    const split = id.includes("/") ? splitChildId(KIND, id, "<user id or email>") : undefined;
    const { key, ...where }: Scope & { key: string } = split ?? { projectId: props.projectId as string, key: id };
    const lookup = split !== undefined && (generationOf(where).userResourceId(where, key) !== id || props.userId !== key);
    const parent = await parentOf(ctx, KIND, { ...props, ...where });
    if (!parent) return {};
    const provider = props.authProvider ?? parent.record.auth_provider ?? "stack";
    let user = lookup && key.includes("@") ? await liveUserByEmail(ctx, where, provider, key) : await userById(ctx, where, provider, key);
    // Gone by its id: the user a reset or restore put back in its place, with its earlier id.
    if (user === null && !lookup) user = (await restoredInPlace(ctx, where, () => liveUserByEmail(ctx, where, provider, props.email), (u) => u.createdAt)) ?? null;
    if (user === undefined) {
      // No read-back (see usersSync.ts): only a gone integration is visible, as before.
      if (lookup) throw new Error(`${KIND} ${id}: cannot look the user up: ${await readBackProblem(ctx, where, provider)}`);
      return { id, props: { ...props, integration: parent.identity } };
    }
    if (user === null || user.deleted) return {};
    const outs = compact({
      ...props,
      ...where,
      authProvider: provider,
      integration: parent.identity,
      email: user.email.toLowerCase(),
      // Better Auth keeps "" for a user made without a name (the column is NOT NULL).
      name: user.name === null || user.name === "" ? undefined : user.name,
      userId: user.id,
      // Roles read back where the stack manages them (or looks the user up); roles left out of
      // the program stay unmanaged and are not shown as drift.
      roles: user.roles !== undefined && (props.roles !== undefined || lookup) ? user.roles : props.roles,
      banned: user.banned,
    });
    if (lookup) return { id, props: outs, inputs: compact({ ...outs, userId: undefined }) };
    return { id: user.id === key ? id : generationOf(where).userResourceId(where, user.id), props: outs };
  },

  async update(_id, olds, inputs, ctx) {
    // Roles are sent when they changed; the rest needs no request: the integration's identity
    // (state written before it was recorded), `recreateOnChange` and `adopt`. Roles left out stay as they are.
    if (inputs.roles !== undefined && JSON.stringify(inputs.roles) !== JSON.stringify(olds.roles)) await setRoles(ctx, inputs, olds.userId);
    return { outs: compact({ ...olds, integration: inputs.integration, recreateOnChange: inputs.recreateOnChange, adopt: inputs.adopt, roles: inputs.roles }) };
  },

  async delete(id, props, ctx) {
    const where = props as Scope;
    // A project-level user's id is its user id; a branch user's records it in `userId`.
    await deleteUnlessHidden(ctx, KIND, where, () => generationOf(where).calls(ctx, where).users.remove(props.userId ?? id));
  },
};

/** @internal The kind, declared once (provider/declaration.ts). */
export const authUserKind: KindDeclaration = {
  kind: KIND,
  doc:
    "A user of the project's auth. The API can create and delete users but not read or update\n" +
    "them: a new email or name is refused at preview unless `recreateOnChange` is set (then the\n" +
    "account is deleted and created anew). Users are read back from the database (setting\n" +
    '`neon-auth:readUsersFromDatabase`, default true): `neon_auth."user"` on a NeonAuth (with roles\n' +
    "and bans), `neon_auth.users_sync` at project level. A create whose answer was lost converges,\n" +
    "and refresh sees a user deleted, renamed or given other roles elsewhere.\n" +
    "\n" +
    "@example\n" +
    "```ts\n" +
    'const ada = new AuthUser("ada", { integration: auth, email: "ada@example.com", name: "Ada" });\n' +
    "export const adaId = ada.userId;\n" +
    "```",
  parent: "either",
  inputs: INPUTS,
  outputs: {
    userId: output(z.string(), { doc: "The user's id at the auth provider; the resource id (on a NeonAuth `<projectId>/<branchId>/<userId>`)." }),
    banned: output(z.boolean().optional(), {
      doc: "Whether the user is banned (NeonAuth only, read back from `neon_auth.\"user\"`); a ban is made outside the stack (Better Auth's admin plugin) and is never changed by it.",
    }),
  },
  id: "the user id on an `AuthIntegration`; `<projectId>/<branchId>/<userId>` on a `NeonAuth`.",
  importable: "the API has no way to read a user; declare it again (a new user) or leave it outside the stack",
  schema: authUserInputs,
  object: OBJECT,
  handler: userHandler,
};

