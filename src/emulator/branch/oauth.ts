/** OAuth providers of a branch's integration. */
import { BRANCH_OAUTH_PROVIDER_IDS, BRANCH_SHARED_OAUTH_PROVIDER_IDS } from "../../schemas/branchAuth";
import { branchEndpoints as B } from "../../schemas/endpointsBranch";
import { branchAuth, route, type BranchOAuthRec } from "./kit";
import { HttpError, type ApiRoute } from "../core/http";

/**
 * Providers for which Neon has no shared (development) credentials: adding one without
 * client_id/client_secret fails with INVALID_SHARED_OAUTH_PROVIDER. Neon shares credentials for
 * Google only (https://neon.com/docs/auth/guides/setup-oauth: GitHub and Vercel "require custom
 * credentials"; Microsoft needs an app and tenant of its own).
 */
export const UNSHAREABLE_OAUTH_PROVIDERS: readonly string[] = BRANCH_OAUTH_PROVIDER_IDS.filter((id) => !BRANCH_SHARED_OAUTH_PROVIDER_IDS.includes(id));

/** `microsoft_tenant_id` is never returned; `client_secret` only by add and update, never by lists. */
export function oauthView(o: BranchOAuthRec, withSecret: boolean) {
  if (o.type === "shared") return { id: o.id, type: o.type };
  return { id: o.id, type: o.type, client_id: o.client_id, ...(withSecret ? { client_secret: o.client_secret } : {}) };
}

export const branchOAuthRoutes: ApiRoute[] = [
  route(B.listBranchOAuthProviders, (ctx, { params }) => {
    const { auth } = branchAuth(ctx, params);
    return { body: { providers: auth.oauth_providers.map((o) => oauthView(o, false)) } };
  }),
  route(B.addBranchOAuthProvider, (ctx, { params, body }) => {
    const { auth } = branchAuth(ctx, params);
    if (auth.oauth_providers.some((o) => o.id === body.id)) throw new HttpError(409, `id: OAuth provider ${body.id} is already configured`);
    const standard = body.client_id !== undefined && body.client_secret !== undefined;
    if (!standard && UNSHAREABLE_OAUTH_PROVIDERS.includes(body.id)) {
      throw new HttpError(
        400,
        `id: Neon has no shared credentials for ${body.id}; give client_id and client_secret of your own OAuth app`,
        "INVALID_SHARED_OAUTH_PROVIDER",
      );
    }
    const rec: BranchOAuthRec = standard
      ? { id: body.id, type: "standard", client_id: body.client_id, client_secret: body.client_secret }
      : { id: body.id, type: "shared" };
    if (body.microsoft_tenant_id !== undefined) rec.microsoft_tenant_id = body.microsoft_tenant_id;
    auth.oauth_providers.push(rec);
    return { body: oauthView(rec, true) };
  }),
  route(B.updateBranchOAuthProvider, (ctx, { params, body }) => {
    const { auth } = branchAuth(ctx, params);
    const rec = auth.oauth_providers.find((o) => o.id === params.oauth_provider_id);
    if (rec === undefined) throw new HttpError(404, `OAuth provider ${params.oauth_provider_id} not found`);
    if (body.microsoft_tenant_id !== undefined && rec.id !== "microsoft") {
      throw new HttpError(400, 'microsoft_tenant_id: is only accepted for the "microsoft" provider');
    }
    // Omitted fields are kept; a shared provider needs both credentials to become standard.
    const clientId = body.client_id ?? rec.client_id;
    const clientSecret = body.client_secret ?? rec.client_secret;
    if (body.client_id !== undefined || body.client_secret !== undefined) {
      if (clientId === undefined) throw new HttpError(400, "client_id: is required to use own credentials (standard)");
      if (clientSecret === undefined) throw new HttpError(400, "client_secret: is required to use own credentials (standard)");
      Object.assign(rec, { type: "standard", client_id: clientId, client_secret: clientSecret });
    }
    if (body.microsoft_tenant_id !== undefined) rec.microsoft_tenant_id = body.microsoft_tenant_id;
    return { body: oauthView(rec, true) };
  }),
  route(B.deleteBranchOAuthProvider, (ctx, { params }) => {
    const { auth } = branchAuth(ctx, params);
    const at = auth.oauth_providers.findIndex((o) => o.id === params.oauth_provider_id);
    if (at < 0) throw new HttpError(404, `OAuth provider ${params.oauth_provider_id} not found`);
    auth.oauth_providers.splice(at, 1);
  }),
];
