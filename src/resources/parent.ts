/**
 * What every resource that lives inside an integration shares: the `integration` input, the
 * identity of the integration it was made in, and the refresh rule that forgets an object only
 * when the service says unambiguously that it is gone.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { isNotFound, NeonApiError } from "../client";
import { type BranchIntegration, type Integration } from "../schemas";
import { BRANCH_AUTH_PROVIDERS } from "../schemas/branchAuth";
import { text } from "../schemas/fields";
import { afterWrite, api, findIntegration, projectIntegrations, scopeOf, sharedList } from "./context";
import { joinId, type Kind, type Props } from "./kit";

/** What both generations' integrations offer a child. */
interface AnyIntegration {
  readonly projectId: pulumi.Output<string>;
  readonly authProvider: pulumi.Output<string>;
  readonly authProviderProjectId: pulumi.Output<string>;
  readonly createdAt: pulumi.Output<string>;
}

/**
 * A project-level integration (`AuthIntegration`). `deleteDataOnDestroy` exists only on a
 * `NeonAuth`, so declaring it absent here keeps a NeonAuth out of what only the project-level
 * API offers (SDK keys, ownership transfer), although it has every other member.
 */
export interface ProjectIntegration extends AnyIntegration {
  readonly deleteDataOnDestroy?: never;
}

/** A branch-scoped integration (`NeonAuth`): its children call the branch's endpoints. */
export interface NeonAuthIntegration extends AnyIntegration {
  readonly branchId: pulumi.Output<string>;
  readonly deleteDataOnDestroy: pulumi.Output<boolean>;
}

/**
 * @internal
 * Where a NeonAuth keeps its `adopt` input for its children. Taking over a branch's auth on
 * purpose (one a preview branch inherited from its parent) extends to what the program declares
 * in it: each child found there is taken over too, unless the child says `adopt: false`. The
 * input, not an output, so that it is known at preview and never turns unknown while the NeonAuth
 * updates.
 */
export const ADOPTS_CHILDREN = Symbol.for("pulumi-neon-auth.adoptsChildren");

/** What a child of either generation accepts as `integration`. */
export type ParentIntegration = ProjectIntegration | NeonAuthIntegration;

/** The constructor-side test of the generation: the member the types use to tell them apart. */
function isBranchParent(i: ParentIntegration): i is NeonAuthIntegration {
  return (i as { deleteDataOnDestroy?: unknown }).deleteDataOnDestroy !== undefined;
}

/**
 * @internal
 * The provider-side test of the generation, from a child's props: a branch means the
 * branch-scoped endpoints. Every handler asks this one place.
 */
export function isBranch(props: { branchId?: unknown }): boolean {
  return props.branchId !== undefined && props.branchId !== null;
}

/** @internal Where a child lives: the project, and the branch for the branch-scoped generation. */
export interface Scope {
  projectId: string;
  branchId?: string | undefined;
}

/** @internal The path parameters of a branch endpoint. */
export function branchWhere(s: Scope): { project_id: string; branch_id: string } {
  return { project_id: s.projectId, branch_id: s.branchId! };
}

/** @internal Where a child lives, in words, for errors: `project p-1` or `branch br-1 of project p-1`. */
export function placeOf(s: Scope): string {
  return s.branchId === undefined ? `project ${s.projectId}` : `branch ${s.branchId} of project ${s.projectId}`;
}

/**
 * @internal
 * A child's id: `<projectId>/<...>` for the project-level generation (unchanged), and
 * `<projectId>/<branchId>/<...>` for a branch-scoped one.
 */
export function childId(s: Scope, ...rest: string[]): string {
  return joinId(s.projectId, ...(s.branchId === undefined ? [] : [s.branchId]), ...rest);
}

/**
 * @internal
 * Splits an id of `childId`. A branch id never holds `:` and a project-level id has only two
 * parts unless its key is an origin (`https://...`), so three parts with no `:` in the second
 * are a branch's.
 */
export function splitChildId(kind: Kind, id: string, key: string): Scope & { key: string } {
  const parts = id.split("/");
  const branch = parts.length >= 3 && parts[1] !== "" && !parts[1]!.includes(":");
  const n = branch ? 3 : 2;
  if (parts.length < n || parts.slice(0, n).some((p) => p === "")) {
    throw new Error(`${kind} id "${id}" is not of the form <projectId>/${key} or <projectId>/<branchId>/${key}`);
  }
  return { projectId: parts[0]!, ...(branch ? { branchId: parts[1]! } : {}), key: parts.slice(n - 1).join("/") };
}

