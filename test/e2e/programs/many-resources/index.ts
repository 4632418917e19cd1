import * as pulumi from "@pulumi/pulumi";
import * as neon from "pulumi-neon-auth";

// Resources of any kinds from one config list (`cases`: [{kind, args}]). With `chain`, every
// resource after the first lives in it (an integration first, its children after).
const cfg = new pulumi.Config();
const cases = cfg.requireObject<{ kind: keyof typeof neon; args: Record<string, unknown> }[]>("cases");
const chain = cfg.getBoolean("chain") ?? false;
let first: pulumi.CustomResource | undefined;
cases.forEach(({ kind, args }, i) => {
  const Resource = neon[kind] as unknown as new (name: string, args: unknown, opts?: pulumi.CustomResourceOptions) => pulumi.CustomResource;
  const r = new Resource(`case-${i}`, chain && first ? { ...args, integration: first } : args);
  first ??= r;
});
