/**
 * What every resource that lives inside an integration shares: the `integration` input, the
 * identity of the integration it was made in, and the refresh rule that forgets an object only
 * when the service says unambiguously that it is gone.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { isNotFound, NeonApiError } from "../client";
import { type Integration } from "../schemas";
import { text } from "../schemas/fields";
import { findIntegration } from "./context";
import type { Kind, Props } from "./kit";

/**
 * What a child accepts as `integration`. Today the project-level `AuthIntegration`; a
 * branch-scoped integration joins this union later, and `childInputs` maps each kind to the
 * wire inputs below (its identity then gains its own fields, e.g. the branch).
 */
export interface ParentIntegration {
  readonly projectId: pulumi.Output<string>;
  readonly authProvider: pulumi.Output<string>;
  readonly authProviderProjectId: pulumi.Output<string>;
  readonly createdAt: pulumi.Output<string>;
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
        ? "is required: declare `integration: auth` (the AuthIntegration this lives in) instead of `projectId` " +
          "and `dependsOn`; the engine then creates it after its integration and replaces it with it"
        : "must be the AuthIntegration resource this lives in",
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
  return {
    ...rest,
    projectId: integration.projectId,
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
 */
export function identityRule(olds: Props) {
  return { name: "integration", replaces: olds.integration !== undefined };
}

/**
 * @internal
 * Thrown by refresh when the project itself answers 404: that may be our key, not the project. */
export function projectNotVisible(kind: Kind, projectId: string, cause: NeonApiError): Error {
  return new Error(
    `${kind}: refresh cannot tell whether project ${projectId} still exists: it answers 404 Not Found ` +
      "to this API key (a wrong key or account, or a deleted project). Nothing was removed from the stack's state. " +
      "Check neon-auth:apiKey (or NEON_API_KEY) and run `pulumi refresh` again. If the project really is gone, " +
      "drop its resources from the state: `pulumi state delete --target-dependents <URN of its AuthIntegration>` " +
      `(URNs: \`pulumi stack --show-urns\`). (${cause.message})`,
  );
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
  let record: Integration | undefined;
  try {
    record = await findIntegration(projectId, provider);
  } catch (err) {
    if (isNotFound(err)) throw projectNotVisible(kind, projectId, err);
    throw err;
  }
  if (record === undefined || recorded === undefined) return record;
  const live = identityOf(record);
  const same = live.authProviderProjectId === recorded.authProviderProjectId && live.createdAt === recorded.createdAt;
  return same ? record : undefined;
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
  const record = await liveIntegration(kind, props.projectId, props.authProvider ?? "stack", props.integration);
  return record && { record, identity: props.integration ?? identityOf(record) };
}

/**
 * @internal
 * A child's create met "auth is not enabled": its integration does not exist (yet). Says what
 * to declare instead of the bare 404.
 */
export function explainMissingIntegration(kind: Kind, projectId: string, err: unknown): unknown {
  if (!isNotFound(err) || !/auth is not enabled/i.test(err.neonMessage)) return err;
  return new Error(
    `${kind}: project ${projectId} has no auth integration: it is missing or not yet created. Declare the ` +
      "AuthIntegration in this stack and pass it as `integration: auth` (not `projectId` with `dependsOn`), so " +
      "that the engine creates it first; or, if it was deleted outside Pulumi, run `pulumi refresh` and " +
      `\`pulumi up\` to create it again. (${err.message})`,
  );
}
