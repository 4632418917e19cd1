/**
 * The rules as @pulumi/policy policies (`neonAuthPolicies`), and the policy that says which stacks
 * are production. Pulumi's policy config gives each policy only its own settings, so the
 * environment's live on one policy, `neon-auth-production-stacks`, listed first: @pulumi/policy
 * runs a resource's policies in the order given (its server's `analyze`), so it has read them
 * before any rule asks, and every stack rule runs after every resource was analyzed.
 *
 * On a stack that is not production each violation is reported as advisory. @pulumi/policy 1.21
 * gives a policy one enforcement level, but its `reportViolation` takes an object whose
 * `enforcementLevel` wins over it (server.js `makeReportViolationFun`); its types do not say so,
 * and test/unit/policy-pack.test.ts holds it through the server's own analyze call.
 */
import type { Policies, PolicyConfigSchema, ReportViolation, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { ENVIRONMENT_CONFIG_SCHEMA, ENVIRONMENT_POLICY, environmentOf, type Environment, type EnvironmentConfig } from "./environment";
import type { Finding, ResourceRule, Rule, StackRule } from "./rule";
import { RULES } from "./rules";
import { INTEGRATIONS, kindOf, stackView, type Subject } from "./subjects";

/** What the environment policy read last; its defaults until it has run (or when it is disabled). */
let environmentConfig: EnvironmentConfig = {};

interface Violation {
  message: string;
  urn?: string;
  enforcementLevel?: "advisory";
}

function report(reportViolation: ReportViolation, env: Environment, message: string, urn?: string): void {
  const violation: Violation = env.production
    ? { message, ...(urn === undefined ? {} : { urn }) }
    : { message: `${message}\n(advisory: stack "${env.stack}" is not a production stack)`, enforcementLevel: "advisory", ...(urn === undefined ? {} : { urn }) };
  (reportViolation as unknown as (v: Violation) => void)(violation);
}

const environmentPolicy: ResourceValidationPolicy = {
  name: ENVIRONMENT_POLICY,
  description: "Which stacks are production (settings only: it reports nothing).",
  enforcementLevel: "advisory",
  configSchema: ENVIRONMENT_CONFIG_SCHEMA as unknown as PolicyConfigSchema,
  validateResource: (args) => {
    environmentConfig = args.getConfig<EnvironmentConfig>();
  },
};

function resourcePolicy(rule: ResourceRule): ResourceValidationPolicy {
  return {
    name: rule.name,
    description: rule.description,
    enforcementLevel: rule.level,
    ...(rule.configSchema === undefined ? {} : { configSchema: rule.configSchema as unknown as PolicyConfigSchema }),
    validateResource: (args, reportViolation) => {
      const kind = kindOf(args.type);
      if (kind === undefined || !rule.applies.includes(kind)) return;
      const subject: Subject = { kind, name: args.name, urn: args.urn, props: args.props, protect: args.opts.protect === true };
      const env = environmentOf(args.urn, args.stackTags, environmentConfig);
      for (const message of rule.check(subject, args.getConfig())) report(reportViolation, env, message);
    },
  };
}

function stackPolicy(rule: StackRule): StackValidationPolicy {
  return {
    name: rule.name,
    description: rule.description,
    enforcementLevel: rule.level,
    validateStack: (args, reportViolation) => {
      const subjects: Subject[] = [];
      for (const r of args.resources) {
        const kind = kindOf(r.type);
        if (kind === undefined) continue;
        // The classes and the plugin both give a child its integration as the input `integration`.
        const from = [...(r.propertyDependencies.integration ?? []), ...r.dependencies];
        const integration = from.find((d) => {
          const of = kindOf(d.type);
          return of !== undefined && INTEGRATIONS.includes(of);
        })?.urn;
        subjects.push({ kind, name: r.name, urn: r.urn, props: r.props, protect: r.opts.protect === true, ...(integration === undefined ? {} : { integration }) });
      }
      if (subjects.length === 0) return;
      const env = environmentOf(subjects[0]!.urn, args.stackTags, environmentConfig);
      const findings: Finding[] = rule.check(stackView(subjects), args.getConfig());
      for (const f of findings) report(reportViolation, env, f.message, f.urn);
    },
  };
}

const policyOf = (rule: Rule) => (rule.scope === "resource" ? resourcePolicy(rule) : stackPolicy(rule));

/**
 * The pack's policies: the environment's settings first, then every rule. For a pack of your own
 * (`new PolicyPack("mine", { policies: [...neonAuthPolicies(), ...yours] })`), keep them first.
 */
export function neonAuthPolicies(): Policies {
  return [environmentPolicy, ...RULES.map(policyOf)];
}