/** @internal The runtime inputs every child shares: where it lives. */
export const scopeInputs = { branchId: text(60).optional() };

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
export function generationRules(
  v: Props,
  ctx: { addIssue(issue: { code: "custom"; path: PropertyKey[]; message: string }): void },
  branchOnly: readonly string[],
): void {
  if (isBranch(v)) return;
  for (const field of branchOnly) {
    if (v[field] !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: "is accepted only with a NeonAuth integration (the branch-scoped API); the project-level AuthIntegration has no such setting",
      });
    }
  }
  if (v.authProvider !== undefined && v.authProvider !== "stack") {
    ctx.addIssue({ code: "custom", path: ["authProvider"], message: 'must be "stack", the only auth provider of this API generation' });
  }
}

/**
 * Which integration a child was made in. A replaced integration has a new auth project and a
 * new creation time, so a child whose recorded identity differs from the live one is gone,
 * even though an integration of the same provider exists.
 */
/** @internal */
export const integrationIdentity = z.object(
  { authProviderProjectId: text(256), createdAt: text(64) },
  {
    error: (issue) =>
      issue.input === undefined
        ? "is required: pass the NeonAuth or AuthIntegration this lives in, e.g. `{ integration: auth, ... }` " +
          "(it gives the project and branch; a 0.1.0 program's `projectId` and `dependsOn` go)"
        : "must be the AuthIntegration or NeonAuth resource this lives in",
  },
);
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

/** @internal */
export function identityOf(record: Pick<Integration, "auth_provider_project_id" | "created_at">): IntegrationIdentity {
  return { authProviderProjectId: record.auth_provider_project_id, createdAt: record.created_at };
}

/**
 * @internal
 * The wire inputs of a child from its Args: the project and provider come from the integration,
 * and its identity is an input that replaces the child when it changes. While the integration
 * is being replaced the identity is unknown, so `pulumi preview` lists the child as replaced.
 * Args without `integration` pass as they are, so that `check` names the missing field.
 * Kinds whose API takes no provider (OAuthProvider, EmailServer) pass `withProvider: false`:
 * a looked-up integration, or one declared with `authProvider`, has one their inputs reject.
 */
export function childInputs<A extends { integration?: ParentIntegration }>(args: A, withProvider = true): Props {
  const { integration, ...rest } = args;
  if (integration === undefined || integration === null) return { ...rest };
  const adopts = isBranchParent(integration) ? (integration as { [ADOPTS_CHILDREN]?: pulumi.Input<boolean> })[ADOPTS_CHILDREN] : undefined;
  return {
    ...(adopts === undefined ? {} : { adopt: adopts }),
    ...rest,
    projectId: integration.projectId,
    ...(isBranchParent(integration) ? { branchId: integration.branchId } : {}),
    ...(withProvider ? { authProvider: integration.authProvider } : {}),
    integration: pulumi
      .all([integration.authProviderProjectId, integration.createdAt])
      .apply(([authProviderProjectId, createdAt]) => ({ authProviderProjectId, createdAt })),
  };
}

/**
 * @internal
 * The diff rule of the identity: a change replaces the child. State written before children
 * recorded it has none; the identity is then recorded by an update, not a replacement.
 *
 * While the integration is updated in place, the engine does not know its outputs at preview
 * (a dynamic provider cannot preview an update: the engine takes its inputs as its outputs), so
 * the identity is unknown there although it will not change. Taken as a change, every child
 * would preview as replaced and `up` would replace none. So an unknown identity is no change:
 * a replacement of the integration replaces the child through `replaceWith` (childOptions)
 * instead, at preview and at `up` alike; a known identity that differs (a child moved to another
 * integration) still replaces it.
 */
export function identityRule(olds: Props) {
  return { name: "integration", replaces: olds.integration !== undefined, unknownIsSame: true };
}

/**
 * @internal
 * A child's resource options: `replaceWith` its integration, so that the engine replaces the
 * child whenever it replaces the integration (Pulumi CLI 3.211 or newer). This, not the
 * identity input, is what makes a replacement of the integration show at preview as the
 * replacement of each child, and lets an in-place update of the integration preview as that one
 * update (identityRule). `replaceWith` rather than `dependsOn`-style inference: the engine
 * decides it from its own plan, before any provider call, and only for a replacement. A lookup's
 * args carry no integration, and a lookup is never replaced.
 */
