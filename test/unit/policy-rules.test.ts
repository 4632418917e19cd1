/**
 * Every rule of the policy pack on a production stack that passes it and on one that breaks it, on
 * both faces (the classes' type tokens and the plugin's): each broken stack differs from a stack
 * that passes every rule in one place, and exactly that rule reports, on exactly that resource.
 */
import { describe, expect, it } from "vitest";
import { analyze, FACES, urnOf, type Declared, type Face } from "./policy-fixture";

/** A production stack that passes every rule. */
function good(): Declared[] {
  return [
    {
      kind: "NeonAuth",
      name: "auth",
      protect: true,
      props: {
        projectId: "p-shop",
        branchId: "br-main",
        appName: "Shop",
        allowLocalhost: false,
        emailAndPassword: { enabled: true, requireEmailVerification: true, emailVerificationMethod: "link" },
        webhooks: { enabled: true, webhookUrl: "https://hooks.example.com/auth", enabledEvents: ["user.created"] },
      },
    },
    { kind: "RedirectDomain", name: "app", in: "auth", props: { domain: "https://app.example.com" } },
    { kind: "RedirectDomain", name: "previews", in: "auth", props: { domain: "https://*.preview.example.com" } },
    { kind: "OAuthProvider", name: "google", in: "auth", props: { providerId: "google", clientId: "shop.apps.googleusercontent.com", clientSecret: "g-secret" } },
    { kind: "EmailServer", name: "smtp", in: "auth", props: { type: "standard", host: "smtp.example.com", port: 587, username: "shop", password: "smtp-secret", senderEmail: "auth@example.com", senderName: "Shop" } },
    { kind: "OAuthClient", name: "partner", in: "auth", props: { name: "Partner app", type: "confidential", redirectUris: ["https://partner.example.com/cb"], skipConsent: false } },
    { kind: "AuthUser", name: "admin", in: "auth", props: { email: "ops@example.com", roles: ["admin"] } },
    { kind: "DataApi", name: "api", in: "auth", props: { database: "neondb", dbSchemas: ["api"], addDefaultGrants: false } },
    { kind: "DataApi", name: "partner-api", props: { projectId: "p-shop", branchId: "br-main", database: "partners", jwksUrl: "https://idp.example.com/.well-known/jwks.json", jwtAudience: "shop-api", dbSchemas: ["partner"] } },
  ];
}

/** The good stack with `change` made to the resource named `name` (`undefined` removes it). */
function changed(name: string, change: (r: Declared) => Declared | undefined, stack = good()): Declared[] {
  return stack.flatMap((r) => (r.name === name ? (change(r) ?? []) : [r]));
}
const withProps = (props: Record<string, unknown>) => (r: Declared): Declared => ({ ...r, props: { ...r.props, ...props } });
const without = (...keys: string[]) => (r: Declared): Declared => ({ ...r, props: Object.fromEntries(Object.entries(r.props).filter(([k]) => !keys.includes(k))) });

const CHECK = (n: number, title: string) => `Neon's Auth production checklist, item ${n} "${title}"`;

