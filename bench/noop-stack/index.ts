/**
 * The "do-nothing" stack of `npm run bench`: the same engine, language host and dynamic-provider
 * plugin as a pulumi-neon-auth stack, with an inline provider that makes no request. Its wall
 * times are the engine's own overhead for a stack of that many dynamic resources, wired as
 * bench/domains-stack is: inputs taken from the first resource's outputs, not `dependsOn` (which
 * costs the engine less, and so made the package look slower than it is).
 */
import * as pulumi from "@pulumi/pulumi";

const cfg = new pulumi.Config();
const count = cfg.getNumber("count") ?? 100;
const projectId = cfg.get("projectId") ?? "p-bench";
// Set for the branch generation: a NeonAuth's child also takes its branch from the integration,
// one registered input more, which the engine and the SDK charge for whatever the provider does.
const branchId = cfg.get("branchId");

const noop: pulumi.dynamic.ResourceProvider = {
  async check(_olds, news) {
    return { inputs: news };
  },
  async diff(_id, olds, news) {
    return { changes: olds.domain !== news.domain };
  },
  async create(inputs) {
    // When the bench asks, note when each create arrives: the first one is as early as the
    // engine lets any provider start working, the last one tells the engine's own tail.
    const log = process.env.BENCH_NOOP_LOG;
    if (log) require("fs").appendFileSync(log, `${Date.now()}\n`);
    return { id: `${inputs.projectId}/${inputs.domain}`, outs: inputs };
  },
  async read(id, props) {
    return { id, props };
  },
  async delete() {},
};

class Noop extends pulumi.dynamic.Resource {
  declare readonly projectId: pulumi.Output<string>;
  declare readonly branchId: pulumi.Output<string>;
  declare readonly authProvider: pulumi.Output<string>;
  declare readonly authProviderProjectId: pulumi.Output<string>;
  declare readonly createdAt: pulumi.Output<string>;

  constructor(name: string, args: Record<string, pulumi.Input<unknown>>, opts?: pulumi.CustomResourceOptions) {
    super(noop, name, args, opts, "bench", "Noop");
  }
}

// Shaped like bench/domains-stack: one integration first, then every domain taking the
// integration's outputs as inputs (project, branch for a NeonAuth, provider, identity), as a
// RedirectDomain does.
const root = new Noop("root", { projectId, ...(branchId ? { branchId } : {}), domain: "root", authProvider: "stack", authProviderProjectId: "ap-bench", createdAt: "2026-11-01T00:00:00Z" });
for (let i = 1; i < count; i++) {
  const integration = pulumi.all([root.authProviderProjectId, root.createdAt]).apply(([authProviderProjectId, createdAt]) => ({ authProviderProjectId, createdAt }));
  new Noop(`noop-${i}`, { projectId: root.projectId, ...(branchId ? { branchId: root.branchId } : {}), authProvider: root.authProvider, integration, domain: `https://app-${i}.example.com` });
}

export const resources = count;
