/**
 * Runs the pack's policies as @pulumi/policy's server calls them, on resources written as a
 * program on either face would register them: the environment policy first (it reads the
 * settings), then the rule; a stack rule gets every resource, children with their integration
 * as the `integration` property's dependency.
 */
import type { PolicyResource, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { neonAuthPolicies } from "../../src/policy/pack";
import type { Kind } from "../../src/provider/declaration";

export type Face = "classes" | "plugin";
export const FACES: readonly Face[] = ["classes", "plugin"];

export const tokenOf = (face: Face, kind: Kind) => (face === "classes" ? `pulumi-nodejs:dynamic/neon-auth:${kind}` : `neon-auth:index:${kind}`);

export interface Declared {
  kind: Kind;
  name: string;
  props: Record<string, unknown>;
  protect?: boolean;
  /** The name of the integration it lives in. */
  in?: string;
}

export interface Reported {
  message: string;
  urn?: string;
  enforcementLevel?: string;
}

export interface Run {
  face: Face;
  stack?: string;
  tags?: Record<string, string>;
  /** Policy config by policy name, as the engine hands each its own. */
  config?: Record<string, Record<string, unknown>>;
}

const PROJECT = "shop";
export const urnOf = (face: Face, kind: Kind, name: string, stack = "prod") => `urn:pulumi:${stack}::${PROJECT}::${tokenOf(face, kind)}::${name}`;

const policies = neonAuthPolicies();
export const policyNamed = (name: string) => {
  const p = policies.find((q) => q.name === name);
  if (p === undefined) throw new Error(`no policy ${name}`);
  return p;
};

type Validate = (args: unknown, report: (v: Reported) => void) => void;

/** What each policy of the pack reports for `resources` on one stack (production when named `prod` in the config below). */
export function analyze(resources: readonly Declared[], run: Run, only?: readonly string[]): Map<string, Reported[]> {
  const stack = run.stack ?? "prod";
  const stackTags = new Map(Object.entries(run.tags ?? {}));
  const config: Record<string, Record<string, unknown>> = { "neon-auth-production-stacks": { productionStacks: ["prod"] }, ...run.config };
  const getConfigOf = (name: string) => () => config[name] ?? {};
  const notApplicable = () => {
    throw new Error("not applicable");
  };
  const all: PolicyResource[] = resources.map((r) => ({
    type: tokenOf(run.face, r.kind),
    urn: urnOf(run.face, r.kind, r.name, stack),
    name: r.name,
    props: r.props,
    opts: { protect: r.protect === true, ignoreChanges: [], aliases: [], customTimeouts: { createSeconds: 0, updateSeconds: 0, deleteSeconds: 0 }, additionalSecretOutputs: [] },
    dependencies: [],
    propertyDependencies: {},
    isType: () => false,
    asType: () => undefined,
  }));
  resources.forEach((r, i) => {
    if (r.in === undefined) return;
    const j = resources.findIndex((q) => q.name === r.in && (q.kind === "NeonAuth" || q.kind === "AuthIntegration"));
    if (j < 0) throw new Error(`no integration ${r.in}`);
    all[i]!.dependencies = [all[j]!];
    all[i]!.propertyDependencies = { integration: [all[j]!] };
  });
  const [environment, ...rules] = policies;
  const validateResource = (p: (typeof policies)[number]) => (p as ResourceValidationPolicy).validateResource as unknown as Validate;
  const out = new Map<string, Reported[]>();
  for (const rule of rules) {
    if (only !== undefined && !only.includes(rule.name)) continue;
    const reported: Reported[] = [];
    const report = (v: Reported) => reported.push(v);
    const argsOf = (r: PolicyResource, policy: string) => ({ ...r, stackTags, getConfig: getConfigOf(policy), notApplicable });
    if ("validateResource" in rule) {
      for (const r of all) {
        validateResource(environment!)(argsOf(r, environment!.name), report);
        validateResource(rule)(argsOf(r, rule.name), report);
      }
    } else {
      for (const r of all) validateResource(environment!)(argsOf(r, environment!.name), report);
      ((rule as StackValidationPolicy).validateStack as unknown as Validate)({ resources: all, getConfig: getConfigOf(rule.name), stackTags, notApplicable }, report);
    }
    if (reported.length > 0) out.set(rule.name, reported);
  }
  return out;
}
