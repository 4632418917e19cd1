/**
 * What every resource that lives inside an integration shares: the `integration` input, the
 * identity of the integration it was made in, and the refresh rule that forgets an object only
 * when the service says unambiguously that it is gone.
 */
import { z } from "zod";
import { isNotFound, NeonApiError } from "../client";
import type { Integration } from "../schemas";
import { BRANCH_AUTH_PROVIDERS } from "../schemas/branchAuth";
import type { Context } from "./context";
import { generationOf, type Scope } from "./generation";
import { IDENTITY_FIELDS, integrationInput, PLACE_FIELDS, placed } from "./place";
import type { FieldRule } from "./diff";
import { declaredFields, type Kind, type KindDeclaration, type Props } from "./kit";

/**
 * @internal
 * Auth providers a child accepts: the project-level API has only `stack`; a branch-scoped
 * integration also `better_auth` (its default) and `mock`. Cross-checked by `generationRules`.
 */
export const childAuthProvider = z
  .enum(BRANCH_AUTH_PROVIDERS, { message: 'must be "stack", the only auth provider of this API generation (a NeonAuth also has "better_auth" and "mock")' })
  .default("stack");

/**
 * @internal
 * Refuses on a project-level child what only the branch-scoped API has, naming the field, and a
 * project-level auth provider other than `stack`. `branchOnly` lists the fields to refuse when set.
 */
export function generationRules(v: Props, issues: Parameters<ReturnType<typeof generationOf>["rules"]>[1], branchOnly: readonly string[]): void {
  const p = placed(v);
  generationOf(p).rules(p, issues, branchOnly);
}

/**
 * @internal
 * The inputs a child of either generation starts with: its `integration` (place.ts), whose auth
 * provider it does not keep: its requests name none.
 */
export const childPlace = { integration: integrationInput() };

export interface IntegrationIdentity {
  /** The auth project's id at the provider: new for every integration. */
  authProviderProjectId: string;
  /** When Neon created the integration (ISO 8601, UTC). */
  createdAt: string;
}

/**
 * For a child's cross-field rules: they still run when only the integration is wrong or missing,
 * so one preview names every problem (zod skips refinements after any failed field otherwise).
 */
/** @internal */
export const despiteIntegration = {
  when: (payload: { issues: readonly { path?: readonly PropertyKey[] }[] }) =>
    payload.issues.every((issue) => issue.path?.[0] === "integration"),
};

function identityOf(record: Pick<Integration, "auth_provider_project_id" | "created_at">): IntegrationIdentity {
  return { authProviderProjectId: record.auth_provider_project_id, createdAt: record.created_at };
}

/**
 * @internal
 * A child's diff rules: its place (a new project, branch or auth provider replaces it), the
 * identity of its integration, and the inputs it declares. State written before children recorded
 * the identity has none; the identity is then recorded by an update, not a replacement.
 *
 * While the integration is updated in place, the engine does not know its outputs at preview
 * (a dynamic provider cannot preview an update: the engine takes its inputs as its outputs), so
 * the identity is unknown there although it will not change. Taken as a change, every child
 * would preview as replaced and `up` would replace none. So an unknown identity is no change:
 * a replacement of the integration replaces the child through `replaceWith` (childOptions)
 * instead, at preview and at `up` alike; a known identity that differs (a child moved to another
 * integration) still replaces it.
 */
export function childFields(olds: Props, news: Props, inputs: KindDeclaration["inputs"]): FieldRule[] {
  return [
    { name: "integration", pick: PLACE_FIELDS, replaces: true },
    { name: "integration", pick: IDENTITY_FIELDS, replaces: olds.integration?.authProviderProjectId !== undefined, unknownIsSame: true },
    ...declaredFields(inputs, news),
  ];
}

/**
 * @internal
 * Thrown by refresh or a delete when the project itself answers 404: that may be our key, not the
 * project, so nothing may leave the state on it.
 */
export function projectNotVisible(kind: Kind, projectId: string, cause: NeonApiError, op: "refresh" | "delete" = "refresh"): Error {
  const again = op === "refresh" ? "run `pulumi refresh` again" : "run the command again";
  return new Error(
    `${kind}: ${op} cannot tell whether project ${projectId} still exists: it answers 404 Not Found ` +
      "to this API key (a wrong key or account, or a deleted project). Nothing was removed from the stack's state. " +
      `Check neon-auth:apiKey (or NEON_API_KEY) and ${again}. If the project really is gone, ` +
      "drop its resources from the state: `pulumi state delete --target-dependents <URN of its AuthIntegration or NeonAuth>` " +
      `(URNs: \`pulumi stack --show-urns\`). (${cause.message})`,
  );
}

/** @internal Throws projectNotVisible unless the project (and the branch, for a branch scope) answers. */
export async function mustSee(ctx: Context, kind: Kind, s: Scope, op: "refresh" | "delete"): Promise<void> {
  try {
    // Shared: every resource of a project or branch that is gone asks the same question.
    await generationOf(s).calls(ctx, s).see();
  } catch (err) {
    if (isNotFound(err)) throw projectNotVisible(kind, s.projectId, err, op);
    throw err;
  }
}

