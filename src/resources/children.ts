/**
 * The program's side of a child: what `integration` it accepts and what it outputs (published
 * types), and how its class turns its Args into what it registers (its place, its provider and
 * identity from the integration, replaced with it).
 */
import * as pulumi from "@pulumi/pulumi";
import { IDENTITY_FIELDS, PLACE_FIELDS, type IntegrationRef } from "../provider/place";
import { placeFromParent } from "../provider/generation";
import type { KindDeclaration, Props } from "../provider/kit";
import { plainOutput, registration } from "./registration";

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

/** The outputs every child has: where it lives, and the integration it was made in. */
export interface ChildOutputs {
  /** The Neon project, from the integration. */
  readonly projectId: pulumi.Output<string>;
  /** The integration it lives in, as the integration's `ref` (a new integration replaces the child). */
  readonly integration: pulumi.Output<IntegrationRef>;
}

/** The outputs of a child of either generation: its branch too. */
export interface EitherChildOutputs extends ChildOutputs {
  /** The branch, for a NeonAuth integration; undefined for a project-level one. */
  readonly branchId: pulumi.Output<string | undefined>;
}

/** The outputs of a child of a NeonAuth only: its branch always. */
export interface NeonAuthChildOutputs extends ChildOutputs {
  /** The branch, from the NeonAuth. */
  readonly branchId: pulumi.Output<string>;
}

/** The output of a child whose requests name the integration's auth provider. */
export interface AuthProviderOutput {
  /** The auth provider, from the integration. */
  readonly authProvider: pulumi.Output<string>;
}

/** The `integration` of a child of a project-level AuthIntegration (a base of its Args). */
export interface InProjectIntegration {
  /** The AuthIntegration this lives in: it is created after it, and replaced with it. */
  integration: ProjectIntegration;
}

/** The `integration` of a child of a NeonAuth (a base of its Args). */
export interface InNeonAuth {
  /** The NeonAuth this lives in: it is created after it, and replaced with it. */
  integration: NeonAuthIntegration;
}

/** The `integration` of a child of either generation (a base of its Args). */
export interface InEitherIntegration {
  /** The AuthIntegration or NeonAuth this lives in: it is created after it, and replaced with it. */
  integration: ParentIntegration;
}

/**
 * A kind's inputs as its outputs record them (types/<Kind>.ts): the same names, words and types,
 * each an output that always has a value, but those named in `Absent`, which may have none.
 */
export type Recorded<A, Absent extends keyof A = never> = {
  readonly [K in keyof A]-?: pulumi.Output<Value<Exclude<A[K], undefined>> | (K extends Absent ? undefined : never)>;
};

/** An input's value: the `T` of `pulumi.Input<T>`, and of each item of a list of inputs. */
type Value<I> = I extends Promise<unknown> | pulumi.OutputInstance<unknown> ? never : I extends (infer E)[] ? Value<E>[] : I;

/** What a child of either generation accepts as `integration`. */
export type ParentIntegration = ProjectIntegration | NeonAuthIntegration;

/**
 * @internal
 * The wire inputs of a child from its Args: its `integration` is the integration's ref
 * (provider/place.ts), made of the integration's outputs one by one, so that a field the engine
 * does not know at preview (the identity, while the integration updates) leaves the others known.
 * Its place comes back as outputs, registered empty. Args without `integration` pass as they
 * are, so that `check` names the missing field. Kinds whose API takes no provider (OAuthProvider,
 * EmailServer) pass `withProvider: false`: their ref has none.
 */
function childInputs<A extends { integration?: ParentIntegration }>(args: A, withProvider = true): Props {
  const { integration, ...rest } = args;
  const place = Object.fromEntries(PLACE_FIELDS.filter((k) => withProvider || k !== "authProvider").map((k) => [k, undefined]));
  if (integration === undefined || integration === null) return { ...place, ...rest };
  const adopts = (integration as { [ADOPTS_CHILDREN]?: pulumi.Input<boolean> })[ADOPTS_CHILDREN];
  // A NeonAuth's branch is its children's; an AuthIntegration's is where its data lives.
  const fields = [...PLACE_FIELDS, ...IDENTITY_FIELDS].filter((k) => (k !== "branchId" || "branchId" in placeFromParent(integration)) && (k !== "authProvider" || withProvider));
  const ref: Props = Object.fromEntries(fields.map((k) => [k, (integration as unknown as Props)[k]]));
  if (adopts !== undefined) ref.adopt = adopts;
  return { ...place, ...rest, integration: plainOutput(ref, Object.values(ref)) };
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
function childOptions(
  args: { integration?: ParentIntegration | undefined },
  opts: pulumi.CustomResourceOptions | undefined,
): pulumi.CustomResourceOptions | undefined {
  const integration = args.integration;
  if (!pulumi.Resource.isInstance(integration)) return opts;
  return { ...opts, replaceWith: [integration, ...(opts?.replaceWith ?? [])] };
}

/**
 * @internal
 * What a child's class passes to `super` (registration.ts `registration`): its inputs from its Args
 * (`childInputs`), replaced with its integration (`childOptions`).
 */
export function childRegistration(
  decl: KindDeclaration,
  name: string,
  args: { integration?: ParentIntegration | undefined },
  opts: pulumi.CustomResourceOptions | undefined,
): ReturnType<typeof registration> {
  return registration(decl, name, childInputs(args, decl.withProvider !== false), childOptions(args, opts));
}
