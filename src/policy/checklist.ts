/**
 * One rule per item of Neon's "Auth production checklist" (rule.ts `CHECKLIST`), each citing its
 * item's line. What only the whole stack shows is a stack rule: a trusted domain, the email
 * server and the OAuth providers are resources of their own, and leaving one out is what leaves
 * Neon's shared default in place (Neon's shared sender; on a new branch integration, Google
 * sign-in on Neon's shared development keys: "Google OAuth is enabled by default with shared
 * credentials", Neon's setup-oauth guide).
 */
import { cites, named, type ResourceRule, type StackRule } from "./rule";
import { UNKNOWN, valueAt, type Subject } from "./subjects";

const item = <N extends number>(n: N, title: string, line: number) => ({ item: n, title, line });

const TRUSTED_DOMAINS = item(1, "Configure trusted domains", 22);
const EMAIL_PROVIDER = item(2, "Set up custom email provider", 26);
const APP_NAME = item(3, "Customize application name", 30);
const OAUTH_CREDENTIALS = item(4, "Configure OAuth credentials (if using OAuth)", 34);
const EMAIL_VERIFICATION = item(5, "Enable email verification (recommended)", 38);
const LOCALHOST = item(6, "Disable localhost access", 42);

/** A value given in the program, or one only the update will know (set all the same). */
const isSet = (v: unknown) => v === UNKNOWN || (v !== undefined && v !== null && v !== "");

export const trustedDomain: StackRule = {
  name: "neon-auth-trusted-domain",
  scope: "stack",
  description: "Each integration trusts at least one origin that is not a wildcard.",
  level: "mandatory",
  checklist: TRUSTED_DOMAINS,
  applies: ["NeonAuth", "AuthIntegration", "RedirectDomain"],
  fix: "Declare a `RedirectDomain` with your production origin (`https://app.example.com`) in the integration; wildcards (`https://*.preview.example.com`) are for previews.",
  check: (stack) =>
    stack.integrations
      .filter((i) => !stack.childrenOf(i, "RedirectDomain").some((d) => {
        const domain = valueAt(d.props, "domain");
        return domain === UNKNOWN || (typeof domain === "string" && !domain.includes("*"));
      }))
      .map((i) => ({
        urn: i.urn,
        message: `${named(i)} has no trusted domain (RedirectDomain) that is not a wildcard: OAuth and email verification redirect to your production origin only when it is trusted (${cites(TRUSTED_DOMAINS)}). Declare a RedirectDomain with it.`,
      })),
};

export const ownEmailServer: StackRule = {
  name: "neon-auth-own-email-server",
  scope: "stack",
  description: "Each integration sends its mail through your own SMTP server (an EmailServer of type `standard`).",
  level: "mandatory",
  checklist: EMAIL_PROVIDER,
  applies: ["NeonAuth", "AuthIntegration", "EmailServer"],
  fix: 'Declare an `EmailServer` with `type: "standard"` and your SMTP host, port, user, password (a secret) and sender.',
  check: (stack) =>
    stack.integrations.flatMap((i) => {
      const servers = stack.childrenOf(i, "EmailServer");
      if (servers.some((s) => valueAt(s.props, "type") !== "shared")) return [];
      const links = valueAt(i.props, "emailAndPassword", "emailVerificationMethod") === "link"
        ? ` ${named(i)} sends verification links, which need your own email provider.`
        : "";
      const why = `Neon's shared sender (auth@mail.myneon.app) is rate-limited and meant for development (${cites(EMAIL_PROVIDER)}).${links}`;
      if (servers.length === 0) {
        return [{ urn: i.urn, message: `${named(i)} declares no EmailServer, so its mail goes through Neon's shared sender. ${why} Declare an EmailServer of type "standard".` }];
      }
      return servers.map((s) => ({ urn: s.urn, message: `${named(s)} has type "shared". ${why} Set type "standard" with your SMTP server.` }));
    }),
};

