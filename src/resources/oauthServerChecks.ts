/**
 * Program side: the OAuth server's rules that a program shows whole, judged at preview before
 * anything is sent, when the program declares both sides of the rule. Neon refuses an OAuth
 * client whose resources the plugin does not list (create-neon-auth-o-auth-client); its login and
 * consent pages must be on the branch's trusted domains (Neon's agent-skill reference,
 * `ai/skills/neon-auth/references/oauth-server.md`), or no sign-in can come back from them.
 * Where the program leaves a side to the console, nothing is judged here; the service decides.
 */
import * as pulumi from "@pulumi/pulumi";
import { canonicalOrigin } from "../schemas";
import type { OAuthServerSettings } from "./settingTypes";

/** The trusted domains the program declares in each NeonAuth (RedirectDomain constructors). */
const domainsOf = new WeakMap<object, pulumi.Input<string>[]>();
/** The `oauthServer` each NeonAuth of the program declares. */
const serverOf = new WeakMap<object, pulumi.Input<OAuthServerSettings>>();

export function noteTrustedDomain(integration: unknown, domain: pulumi.Input<string>): void {
  if (!pulumi.Resource.isInstance(integration)) return;
  let list = domainsOf.get(integration);
  if (list === undefined) domainsOf.set(integration, (list = []));
  list.push(domain);
}

/** Refuses an OAuthClient's resources that the program's `oauthServer` does not configure (when it manages `resources`). */
export function checkClientResources(name: string, args: { integration?: unknown; resources?: pulumi.Input<pulumi.Input<string>[]> }): void {
  const server = pulumi.Resource.isInstance(args.integration) ? serverOf.get(args.integration) : undefined;
  if (server === undefined || args.resources === undefined) return;
  pulumi.all([args.resources, pulumi.output(server)]).apply(([resources, s]) => {
    if (s?.resources === undefined) return;
    const configured = new Set([...s.resources, ...(s.mcp === undefined ? [] : [s.mcp.resource])]);
    const missing = resources.filter((r) => !configured.has(r));
    if (missing.length === 0) return;
    throw new Error(
      `OAuthClient "${name}" resources: ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not on the OAuth server of its NeonAuth ` +
        "(oauthServer.resources or oauthServer.mcp.resource), and Neon refuses a client linked to a resource the server does not list. Add it there, or drop it here.",
    );
  });
}

/**
 * A NeonAuth's `oauthServer`, for its clients' check; and a refusal of login or consent pages off
 * the trusted domains the program declares in it, judged once the NeonAuth is registered (its URN
 * known): by then a program has declared its RedirectDomains.
 */
export function declareOAuthServer(auth: pulumi.Resource, name: string, server: pulumi.Input<OAuthServerSettings> | undefined): void {
  if (server === undefined) return;
  serverOf.set(auth, server);
  pulumi.all([auth.urn, pulumi.output(server)]).apply(([, s]) => {
    const pages = (["loginPage", "consentPage"] as const).filter((k) => s?.[k] !== undefined);
    const domains = domainsOf.get(auth);
    if (pages.length === 0 || domains === undefined) return;
    pulumi.all(domains).apply((ds) => {
      const off = pages.filter((k) => !ds.some((d) => covers(d, s![k]!)));
      if (off.length === 0) return;
      throw new Error(
        `NeonAuth "${name}" oauthServer.${off.join(" and oauthServer.")}: not on any trusted domain this program declares for it (RedirectDomain). ` +
          "Neon sends users to these pages for sign-in and consent, and back only to trusted domains: add a RedirectDomain for the page's origin.",
      );
    });
  });
}

/** Whether the trusted domain (an origin, or `https://*.example.com`) covers the page's origin. */
function covers(domain: string, page: string): boolean {
  const d = canonicalOrigin(domain, { wildcard: true });
  let p: URL;
  try {
    p = new URL(page);
  } catch {
    return true; // A malformed page is the NeonAuth check's to report.
  }
  if ("problem" in d) return false;
  if (d.origin === p.origin) return true;
  const m = /^(https?:)\/\/\*\.([^:]+)(:\d+)?$/.exec(d.origin);
  return m !== null && p.protocol === m[1] && p.hostname.endsWith(`.${m[2]}`) && p.host.slice(p.hostname.length) === (m[3] ?? "");
}
