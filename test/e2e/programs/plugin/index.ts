/**
 * One stack, on the `neon-auth` provider plugin or (config `surface: dynamic`) on the package's
 * dynamic resources: its resources from config (`resources`, a JSON list of
 * { kind, name, args, secret? }). A child's `integration` names an earlier resource: on the plugin
 * it takes that resource's `ref` output, as any SDK generated from the plugin's schema does; the
 * inputs named in `secret` enter the engine as secrets. Plugin resources are registered by type
 * token, which is all a generated SDK's classes do.
 */
import * as pulumi from "@pulumi/pulumi";
import * as neon from "pulumi-neon-auth";

interface Spec {
  kind: string;
  name: string;
  args: Record<string, unknown>;
  secret?: string[];
}

class PluginResource extends pulumi.CustomResource {}

const config = new pulumi.Config();
const specs = config.requireObject<Spec[]>("resources");
const dynamic = config.get("surface") === "dynamic";
const made = new Map<string, pulumi.CustomResource>();
for (const s of specs) {
  const args: Record<string, unknown> = { ...s.args };
  for (const k of s.secret ?? []) args[k] = pulumi.secret(args[k]);
  if (typeof args.integration === "string") {
    const parent = made.get(args.integration)!;
    args.integration = dynamic ? parent : (parent as unknown as { ref: pulumi.Output<unknown> }).ref;
  }
  if (dynamic) {
    const Kind = (neon as unknown as Record<string, new (name: string, args: unknown) => pulumi.CustomResource>)[s.kind]!;
    made.set(s.name, new Kind(s.name, args));
    continue;
  }
  if (s.kind === "NeonAuth" || s.kind === "AuthIntegration") args.ref = undefined;
  // A class of its own, as a generated SDK makes: CustomResource itself is abstract.
  made.set(s.name, new PluginResource(`neon-auth:index:${s.kind}`, s.name, args));
}
export const ids = Object.fromEntries([...made].map(([name, r]) => [name, r.id]));
