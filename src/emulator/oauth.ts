/** OAuth providers of the managed auth project. */
import {
  addOAuthProviderRequest,
  listOAuthProvidersResponse,
  oauthProvider,
  updateOAuthProviderRequest,
} from "../schemas/auth";
import { oauthProviderId } from "../schemas/common";
import { projectIntegration } from "./access";
import { HttpError, parseParam, parseWith, type ApiContext, type ApiRoute } from "./http";
import type { OAuthProviderRec } from "./store";

function providerView(o: OAuthProviderRec) {
  return o.type === "standard"
    ? { id: o.id, type: o.type, client_id: o.client_id, client_secret: o.client_secret }
    : { id: o.id, type: o.type };
}

function addProvider(ctx: ApiContext) {
  const req = parseWith(addOAuthProviderRequest, ctx.body);
  const { integration } = projectIntegration(ctx);
  if (integration.oauth_providers.some((o) => o.id === req.id)) {
    throw new HttpError(409, `id: OAuth provider ${req.id} is already configured`);
  }
  const rec: OAuthProviderRec =
    req.client_id !== undefined && req.client_secret !== undefined
      ? { id: req.id, type: "standard", client_id: req.client_id, client_secret: req.client_secret }
      : { id: req.id, type: "shared" };
  integration.oauth_providers.push(rec);
  ctx.store.mutated();
  return { status: 200, body: providerView(rec) };
}

function updateProvider(ctx: ApiContext) {
  const req = parseWith(updateOAuthProviderRequest, ctx.body ?? {});
  const id = parseParam(oauthProviderId, "oauth_provider_id", ctx.params.oauth_provider_id);
  const { integration } = projectIntegration(ctx);
  const rec = integration.oauth_providers.find((o) => o.id === id);
  if (rec === undefined) throw new HttpError(404, `OAuth provider ${id} not found`);
  const clientId = req.client_id ?? rec.client_id;
  const clientSecret = req.client_secret ?? rec.client_secret;
  if (req.client_id !== undefined || req.client_secret !== undefined) {
    if (clientId === undefined) throw new HttpError(400, "client_id: is required to use own credentials (standard)");
    if (clientSecret === undefined) throw new HttpError(400, "client_secret: is required to use own credentials (standard)");
    rec.type = "standard";
    rec.client_id = clientId;
    rec.client_secret = clientSecret;
    ctx.store.mutated();
  }
  return { status: 200, body: providerView(rec) };
}

function deleteProvider(ctx: ApiContext) {
  const id = parseParam(oauthProviderId, "oauth_provider_id", ctx.params.oauth_provider_id);
  const { integration } = projectIntegration(ctx);
  const at = integration.oauth_providers.findIndex((o) => o.id === id);
  if (at < 0) throw new HttpError(404, `OAuth provider ${id} not found`);
  integration.oauth_providers.splice(at, 1);
  ctx.store.mutated();
  return { status: 204 };
}

export const oauthRoutes: ApiRoute[] = [
  {
    method: "GET",
    template: "/projects/{project_id}/auth/oauth_providers",
    response: listOAuthProvidersResponse,
    handler: (ctx) => {
      const { integration } = projectIntegration(ctx);
      return { status: 200, body: { providers: integration.oauth_providers.map((o) => ({ id: o.id, type: o.type })) } };
    },
  },
  { method: "POST", template: "/projects/{project_id}/auth/oauth_providers", handler: addProvider, response: oauthProvider },
  {
    method: "PATCH",
    template: "/projects/{project_id}/auth/oauth_providers/{oauth_provider_id}",
    handler: updateProvider,
    response: oauthProvider,
  },
  { method: "DELETE", template: "/projects/{project_id}/auth/oauth_providers/{oauth_provider_id}", handler: deleteProvider },
];