describe.each(FACES)("the policy pack on the %s' type tokens", (face: Face) => {
  const urn = (kind: Declared["kind"], name: string) => urnOf(face, kind, name);
  const run = (stack: Declared[], config?: Record<string, Record<string, unknown>>) => Object.fromEntries(analyze(stack, { face, ...(config ? { config } : {}) }));

  it("a production stack that holds every rule passes", () => {
    expect(run(good())).toEqual({});
  });

  it("neon-auth-trusted-domain: an integration with only a wildcard, or none, trusts no production origin", () => {
    const message = `NeonAuth "auth" has no trusted domain (RedirectDomain) that is not a wildcard: OAuth and email verification redirect to your production origin only when it is trusted (${CHECK(1, "Configure trusted domains")}). Declare a RedirectDomain with it.`;
    expect(run(changed("app", () => undefined))).toEqual({ "neon-auth-trusted-domain": [{ urn: urn("NeonAuth", "auth"), message }] });
    expect(run(changed("previews", () => undefined, changed("app", () => undefined)))).toEqual({ "neon-auth-trusted-domain": [{ urn: urn("NeonAuth", "auth"), message }] });
  });

  it("neon-auth-own-email-server: a shared EmailServer, or none, sends through Neon's shared sender", () => {
    const why = `Neon's shared sender (auth@mail.myneon.app) is rate-limited and meant for development (${CHECK(2, "Set up custom email provider")}). NeonAuth "auth" sends verification links, which need your own email provider.`;
    expect(run(changed("smtp", () => ({ kind: "EmailServer", name: "smtp", in: "auth", props: { type: "shared" } })))).toEqual({
      "neon-auth-own-email-server": [{ urn: urn("EmailServer", "smtp"), message: `EmailServer "smtp" has type "shared". ${why} Set type "standard" with your SMTP server.` }],
    });
    expect(run(changed("smtp", () => undefined))).toEqual({
      "neon-auth-own-email-server": [{ urn: urn("NeonAuth", "auth"), message: `NeonAuth "auth" declares no EmailServer, so its mail goes through Neon's shared sender. ${why} Declare an EmailServer of type "standard".` }],
    });
  });

  it("neon-auth-app-name: a NeonAuth without appName", () => {
    expect(run(changed("auth", without("appName")))).toEqual({
      "neon-auth-app-name": [{ message: `NeonAuth "auth" does not set appName, so auth emails carry the Neon project's name (${CHECK(3, "Customize application name")}). Set appName.` }],
    });
  });

  it("neon-auth-own-oauth-apps: a provider without a client id, or a NeonAuth without Google of its own", () => {
    const cite = CHECK(4, "Configure OAuth credentials (if using OAuth)");
    expect(run(changed("google", without("clientId", "clientSecret")))).toEqual({
      "neon-auth-own-oauth-apps": [{ urn: urn("OAuthProvider", "google"), message: `OAuthProvider "google" has no clientId, so it signs users in with Neon's shared development keys (${cite}). Set clientId and clientSecret of your own OAuth app.` }],
    });
    expect(run(changed("google", () => ({ kind: "OAuthProvider", name: "github", in: "auth", props: { providerId: "github", clientId: "Iv1.shop", clientSecret: "gh-secret" } })))).toEqual({
      "neon-auth-own-oauth-apps": [{ urn: urn("NeonAuth", "auth"), message: `NeonAuth "auth" declares no OAuthProvider "google", and Neon enables Google sign-in on its shared development keys for a new Neon Auth (${cite}). Declare OAuthProvider "google" with your own Google OAuth app.` }],
    });
  });

  it("neon-auth-email-verification: sign-up without verification (advisory by default, as Neon recommends it)", () => {
    const message = `NeonAuth "auth" does not set emailAndPassword.requireEmailVerification to true, so anyone can sign up with an address they do not own (${CHECK(5, "Enable email verification (recommended)")}).`;
    expect(run(changed("auth", withProps({ emailAndPassword: { enabled: true, requireEmailVerification: false } })))).toEqual({ "neon-auth-email-verification": [{ message }] });
    expect(run(changed("auth", without("emailAndPassword")))).toEqual({ "neon-auth-email-verification": [{ message }] });
    expect(run(changed("auth", withProps({ emailAndPassword: { enabled: false } })))).toEqual({});
  });

  it("neon-auth-no-localhost: allowLocalhost true, or left at Neon's default", () => {
    const tail = `: any page on a user's machine can start sign-in (${CHECK(6, "Disable localhost access")}). Set allowLocalhost: false.`;
    expect(run(changed("auth", withProps({ allowLocalhost: true })))).toEqual({ "neon-auth-no-localhost": [{ message: `NeonAuth "auth" sets allowLocalhost to true${tail}` }] });
    expect(run(changed("auth", without("allowLocalhost")))).toEqual({
      "neon-auth-no-localhost": [{ message: `NeonAuth "auth" does not set allowLocalhost, and Neon allows localhost by default${tail}` }],
    });
  });

  it("neon-auth-https-webhooks: a webhook URL that is not https", () => {
    expect(run(changed("auth", withProps({ webhooks: { enabled: true, webhookUrl: "http://hooks.example.com/auth" } })))).toEqual({
      "neon-auth-https-webhooks": [{ message: 'NeonAuth "auth" webhooks.webhookUrl is not an https URL: each event (users, one-time codes) would travel in clear. Use https.' }],
    });
    expect(run(changed("auth", without("webhooks")))).toEqual({});
  });

  it("neon-auth-protect-integration: an integration without protect", () => {
    expect(run(changed("auth", (r) => ({ ...r, protect: false })))).toEqual({
      "neon-auth-protect-integration": [{ message: 'NeonAuth "auth" is not protected: a destroy, or a change that replaces it, disables Neon Auth there and deletes everything declared in it at Neon. Pass protect: true.' }],
    });
  });

  it("neon-auth-keep-data-on-destroy: deleteDataOnDestroy on", () => {
    expect(run(changed("auth", withProps({ deleteDataOnDestroy: true })))).toEqual({
      "neon-auth-keep-data-on-destroy": [{ message: 'NeonAuth "auth" sets deleteDataOnDestroy: a destroy or replacement drops the branch\'s neon_auth schema with its users and sessions. Leave it out in production.' }],
    });
    expect(run(changed("auth", withProps({ deleteDataOnDestroy: false })))).toEqual({});
  });

  it("neon-auth-oauth-client-consent: skipConsent, unless the config declares the client first-party (by resource or client name)", () => {
    const skips = changed("partner", withProps({ skipConsent: true }));
    expect(run(skips)).toEqual({
      "neon-auth-oauth-client-consent": [{ message: 'OAuthClient "partner" sets skipConsent, so users are never asked before it receives their data, and it is not declared first-party (firstPartyClients of neon-auth-oauth-client-consent). Drop skipConsent or declare it.' }],
    });
    expect(run(skips, { "neon-auth-oauth-client-consent": { firstPartyClients: ["partner"] } })).toEqual({});
    expect(run(skips, { "neon-auth-oauth-client-consent": { firstPartyClients: ["Partner app"] } })).toEqual({});
  });

  it("neon-auth-data-api-external-provider: a JWKS URL in clear, or no audience", () => {
    const clear = changed("partner-api", withProps({ jwksUrl: "http://idp.example.com/.well-known/jwks.json" }));
    expect(run(clear)).toEqual({
      "neon-auth-data-api-external-provider": [{ message: 'DataApi "partner-api" jwksUrl is not an https URL: whoever sits on the way could hand the Data API keys of their own. Use https.' }],
    });
    expect(run(changed("partner-api", without("jwtAudience")))).toEqual({
      "neon-auth-data-api-external-provider": [
        { message: 'DataApi "partner-api" sets no jwtAudience: a token your provider issued for any other application would be accepted (https://neon.com/docs/data-api/custom-authentication-providers, "What is JWT Audience?"). Set it.' },
      ],
    });
  });

  it("neon-auth-data-api-named-schemas: no dbSchemas exposes public, with default grants worse", () => {
    expect(run(changed("api", without("dbSchemas")))).toEqual({
      "neon-auth-data-api-named-schemas": [{ message: 'DataApi "api" sets no dbSchemas, so Neon exposes the public schema by default. Name the schemas it serves.' }],
    });
    expect(run(changed("api", (r) => withProps({ addDefaultGrants: true })(without("dbSchemas")(r))))).toEqual({
      "neon-auth-data-api-named-schemas": [
        { message: 'DataApi "api" sets no dbSchemas, so Neon exposes the public schema by default, and addDefaultGrants gives every signed-in user all permissions on its tables. Name the schemas it serves.' },
      ],
    });
  });

  it("holds a project-level AuthIntegration to the rules of both generations that apply to it", () => {
    const stack: Declared[] = [
      { kind: "AuthIntegration", name: "legacy", props: { projectId: "p-shop", authProvider: "stack" } },
      { kind: "OAuthProvider", name: "github", in: "legacy", props: { providerId: "github" } },
    ];
    expect(Object.keys(run(stack)).sort()).toEqual(["neon-auth-own-email-server", "neon-auth-own-oauth-apps", "neon-auth-protect-integration", "neon-auth-trusted-domain"]);
    expect(run(stack)["neon-auth-own-oauth-apps"]).toEqual([
      { urn: urn("OAuthProvider", "github"), message: `OAuthProvider "github" has no clientId, so it signs users in with Neon's shared development keys (${CHECK(4, "Configure OAuth credentials (if using OAuth)")}). Set clientId and clientSecret of your own OAuth app.` },
    ]);
  });

  it("attributes children whose integration is a value, as `pulumi import --out` writes them, to the integration at their place", () => {
    // No dependency on the NeonAuth: the place and identity are written out (the classes' place beside it, the plugin's inside it).
    const identity = { authProviderProjectId: "ap-shop", createdAt: "2026-11-01T10:00:00Z" };
    const literal = (r: Declared): Declared => {
      if (r.in === undefined) return r;
      const { in: _, ...rest } = r;
      const integration = face === "classes" ? { ...identity } : { projectId: "p-shop", branchId: "br-main", ...identity };
      return { ...rest, props: { ...r.props, ...(face === "classes" ? { projectId: "p-shop", branchId: "br-main" } : {}), integration } };
    };
    expect(run(good().map(literal))).toEqual({});
    // A place no integration of the stack has is attributed to none: the integration then lacks them.
    const elsewhere = good().map(literal).map((r) => (r.kind === "EmailServer" ? { ...r, props: { ...r.props, branchId: "br-other", integration: { ...(r.props.integration as object), branchId: "br-other" } } } : r));
    expect(run(elsewhere)["neon-auth-own-email-server"]?.map((v) => v.urn)).toEqual([urn("NeonAuth", "auth")]);
  });

  it("matches children to their own integration when a stack has two", () => {
    const second: Declared[] = good()
      .filter((r) => r.name === "auth" || r.in === "auth")
      .map((r) => ({ ...r, name: `${r.name}-eu`, ...(r.in === undefined ? {} : { in: "auth-eu" }) }));
    const stack = [...good(), ...changed("smtp-eu", () => undefined, second)];
    expect(run(stack)["neon-auth-own-email-server"]?.map((v) => v.urn)).toEqual([urn("NeonAuth", "auth-eu")]);
  });
});
