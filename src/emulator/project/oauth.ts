/** OAuth providers of the managed auth project. */
import { projectEndpoints as P } from "../../schemas/endpointsProject";
import { projectIntegration } from "../core/access";
import { HttpError, type ApiContext, type ApiRoute } from "../core/http";
import { route, type Call } from "../core/route";
import type { OAuthProviderRec } from "../core/store";

function providerView(o: OAuthProviderRec) {
  return o.type === "standard"
    ? { id: o.id, type: o.type, client_id: o.client_id, client_secret: o.client_secret }
    : { id: o.id, type: o.type };
}

function addProvider(ctx: ApiContext, { body: req }: Call<typeof P.addOAuthProvider>) {
  const { integration } = projectIntegration(ctx);
  if (integration.oauth_providers.some((o) => o.id === req.id)) {
    throw new HttpError(409, `id: OAuth provider ${req.id} is already configured`);
  }
  const rec: OAuthProviderRec =
    req.client_id !== undefined && req.client_secret !== undefined
      ? { id: req.id, type: "standard", client_id: req.client_id, client_secret: req.client_secret }
      : { id: req.id, type: "shared" };
  integration.oauth_providers.push(rec);
  return { body: providerView(rec) };
}

function updateProvider(ctx: ApiContext, { params, body: req }: Call<typeof P.updateOAuthProvider>) {
  const id = params.oauth_provider_id;
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
  }
  return { body: providerView(rec) };
}

function deleteProvider(ctx: ApiContext, { params }: Call<typeof P.deleteOAuthProvider>) {
  const id = params.oauth_provider_id;
  const { integration } = projectIntegration(ctx);
  const at = integration.oauth_providers.findIndex((o) => o.id === id);
  if (at < 0) throw new HttpError(404, `OAuth provider ${id} not found`);
  integration.oauth_providers.splice(at, 1);
}

export const oauthRoutes: ApiRoute[] = [
  route(P.listOAuthProviders, (ctx) => {
    const { integration } = projectIntegration(ctx);
    return { body: { providers: integration.oauth_providers.map((o) => ({ id: o.id, type: o.type })) } };
  }),
  route(P.addOAuthProvider, addProvider),
  route(P.updateOAuthProvider, updateProvider),
  route(P.deleteOAuthProvider, deleteProvider),
];
