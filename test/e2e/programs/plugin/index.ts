/**
 * One stack, on the `neon-auth` provider plugin through its Node.js SDK (generated from the
 * plugin's schema into ./sdk by the test) or, with config `surface: dynamic`, on the package's
 * dynamic resources: its resources from config (`resources`, a JSON list of
 * { kind, name, args, secret? }). A child's `integration` names an earlier resource: on the plugin
 * it takes that resource's `ref` output, on the dynamic resources the resource itself; the inputs
 * named in `secret` enter the engine as secrets.
 */
import * as pulumi from "@pulumi/pulumi";
import * as neon from "pulumi-neon-auth";

interface Spec {
  kind: string;
  name: string;
  args: Record<string, unknown>;
  secret?: string[];
}

type Kinds = Record<string, new (name: string, args: unknown) => pulumi.CustomResource>;

const config = new pulumi.Config();
const specs = config.requireObject<Spec[]>("resources");
const dynamic = config.get("surface") === "dynamic";
const kinds: Kinds = dynamic ? (neon as unknown as Kinds) : (require("./sdk") as Kinds);
const made = new Map<string, pulumi.CustomResource>();
for (const s of specs) {
  const args: Record<string, unknown> = { ...s.args };
  for (const k of s.secret ?? []) args[k] = pulumi.secret(args[k]);
  if (typeof args.integration === "string") {
    const parent = made.get(args.integration)!;
    args.integration = dynamic ? parent : (parent as unknown as { ref: pulumi.Output<unknown> }).ref;
  }
  made.set(s.name, new kinds[s.kind]!(s.name, args));
}
export const ids = Object.fromEntries([...made].map(([name, r]) => [name, r.id]));
/** Each integration's `ref` (plugin only), as its children take it. */
export const refs = Object.fromEntries([...made].filter(([, r]) => "ref" in r).map(([name, r]) => [name, (r as unknown as { ref: unknown }).ref]));
