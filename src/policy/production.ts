/**
 * The package's own production rules, beside Neon's checklist: what a production stack of this
 * package should hold because of how the package and Neon behave (README "Limits" and the kinds'
 * reference): deleting or replacing an integration deletes everything in it at Neon, a
 * `deleteDataOnDestroy` drops the users, webhooks carry user data, and an OAuth client that skips
 * consent is trusted with it.
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

export const PRODUCTION_RULES = [httpsWebhooks, protectIntegration, keepDataOnDestroy, oauthClientConsent] as const;
