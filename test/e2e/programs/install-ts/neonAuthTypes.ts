// Type-checked with the program (tsconfig "files"), never run: what a NeonAuth program reads back,
// under the `pulumi new` tsconfig. Every input is also an output; ids, types and events are unions.
import * as pulumi from "@pulumi/pulumi";
import { NeonAuth, OAuthProvider, RedirectDomain, type OAuthProviderId, type OAuthProviderType, type WebhookEvent, type WebhookFields } from "pulumi-neon-auth";

export function readBack(auth: NeonAuth, google: OAuthProvider) {
  const appName: pulumi.Output<string | undefined> = auth.appName;
  const allowLocalhost: pulumi.Output<boolean | undefined> = auth.allowLocalhost;
  const webhooks: pulumi.Output<WebhookFields | undefined> = auth.webhooks;
  const events: pulumi.Output<WebhookEvent[] | undefined> = auth.webhooks.apply((w) => w?.enabledEvents);
  const magicLinkMinutes: pulumi.Output<number | undefined> = auth.magicLink.apply((m) => m?.expiresIn);
  const id: pulumi.Output<OAuthProviderId> = google.providerId;
  const type: pulumi.Output<OAuthProviderType> = google.type;
  return { appName, allowLocalhost, webhooks, events, magicLinkMinutes, id, type };
}

export function lookedUp(): RedirectDomain {
  // An existing NeonAuth, looked up by id, still takes children.
  const auth = NeonAuth.get("existing", "p-123/br-main-1");
  return new RedirectDomain("app", { integration: auth, domain: "https://app.example.com" });
}
