/**
 * Which stacks are production: configuration, never a guess from a name. A stack is production
 * when the pack's config names it (`productionStacks`, exact names or `*` patterns) or when it
 * carries the stack tag `productionStackTag` (default `neon-auth:environment=production`). On
 * any other stack every violation is reported as advisory, so preview branches and development
 * stacks pass and still list what production would refuse. Names, tag names and tag values match
 * regardless of case: `Prod` against `prod`, or a tag `Production`, is a production stack a
 * case-sensitive match would let through with advisories only.
 */
import { nameList } from "./rule";
import { stackOfUrn } from "./subjects";

export const ENVIRONMENT_POLICY = "neon-auth-production-stacks";
export const DEFAULT_PRODUCTION_TAG = "neon-auth:environment=production";

export interface EnvironmentConfig {
  /** Stack names (`*` matches any characters) that are production. */
  productionStacks?: readonly string[];
  /** `name=value` of the stack tag that makes a stack production. */
  productionStackTag?: string;
}

/** The config schema of the environment policy, for Pulumi's policy config file. */
export const ENVIRONMENT_CONFIG_SCHEMA = {
  properties: {
    productionStacks: nameList("Names of the production stacks; `*` matches any characters (`prod-*`)."),
    productionStackTag: {
      type: "string",
      pattern: "^[^=]+=.*$",
      default: DEFAULT_PRODUCTION_TAG,
      description: "`name=value` of a stack tag that makes a stack production.",
    },
  },
} as const;

export interface Environment {
  readonly stack: string;
  readonly production: boolean;
  /** Why it is production, in words for a message. */
  readonly because?: string;
}

function matches(pattern: string, stack: string): boolean {
  return new RegExp(`^${pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`, "i").test(stack);
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The environment of the stack a URN belongs to, from the config and the stack's tags. */
export function environmentOf(urn: string, tags: ReadonlyMap<string, string>, config: EnvironmentConfig): Environment {
  const stack = stackOfUrn(urn);
  const named = (config.productionStacks ?? []).find((p) => matches(p, stack));
  if (named !== undefined) return { stack, production: true, because: `${ENVIRONMENT_POLICY} names it (${named})` };
  const tag = config.productionStackTag ?? DEFAULT_PRODUCTION_TAG;
  const at = tag.indexOf("=");
  const [name, value] = at < 0 ? [tag, undefined] : [tag.slice(0, at), tag.slice(at + 1)];
  if (value !== undefined && [...tags].some(([k, v]) => same(k, name) && same(v, value))) return { stack, production: true, because: `its stack tag ${tag}` };
  return { stack, production: false };
}
