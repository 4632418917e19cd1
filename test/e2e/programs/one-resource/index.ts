import * as pulumi from "@pulumi/pulumi";
import * as neon from "pulumi-neon-auth";

const cfg = new pulumi.Config();
type Resource = new (name: string, args: unknown) => pulumi.CustomResource;
const kind = cfg.require("kind") as keyof typeof neon;
const args = cfg.requireObject<Record<string, unknown>>("args");
/** More resources beside the subject, for a stack that shows several kinds at once (`others`: [{kind, name, args}]). */
const others = cfg.getObject<{ kind: keyof typeof neon; name: string; args: Record<string, unknown> }[]>("others") ?? [];
/** An integration made outside the stack (`<projectId>/<provider>`): looked up and passed as `integration`. */
const integrationId = cfg.get("integrationId");
const integration = integrationId === undefined ? undefined : neon.AuthIntegration.get("auth", integrationId);
for (const r of [{ kind, name: "subject", args }, ...others]) {
  new (neon[r.kind] as unknown as Resource)(r.name, integration === undefined ? r.args : { ...r.args, integration });
}
