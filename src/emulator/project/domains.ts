/** The redirect URI whitelist (trusted domains) of the managed auth project. */
import { projectEndpoints as P } from "../../schemas/endpointsProject";
import { projectIntegration } from "../core/access";
import type { ApiContext, ApiRoute } from "../core/http";
import { route, type Call } from "../core/route";

/** Domains compare case-insensitively (scheme and host are case-insensitive in an origin). */
function same(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function addDomain(ctx: ApiContext, { body: req }: Call<typeof P.addDomain>) {
  const { integration } = projectIntegration(ctx);
  // Adding a domain that is already listed is a no-op that still answers 201.
  if (!integration.domains.some((d) => same(d, req.domain))) integration.domains.push(req.domain);
}

function deleteDomains(ctx: ApiContext, { body: req }: Call<typeof P.deleteDomains>) {
  const { integration } = projectIntegration(ctx);
  const drop = req.domains.map((d) => d.domain);
  // Domains that are not listed are ignored (lenient, like the real service).
  integration.domains = integration.domains.filter((d) => !drop.some((x) => same(x, d)));
}

export const domainRoutes: ApiRoute[] = [
  route(P.listDomains, (ctx) => {
    const { integration } = projectIntegration(ctx);
    return { body: { domains: integration.domains.map((domain) => ({ domain, auth_provider: integration.auth_provider })) } };
  }),
  route(P.addDomain, addDomain),
  route(P.deleteDomains, deleteDomains),
];
