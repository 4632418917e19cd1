/** The redirect URI whitelist (trusted domains) of the managed auth project. */
import { addDomainRequest, deleteDomainsRequest, listDomainsResponse } from "../schemas/auth";
import { projectIntegration } from "./access";
import { parseWith, type ApiContext, type ApiRoute } from "./http";

/** Domains compare case-insensitively (scheme and host are case-insensitive in an origin). */
function same(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function addDomain(ctx: ApiContext) {
  const req = parseWith(addDomainRequest, ctx.body);
  const { integration } = projectIntegration(ctx);
  // Adding a domain that is already listed is a no-op that still answers 201.
  if (!integration.domains.some((d) => same(d, req.domain))) {
    integration.domains.push(req.domain);
    ctx.store.mutated();
  }
  return { status: 201 };
}

function deleteDomains(ctx: ApiContext) {
  const req = parseWith(deleteDomainsRequest, ctx.body);
  const { integration } = projectIntegration(ctx);
  const drop = req.domains.map((d) => d.domain);
  const before = integration.domains.length;
  // Domains that are not listed are ignored (lenient, like the real service).
  integration.domains = integration.domains.filter((d) => !drop.some((x) => same(x, d)));
  if (integration.domains.length !== before) ctx.store.mutated();
  return { status: 200 };
}

export const domainRoutes: ApiRoute[] = [
  {
    method: "GET",
    template: "/projects/{project_id}/auth/domains",
    response: listDomainsResponse,
    handler: (ctx) => {
      const { integration } = projectIntegration(ctx);
      return {
        status: 200,
        body: { domains: integration.domains.map((domain) => ({ domain, auth_provider: integration.auth_provider })) },
      };
    },
  },
  { method: "POST", template: "/projects/{project_id}/auth/domains", handler: addDomain },
  { method: "DELETE", template: "/projects/{project_id}/auth/domains", handler: deleteDomains },
];