export const appName: ResourceRule = {
  name: "neon-auth-app-name",
  scope: "resource",
  description: "Each NeonAuth names the application its users see in auth emails.",
  level: "mandatory",
  checklist: APP_NAME,
  applies: ["NeonAuth"],
  fix: "Set `appName` on the `NeonAuth`.",
  check: (s) =>
    isSet(valueAt(s.props, "appName"))
      ? []
      : [`${named(s)} does not set appName, so auth emails carry the Neon project's name (${cites(APP_NAME)}). Set appName.`],
};

/** OAuth providers on Neon's shared keys: declared without a client id, or Google left at a new integration's default. */
function sharedKeys(stack: Parameters<StackRule["check"]>[0], i: Subject) {
  const providers = stack.childrenOf(i, "OAuthProvider");
  const shared = providers
    .filter((p) => !isSet(valueAt(p.props, "clientId")))
    .map((p) => ({ urn: p.urn, message: `${named(p)} has no clientId, so it signs users in with Neon's shared development keys (${cites(OAUTH_CREDENTIALS)}). Set clientId and clientSecret of your own OAuth app.` }));
  const google = providers.some((p) => {
    const id = valueAt(p.props, "providerId");
    return id === UNKNOWN || id === "google";
  });
  if (i.kind === "NeonAuth" && !google) {
    shared.push({
      urn: i.urn,
      message: `${named(i)} declares no OAuthProvider "google", and Neon enables Google sign-in on its shared development keys for a new Neon Auth (${cites(OAUTH_CREDENTIALS)}). Declare OAuthProvider "google" with your own Google OAuth app.`,
    });
  }
  return shared;
}

export const ownOAuthApps: StackRule = {
  name: "neon-auth-own-oauth-apps",
  scope: "stack",
  description: "No sign-in provider uses Neon's shared development keys.",
  level: "mandatory",
  checklist: OAUTH_CREDENTIALS,
  applies: ["NeonAuth", "AuthIntegration", "OAuthProvider"],
  fix: "Give each `OAuthProvider` the `clientId` and `clientSecret` of your own OAuth app. A `NeonAuth` needs an `OAuthProvider` `google` of yours even if you do not offer Google: Neon turns Google sign-in on with its shared keys.",
  check: (stack) => stack.integrations.flatMap((i) => sharedKeys(stack, i)),
};

export const emailVerification: ResourceRule = {
  name: "neon-auth-email-verification",
  scope: "resource",
  description: "Sign-up with email and password verifies the address.",
  // Neon's checklist says "recommended".
  level: "advisory",
  checklist: EMAIL_VERIFICATION,
  applies: ["NeonAuth"],
  fix: "Set `emailAndPassword.requireEmailVerification: true` (or turn email and password sign-in off).",
  check: (s) => {
    if (valueAt(s.props, "emailAndPassword", "enabled") === false) return [];
    const required = valueAt(s.props, "emailAndPassword", "requireEmailVerification");
    return required === false || required === undefined
      ? [`${named(s)} does not set emailAndPassword.requireEmailVerification to true, so anyone can sign up with an address they do not own (${cites(EMAIL_VERIFICATION)}).`]
      : [];
  },
};

export const noLocalhost: ResourceRule = {
  name: "neon-auth-no-localhost",
  scope: "resource",
  description: "Sign-in from localhost is off.",
  level: "mandatory",
  checklist: LOCALHOST,
  applies: ["NeonAuth"],
  fix: "Set `allowLocalhost: false` on the `NeonAuth`.",
  check: (s) => {
    const allow = valueAt(s.props, "allowLocalhost");
    if (allow === false || allow === UNKNOWN) return [];
    const now = allow === undefined ? "does not set allowLocalhost, and Neon allows localhost by default" : "sets allowLocalhost to true";
    return [`${named(s)} ${now}: any page on a user's machine can start sign-in (${cites(LOCALHOST)}). Set allowLocalhost: false.`];
  },
};

export const CHECKLIST_RULES = [trustedDomain, ownEmailServer, appName, ownOAuthApps, emailVerification, noLocalhost] as const;
