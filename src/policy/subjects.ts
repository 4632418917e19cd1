/**
 * What a rule is given, the same for both faces: the kind read from either type token
 * (`pulumi-nodejs:dynamic/neon-auth:<Kind>` of the classes, `neon-auth:index:<Kind>` of the
 * plugin), the resource's inputs under the names both faces share, and the integration a child
 * lives in, from the engine's record of which resource its `integration` input came from (the
 * classes and the plugin both name it so), never from the input's value, which is unknown at the
 * first preview on the plugin.
 */
import { KINDS, type Kind } from "../provider/kindNames";

export const DYNAMIC_TOKEN_PREFIX = "pulumi-nodejs:dynamic/neon-auth:";
export const PLUGIN_TOKEN_PREFIX = "neon-auth:index:";

export { KINDS };

/** The kinds other resources live in. */
export const INTEGRATIONS: readonly Kind[] = ["NeonAuth", "AuthIntegration"];

/** The kind a type token names, on either face; undefined for anything else in the stack. */
export function kindOf(type: string): Kind | undefined {
  for (const prefix of [DYNAMIC_TOKEN_PREFIX, PLUGIN_TOKEN_PREFIX]) {
    if (type.startsWith(prefix)) {
      const kind = type.slice(prefix.length) as Kind;
      return KINDS.includes(kind) ? kind : undefined;
    }
  }
  return undefined;
}

/** One resource of the package, as the rules read it. */
export interface Subject {
  readonly kind: Kind;
  /** The resource's name in the program. */
  readonly name: string;
  readonly urn: string;
  /** Its inputs; at preview a value not known yet throws when read (see `valueAt`). */
  readonly props: Readonly<Record<string, unknown>>;
  readonly protect: boolean;
  /** The URN of the integration it lives in (children only, in stack rules only). */
  readonly integration?: string;
}

/** A value that preview cannot know (an output of a resource not made yet). */
export const UNKNOWN: unique symbol = Symbol("unknown until the update");

/**
 * The value at `path` of `props`, UNKNOWN where the engine does not know it yet. @pulumi/policy
 * hands rules a proxy that throws on reading an unknown value; a rule that must tell a value left
 * out apart from one not known yet asks here. Plain objects (the unit tests') read the same.
 */
export function valueAt(props: Readonly<Record<string, unknown>>, ...path: string[]): unknown {
  let at: unknown = props;
  for (const key of path) {
    if (at === null || typeof at !== "object" || !(key in at)) return undefined;
    try {
      at = (at as Record<string, unknown>)[key];
    } catch {
      return UNKNOWN;
    }
  }
  return at;
}

/** The stack name of a URN (`urn:pulumi:<stack>::<project>::<type>::<name>`). */
export function stackOfUrn(urn: string): string {
  const rest = urn.replace(/^urn:pulumi:/, "");
  return rest.slice(0, rest.indexOf("::"));
}

/** The integrations of a stack and what lives in each: what stack rules look at. */
export interface StackView {
  readonly integrations: readonly Subject[];
  childrenOf(integration: Subject, kind: Kind): Subject[];
}

export function stackView(subjects: readonly Subject[]): StackView {
  const integrations = subjects.filter((s) => INTEGRATIONS.includes(s.kind));
  const attributed = subjects.map((s) => (s.integration !== undefined || INTEGRATIONS.includes(s.kind) ? s : byPlace(s, integrations)));
  return {
    integrations,
    childrenOf: (integration, kind) => attributed.filter((s) => s.kind === kind && s.integration === integration.urn),
  };
}

/**
 * A child whose `integration` is written out as a value (`pulumi import --out` writes the place
 * and identity it imported, not a reference) depends on no resource: it is attributed to the
 * integration of the stack at its place, the project and branch its inputs name (inside
 * `integration` on both faces; beside it in a program written for 0.2.0). A project-level integration's
 * children name no branch. Unknown or ambiguous places attribute nothing.
 */
function byPlace(child: Subject, integrations: readonly Subject[]): Subject {
  const place = (s: Subject, inner: readonly string[]) => ["projectId", "branchId"].map((k) => valueAt(s.props, k) ?? valueAt(s.props, ...inner, k));
  const [projectId, branchId] = place(child, ["integration"]);
  if (typeof projectId !== "string" || (branchId !== undefined && typeof branchId !== "string")) return child;
  const at = integrations.filter((i) => {
    const [p, b] = place(i, []);
    return p === projectId && (branchId === undefined ? i.kind === "AuthIntegration" : i.kind === "NeonAuth" && b === branchId);
  });
  return at.length === 1 ? { ...child, integration: at[0]!.urn } : child;
}
