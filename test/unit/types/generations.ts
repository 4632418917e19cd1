/**
 * Compiled, never run: what each generation's children accept. Every `@ts-expect-error` line is
 * something the service would refuse; generations.test.ts proves each of them is an error for
 * the declared reason (and the typecheck of `make test` proves each is one at all).
 */
import { AuthIntegration, AuthOwnershipTransfer, AuthSdkKeys, AuthUser, EmailServer, NeonAuth, OAuthClient, OAuthProvider, RedirectDomain } from "pulumi-neon-auth";

export function programs(auth: NeonAuth, legacy: AuthIntegration): void {
  // Both generations: what either accepts.
  new RedirectDomain("a", { integration: auth, domain: "https://app.example.com" });
  new RedirectDomain("b", { integration: legacy, domain: "https://app.example.com" });
  new OAuthProvider("c", { integration: auth, providerId: "microsoft", clientId: "id", clientSecret: "s", microsoftTenantId: "t" });
  new OAuthProvider("d", { integration: auth, providerId: "vercel", clientId: "id", clientSecret: "s" });
  new OAuthProvider("e", { integration: legacy, providerId: "github" });
  new AuthUser("f", { integration: auth, email: "a@example.com", roles: ["admin"] });
  new AuthUser("g", { integration: legacy, email: "a@example.com" });
  new EmailServer("h", { integration: auth, type: "standard", host: "h", port: 587, username: "u", password: "p", senderEmail: "a@example.com", senderName: "A", testRecipient: "ops@example.com" });
  new EmailServer("i", { integration: legacy, type: "shared" });
  new AuthSdkKeys("j", { integration: legacy });
  new AuthOwnershipTransfer("k", { integration: legacy });

  // Only the branch-scoped API has these.
  // @ts-expect-error roles: project-level
  new AuthUser("l", { integration: legacy, email: "a@example.com", roles: ["admin"] });
  // @ts-expect-error microsoftTenantId: project-level
  new OAuthProvider("m", { integration: legacy, providerId: "microsoft", clientId: "id", clientSecret: "s", microsoftTenantId: "t" });
  // @ts-expect-error vercel: project-level
  new OAuthProvider("n", { integration: legacy, providerId: "vercel", clientId: "id", clientSecret: "s" });
  // @ts-expect-error testRecipient: project-level
  new EmailServer("o", { integration: legacy, type: "shared", testRecipient: "ops@example.com" });
  new OAuthClient("r", { integration: auth, name: "App", type: "public", redirectUris: ["https://app.example.com/cb"] });
  // @ts-expect-error the OAuth server: project-level
  new OAuthClient("s", { integration: legacy, name: "App", type: "public", redirectUris: ["https://app.example.com/cb"] });

  // Only the project-level API has these.
  // @ts-expect-error sdk keys: NeonAuth
  new AuthSdkKeys("p", { integration: auth });
  // @ts-expect-error transfer: NeonAuth
  new AuthOwnershipTransfer("q", { integration: auth });
}