export function childOptions(
  args: { integration?: ParentIntegration | undefined },
  opts: pulumi.CustomResourceOptions | undefined,
): pulumi.CustomResourceOptions | undefined {
  const integration = args.integration;
  if (!pulumi.Resource.isInstance(integration)) return opts;
  return { ...opts, replaceWith: [integration, ...(opts?.replaceWith ?? [])] };
}

/**
 * @internal
 * The diff rules a branch child adds (moving it to another branch replaces it, and `more`);
 * none for a project-level child, whose diff stays exactly as it was.
 */
export function branchRules(olds: Props, news: Props, more: readonly { name: string; replaces?: boolean }[] = []) {
  return isBranch(olds) || isBranch(news) ? [{ name: "branchId", replaces: true }, ...more] : [];
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

/** Throws projectNotVisible unless the project (and the branch, for a branch scope) answers. */
async function mustSee(kind: Kind, s: Scope, op: "refresh" | "delete"): Promise<void> {
  try {
    // Shared: every resource of a project or branch that is gone asks the same question.
    if (isBranch(s)) await sharedList(scopeOf(s), "branch", () => api().getBranch(s.projectId, s.branchId!));
    else await projectIntegrations(s.projectId);
  } catch (err) {
    if (isNotFound(err)) throw projectNotVisible(kind, s.projectId, err, op);
    throw err;
  }
}

/**
 * @internal
 * Every delete goes through this. A 404 means "already gone" only when the project (or branch)
 * that held the resource answers; to another account's key the project itself is 404, and taking
 * that as gone would drop from the state what still exists. Like any write, it ends the scope's
 * shared reads.
 */
export async function deleteUnlessHidden(kind: Kind, s: Scope, remove: () => Promise<unknown>): Promise<void> {
  try {
    await remove();
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await mustSee(kind, s, "delete");
  }
  afterWrite(scopeOf(s));
}

/**
 * @internal
 * The delete of a kind that has nothing to remove at Neon (a key set cannot be revoked, a transfer
 * not withdrawn): it still proves the project visible before the state forgets the resource, as
 * every other delete does, so that a destroy with another account's key keeps it.
 */
export async function forgetUnlessHidden(kind: Kind, s: Scope): Promise<void> {
  await mustSee(kind, s, "delete");
}

/**
 * @internal
 * For refresh: the project's integration of this provider. Undefined only when the project is
 * visible and its list lacks the integration, or holds another one than `recorded` (replaced
 * since). A project answering 404 is an error, never a deletion.
 */
export async function liveIntegration(
  kind: Kind,
  projectId: string,
  provider: string,
  recorded?: IntegrationIdentity,
): Promise<Integration | undefined> {
  // One shared read: the check and the lookup are the same list of integrations.
  await mustSee(kind, { projectId }, "refresh");
  return sameIdentity(await findIntegration(projectId, provider), recorded);
}

/**
 * @internal
 * Refresh of a child: its integration if the child still lives in it (see liveIntegration), and
 * the identity to record. A child read without one (an import, a lookup, state written before
 * children recorded it) is taken to live in the integration there is.
 */
export async function parentOf(
  kind: Kind,
  props: Props,
): Promise<{ record: Integration; identity: IntegrationIdentity } | undefined> {
  const record = isBranch(props)
    ? await sameIdentity(await liveBranchAuth(kind, props as Scope), props.integration)
    : await liveIntegration(kind, props.projectId, props.authProvider ?? "stack", props.integration);
  return record && { record, identity: props.integration ?? identityOf(record) };
}

function sameIdentity<R extends Integration>(record: R | undefined, recorded?: IntegrationIdentity): R | undefined {
  if (record === undefined || recorded === undefined) return record;
  const live = identityOf(record);
  return live.authProviderProjectId === recorded.authProviderProjectId && live.createdAt === recorded.createdAt ? record : undefined;
}

/**
 * @internal
 * The branch's integration, read once per run for all its resources. A 404 is ambiguous (no
 * auth on the branch, or a branch or project this key cannot see): undefined only when the
 * branch answers and lacks it, an error otherwise.
 */
export async function liveBranchAuth(kind: Kind, s: Scope): Promise<BranchIntegration | undefined> {
  try {
    return await sharedList(scopeOf(s), "auth", () => api().branchAuth.getBranchAuth(branchWhere(s)));
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await mustSee(kind, s, "refresh");
    return undefined;
  }
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
