/**
 * One stack, on the `neon-auth` provider plugin through its Node.js SDK (generated from the
 * plugin's schema into ./sdk by the test) or, with config `surface: dynamic`, on the package's
 * dynamic resources: its resources from config (`resources`, a JSON list of
 * { kind, name, args, secret? }). A child's `integration` names an earlier resource: on the plugin
 * it takes that resource's `ref` output, on the dynamic resources the resource itself; the inputs
 * named in `secret` enter the engine as secrets. A spec of kind `Component` is a
 * `ComponentResource` of type `args.type`; `parent` names one as the resource's parent, `aliases`
 * the names it had under the same parent.
 */
import * as pulumi from "@pulumi/pulumi";
import * as neon from "pulumi-neon-auth";

interface Spec {
  kind: string;
  name: string;
  args: Record<string, unknown>;
  secret?: string[];
  parent?: string;
  aliases?: string[];
}

type Kinds = Record<string, new (name: string, args: unknown, opts?: pulumi.CustomResourceOptions) => pulumi.CustomResource>;

const config = new pulumi.Config();
const specs = config.requireObject<Spec[]>("resources");
const dynamic = config.get("surface") === "dynamic";
const kinds: Kinds = dynamic ? (neon as unknown as Kinds) : (require("./sdk") as Kinds);
const made = new Map<string, pulumi.CustomResource>();
const components = new Map<string, pulumi.ComponentResource>();
for (const s of specs) {
  const opts = { parent: s.parent === undefined ? undefined : components.get(s.parent)!, aliases: s.aliases?.map((name) => ({ name })) };
  if (s.kind === "Component") {
    components.set(s.name, new pulumi.ComponentResource(s.args.type as string, s.name, {}, opts));
    continue;
  }
  const args: Record<string, unknown> = { ...s.args };
  for (const k of s.secret ?? []) args[k] = pulumi.secret(args[k]);
  if (typeof args.integration === "string") {
    const parent = made.get(args.integration)!;
    args.integration = dynamic ? parent : (parent as unknown as { ref: pulumi.Output<unknown> }).ref;
  }
  made.set(s.name, new kinds[s.kind]!(s.name, args, opts));
}
export const ids = Object.fromEntries([...made].map(([name, r]) => [name, r.id]));
/** Each integration's `ref` (plugin only), as its children take it. */
export const refs = Object.fromEntries([...made].filter(([, r]) => "ref" in r).map(([name, r]) => [name, (r as unknown as { ref: unknown }).ref]));
