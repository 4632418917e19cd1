/**
 * The "do-nothing" stack of `npm run bench`: the same engine, language host and dynamic-provider
 * plugin as a pulumi-neon-auth stack, with an inline provider that makes no request. Its wall
 * times are the engine's own overhead for a stack of that many dynamic resources.
 */
import * as pulumi from "@pulumi/pulumi";

const cfg = new pulumi.Config();
const count = cfg.getNumber("count") ?? 100;
const projectId = cfg.get("projectId") ?? "p-bench";

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
  constructor(name: string, args: { projectId: string; domain: string }, opts?: pulumi.CustomResourceOptions) {
    super(noop, name, { ...args, authProvider: "stack" }, opts, "bench", "Noop");
  }
}

// Like examples/full-setup: one resource first (the integration there), every other one after it.
const root = new Noop("root", { projectId, domain: "root" });
for (let i = 1; i < count; i++) {
  new Noop(`noop-${i}`, { projectId, domain: `https://app-${i}.example.com` }, { dependsOn: [root] });
}

export const resources = count;
