/**
 * A child's place, in one shape on both faces: its `integration` input is the integration's `ref`
 * (project, branch, auth provider, the integration's identity, and a NeonAuth's `adopt`), given
 * by a TypeScript program from the integration's outputs and by a YAML program as `${auth.ref}`,
 * and recorded so in state. Handlers read the project, branch and auth provider from it through
 * `placed`; a child outputs them beside it. Stacks recorded before (0.1.x, and 0.2.0's classes,
 * which kept them beside a bare identity) are read through `upgraded`, which gives them this shape
 * with nothing sent and no change to show.
 */
import { z } from "zod";
import { projectId } from "../schemas";
import { text } from "../schemas/fields";
import type { KindDeclaration, Props } from "./declaration";

/** Where a child lives. */
const WHERE = {
  projectId: projectId.describe("The Neon project."),
  branchId: text(60).optional().describe("The branch, for a NeonAuth; absent for a project-level AuthIntegration."),
};

/** Which integration it was made in: a replaced integration has a new auth project and a new creation time. */
const IDENTITY = {
  authProviderProjectId: text(256).describe("The auth project's id at the provider: new for every integration."),
  createdAt: text(64).describe("When Neon created the integration."),
};

const AUTH_PROVIDER = z.string().optional().describe("The integration's auth provider (`better_auth`, `stack`).");

const ADOPT = z
  .boolean()
  .optional()
  .describe("A NeonAuth's `adopt: true`: each child declared in it takes over what the branch already has, unless the child sets `adopt` itself.");

/** @internal The fields of a ref that say where a child lives: a new value replaces the child. */
export const PLACE_FIELDS = [...Object.keys(WHERE), "authProvider"] as const;
/** @internal The fields of a ref that say which integration it is: a new known value replaces the child. */
export const IDENTITY_FIELDS = Object.keys(IDENTITY);

/**
 * @internal
 * A child's `integration` input. `provider` holds the kind's rule for `authProvider`, or nothing for
 * a kind whose requests name no auth provider (the ref's is then dropped: such a child never recorded one).
 */
export function integrationInput<S extends z.ZodRawShape = Record<never, never>>(provider: S = {} as S) {
  return z.object(
    { ...WHERE, ...provider, ...IDENTITY, adopt: ADOPT },
    {
      error: (issue) =>
        issue.input === undefined
          ? "is required: pass the NeonAuth or AuthIntegration this lives in, e.g. `{ integration: auth, ... }` " +
            "(it gives the project and branch; a 0.1.0 program's `projectId` and `dependsOn` go)"
          : "must be the AuthIntegration or NeonAuth resource this lives in (its `ref` output)",
    },
  );
}

/** @internal What an integration outputs as `ref` and every child takes as `integration`: the plugin schema's `IntegrationRef`. */
export const integrationRef = integrationInput({ authProvider: AUTH_PROVIDER });

/** An integration as its children name it (its `ref`; the type of a child's `integration` output). */
export interface IntegrationRef {
  readonly projectId: string;
  readonly branchId?: string;
  readonly authProvider?: string;
  readonly authProviderProjectId: string;
  readonly createdAt: string;
  readonly adopt?: boolean;
}

const isRef = (v: unknown): v is Props => v !== null && typeof v === "object" && "projectId" in v;

/**
 * @internal
 * A child's `integration` that holds none of a ref's fields: an object without them, or null. This
 * is how the ref of an integration that failed earlier in an `up --continue-on-error` arrives
 * outside preview: @pulumi/pulumi 3.27x registers what uses a failed resource's outputs with them
 * unknown, and the engine drops unknown values (`{}`); Pulumi YAML gives null. The engine skips
 * the child for that failed dependency, and `check` must not stop the whole run first.
 */
export const isUnknownRef = (v: unknown): boolean =>
  v === null || (typeof v === "object" && !Array.isArray(v) && [...PLACE_FIELDS, ...IDENTITY_FIELDS].every((k) => !(k in v)));

/** @internal Props with a child's place beside its `integration` (`placed`). */
export type Placed<T> = T extends { integration?: infer R } ? T & Pick<NonNullable<R>, Extract<keyof NonNullable<R>, (typeof PLACE_FIELDS)[number]>> : T;

/**
 * @internal
 * A child's props as its handler reads them: the project, branch and auth provider of its
 * `integration` beside it (also what it outputs). Other props pass as they are.
 */
export function placed<T extends Props>(p: T): Placed<T> {
  const ref = p.integration;
  if (!isRef(ref)) return p as Placed<T>;
  const out: Props = { ...p };
  for (const k of PLACE_FIELDS) if (ref[k] !== undefined) out[k] = ref[k];
  return out as Placed<T>;
}

/**
 * @internal
 * Props before a check: a NeonAuth that adopts passes it on to what is declared in it; the
 * child's own `adopt` wins.
 */
export function inherited(p: Props): Props {
  return isRef(p.integration) && p.integration.adopt === true && p.adopt === undefined ? { ...p, adopt: true } : p;
}

/** @internal A child's recorded inputs: its `integration`, without the place it outputs beside it. */
export function inputsOf(p: Props): Props {
  if (!isRef(p.integration)) return p;
  return Object.fromEntries(Object.entries(p).filter(([k]) => !(PLACE_FIELDS as readonly string[]).includes(k)));
}

/**
 * @internal
 * Props as a child of this package records them now. 0.1.x and 0.2.0's classes recorded the place
 * beside the integration (`projectId`, `branchId`, `authProvider`, and `integration` holding the
 * identity alone, or nothing before 0.2.0): the same place, so it is the same ref and nothing to
 * change. A kind that may stand without an integration (a Data API on a JWKS URL) keeps its own.
 */
export function upgraded(decl: Pick<KindDeclaration, "parent" | "parentUnless">, p: Props): Props {
  if (decl.parent === undefined || typeof p.projectId !== "string" || isRef(p.integration)) return p;
  const identity = p.integration;
  if (identity === undefined ? decl.parentUnless !== undefined : identity === null || typeof identity !== "object") return p;
  const ref: Props = { projectId: p.projectId };
  for (const k of PLACE_FIELDS) if (p[k] !== undefined) ref[k] = p[k];
  return { ...p, integration: { ...ref, ...identity } };
}

/** @internal The kinds children live in: each outputs a `ref`. */
export const isIntegration = (decl: Pick<KindDeclaration, "kind">) => decl.kind === "NeonAuth" || decl.kind === "AuthIntegration";

/**
 * @internal
 * An integration's outputs with its `ref`: a NeonAuth's with its branch and `adopt` (the one way
 * a YAML program's children learn it); an AuthIntegration's branch is where its data lives, and
 * its children call the project-level API, so its ref has none.
 */
export function withRef(decl: Pick<KindDeclaration, "kind">, outs: Props): Props {
  if (!isIntegration(decl) || outs.authProviderProjectId === undefined) return outs;
  const fields = [...PLACE_FIELDS, ...IDENTITY_FIELDS].filter((k) => k !== "branchId" || decl.kind === "NeonAuth");
  const ref: Props = Object.fromEntries(fields.filter((k) => outs[k] !== undefined).map((k) => [k, outs[k]]));
  if (decl.kind === "NeonAuth" && outs.adopt === true) ref.adopt = true;
  return { ...outs, ref };
}
