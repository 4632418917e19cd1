/**
 * The package's own production rules, beside Neon's checklist: what a production stack of this
 * package should hold because of how the package and Neon behave (README "Limits" and the kinds'
 * reference): deleting or replacing an integration deletes everything in it at Neon, a
 * `deleteDataOnDestroy` drops the users, webhooks carry user data, and an OAuth client that skips
 * consent is trusted with it; a Data API serves the data itself, to whoever its tokens and
 * schemas let in.
 */
import { named, nameList, type ResourceRule } from "./rule";
import { UNKNOWN, valueAt } from "./subjects";

export const httpsWebhooks: ResourceRule = {
  name: "neon-auth-https-webhooks",
  scope: "resource",
  description: "Webhooks are delivered over https.",
  level: "mandatory",
  applies: ["NeonAuth"],
  fix: "Use an `https://` URL in `webhooks.webhookUrl`.",
  check: (s) => {
    const url = valueAt(s.props, "webhooks", "webhookUrl");
    if (url === undefined || url === UNKNOWN || (typeof url === "string" && /^https:\/\//i.test(url.trim()))) return [];
    // The URL is not quoted: it is often a secret (it may carry a token).
    return [`${named(s)} webhooks.webhookUrl is not an https URL: each event (users, one-time codes) would travel in clear. Use https.`];
  },
};

export const protectIntegration: ResourceRule = {
  name: "neon-auth-protect-integration",
  scope: "resource",
  description: "Each integration is protected from delete and replace.",
  level: "mandatory",
  applies: ["NeonAuth", "AuthIntegration"],
  fix: "Pass the resource option `protect: true` (Pulumi YAML: `options: { protect: true }`); take it off only for a deliberate destroy.",
  check: (s) =>
    s.protect
      ? []
      : [`${named(s)} is not protected: a destroy, or a change that replaces it, disables Neon Auth there and deletes everything declared in it at Neon. Pass protect: true.`],
};

export const keepDataOnDestroy: ResourceRule = {
  name: "neon-auth-keep-data-on-destroy",
  scope: "resource",
  description: "Destroying a NeonAuth keeps its users (`deleteDataOnDestroy` off).",
  level: "mandatory",
  applies: ["NeonAuth"],
  fix: "Leave `deleteDataOnDestroy` out (or `false`); it is for preview branches.",
  check: (s) =>
    valueAt(s.props, "deleteDataOnDestroy") === true
      ? [`${named(s)} sets deleteDataOnDestroy: a destroy or replacement drops the branch's neon_auth schema with its users and sessions. Leave it out in production.`]
      : [],
};

export const FIRST_PARTY_CONFIG = {
  properties: {
    firstPartyClients: nameList("OAuthClients (resource names, or client names at Neon) that are your own apps and may skip consent."),
  },
} as const;

export const oauthClientConsent: ResourceRule = {
  name: "neon-auth-oauth-client-consent",
  scope: "resource",
  description: "An OAuth client skips the consent screen only when declared first-party.",
  level: "mandatory",
  applies: ["OAuthClient"],
  fix: "Drop `skipConsent`, or name the client in this rule's `firstPartyClients` (policy config) when it is your own app.",
  configSchema: FIRST_PARTY_CONFIG,
  check: (s, config) => {
    if (valueAt(s.props, "skipConsent") !== true) return [];
    const firstParty = (config.firstPartyClients as readonly string[] | undefined) ?? [];
    const clientName = valueAt(s.props, "name");
    if (firstParty.includes(s.name) || (typeof clientName === "string" && firstParty.includes(clientName))) return [];
    return [`${named(s)} sets skipConsent, so users are never asked before it receives their data, and it is not declared first-party (firstPartyClients of neon-auth-oauth-client-consent). Drop skipConsent or declare it.`];
  },
};

/** Neon's page on the Data API's own identity providers ("What is JWT Audience?"). */
const CUSTOM_PROVIDERS = "https://neon.com/docs/data-api/custom-authentication-providers";

export const dataApiExternalProvider: ResourceRule = {
  name: "neon-auth-data-api-external-provider",
  scope: "resource",
  description: "A Data API bound to another identity provider fetches its keys over https and checks the tokens' audience.",
  level: "mandatory",
  applies: ["DataApi"],
  fix: "Give `jwksUrl` as an `https://` URL and set `jwtAudience` to the `aud` your provider puts in its tokens.",
  check: (s) => {
    const url = valueAt(s.props, "jwksUrl");
    if (url === undefined) return [];
    const out: string[] = [];
    if (url !== UNKNOWN && !(typeof url === "string" && /^https:\/\//i.test(url.trim()))) out.push(`${named(s)} jwksUrl is not an https URL: whoever sits on the way could hand the Data API keys of their own. Use https.`);
    // Neon: an audience "ensures tokens issued for one application can't be reused with another"; requiring it is the package's own.
    if (valueAt(s.props, "jwtAudience") === undefined) {
      out.push(`${named(s)} sets no jwtAudience: a token your provider issued for any other application would be accepted (${CUSTOM_PROVIDERS}, "What is JWT Audience?"). Set it.`);
    }
    return out;
  },
};

export const dataApiNamedSchemas: ResourceRule = {
  name: "neon-auth-data-api-named-schemas",
  scope: "resource",
  description: "A Data API exposes only the schemas it names (`dbSchemas` given), never the implicit `public`.",
  level: "mandatory",
  applies: ["DataApi"],
  fix: "Set `dbSchemas` to the schemas the API serves (name `public` there if `addDefaultGrants` is to open it).",
  // The package's own: Neon exposes `public` unless told otherwise (https://neon.com/docs/data-api/manage, "Exposed schemas").
  check: (s) => {
    if (valueAt(s.props, "dbSchemas") !== undefined) return [];
    const grants = valueAt(s.props, "addDefaultGrants") === true ? ", and addDefaultGrants gives every signed-in user all permissions on its tables" : "";
    return [`${named(s)} sets no dbSchemas, so Neon exposes the public schema by default${grants}. Name the schemas it serves.`];
  },
};

export const PRODUCTION_RULES = [httpsWebhooks, protectIntegration, keepDataOnDestroy, oauthClientConsent, dataApiExternalProvider, dataApiNamedSchemas] as const;