/**
 * @internal
 * Every delete goes through this. A 404 means "already gone" only when the project (or branch)
 * that held the resource answers; to another account's key the project itself is 404, and taking
 * that as gone would drop from the state what still exists.
 */
export async function deleteUnlessHidden(ctx: Context, kind: Kind, s: Scope, remove: () => Promise<unknown>): Promise<void> {
  try {
    await remove();
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await mustSee(ctx, kind, s, "delete");
  }
}

/**
 * @internal
 * The delete of a kind that has nothing to remove at Neon (a key set cannot be revoked, a transfer
 * not withdrawn): it still proves the project visible before the state forgets the resource, as
 * every other delete does, so that a destroy with another account's key keeps it.
 */
export async function forgetUnlessHidden(ctx: Context, kind: Kind, s: Scope): Promise<void> {
  await mustSee(ctx, kind, s, "delete");
}

/**
 * @internal
 * For refresh: the scope's integration of this provider, read once per run for all its resources.
 * Undefined only when the project (and branch) answer and lack it, or hold another one than
 * `recorded` (replaced since). A project or branch answering 404 is an error, never a deletion.
 */
export async function liveIntegration(
  ctx: Context,
  kind: Kind,
  s: Scope,
  provider: string,
  recorded?: IntegrationIdentity,
): Promise<Integration | undefined> {
  try {
    return sameIdentity(await generationOf(s).calls(ctx, s).integration(provider), recorded);
  } catch (err) {
    if (isNotFound(err)) throw projectNotVisible(kind, s.projectId, err, "refresh");
    throw err;
  }
}

/** @internal A project's integration of this provider, from the run's shared list; undefined if it has none. */
export function projectIntegration(ctx: Context, projectId: string, provider: string): Promise<Integration | undefined> {
  const s = { projectId };
  return generationOf(s).calls(ctx, s).integration(provider);
}

/**
 * @internal
 * Refresh of a child: its integration if the child still lives in it (see liveIntegration), and
 * the identity to record. A child read without one (an import, a lookup, state written before
 * children recorded it) is taken to live in the integration there is.
 */
export async function parentOf(
  ctx: Context,
  kind: Kind,
  props: Props,
): Promise<{ record: Integration; identity: IntegrationIdentity } | undefined> {
  const record = await liveIntegration(ctx, kind, props as Scope, props.authProvider ?? "stack", props.integration);
  return record && { record, identity: props.integration ?? identityOf(record) };
}

/**
 * @internal
 * Refresh of an object whose id Neon makes (a user, an OAuth client) when that id is gone: the
 * object now holding its natural key, if a reset or instant restore of the branch brought it there
 * (it was made before the branch's last reset). A restore puts the branch's `neon_auth` back as it
 * was, so an object the stack made again after the restore point is back under its earlier id, in
 * the place of the stack's own: refresh records it as this resource (a new id), and `up` finds
 * nothing to make (README, "After a reset or restore"). An object made since the reset is
 * someone's, left to the ownership rule. The branch is asked only when such an object exists.
 */
export async function restoredInPlace<T>(ctx: Context, s: Scope, find: () => Promise<T | null | undefined>, madeAt: (t: T) => string | Date | undefined): Promise<T | undefined> {
  if (s.branchId === undefined) return undefined;
  const holder = await find();
  if (holder === null || holder === undefined) return undefined;
  const made = madeAt(holder);
  const reset = ((await generationOf(s).calls(ctx, s).see()) as { last_reset_at?: string }).last_reset_at;
  if (made === undefined || reset === undefined) return undefined;
  return new Date(made).getTime() <= Date.parse(reset) ? holder : undefined;
}

function sameIdentity<R extends Integration>(record: R | undefined, recorded?: IntegrationIdentity): R | undefined {
  if (record === undefined || recorded === undefined) return record;
  const live = identityOf(record);
  return live.authProviderProjectId === recorded.authProviderProjectId && live.createdAt === recorded.createdAt ? record : undefined;
}

/**
 * @internal
 * A child's create met "auth is not enabled": its integration does not exist (yet). Says what
 * to declare instead of the bare 404.
 */
export function explainMissingIntegration(kind: Kind, projectId: string, err: unknown): unknown {
  if (!isNotFound(err) || !/auth is not enabled/i.test(err.neonMessage)) return err;
  // The branch API says "on branch …"; the project-level message stays as it was.
  const branch = /on branch/i.test(err.neonMessage);
  return new Error(
    `${kind}: project ${projectId} has no auth integration${branch ? " on this branch" : ""}: it is missing or not yet created. Declare the ` +
      `${branch ? "NeonAuth" : "AuthIntegration"} in this stack and pass it as \`integration: auth\` (not \`projectId\` with \`dependsOn\`), so ` +
      "that the engine creates it first; or, if it was deleted outside Pulumi, run `pulumi refresh` and " +
      `\`pulumi up\` to create it again. (${err.message})`,
  );
}
