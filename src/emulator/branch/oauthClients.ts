/**
 * The OAuth server's clients on a branch (`…/auth/oauth-provider/clients`), after Neon's API
 * reference pages list-, create-, update-, delete-neon-auth-o-auth-client and
 * rotate-neon-auth-o-auth-client-secret (https://neon.com/docs/reference/api/auth/). Not the
 * social sign-in providers of oauth.ts (`oauth_providers`), nor the plugin's settings
 * (`plugins/oauth-provider`, settings.ts): three spellings, three things.
 */
import { randomBytes } from "node:crypto";
import type { OAuthClient } from "../../schemas/branchAuth";
import { branchEndpoints as B } from "../../schemas/endpointsBranch";
import { isLoopbackHost } from "../../schemas/fields";
import { branchAuth, route, type BranchAuthRec, type OAuthClientRec } from "./kit";
import { HttpError, type ApiRoute } from "../core/http";
import { iso } from "../core/store";

/** Every read answers without the secret: "Client secrets are never returned" (list page). */
export function clientView(c: OAuthClientRec): OAuthClient {
  const { client_secret: _, created_ms, ...rest } = c;
  return { ...rest, redirect_uris: [...c.redirect_uris], resources: [...c.resources], created_at: iso(created_ms) };
}

/** State written before clients existed has no list. */
function clientsOf(auth: BranchAuthRec): OAuthClientRec[] {
  return (auth.oauth_clients ??= []);
}

function findClient(auth: BranchAuthRec, clientId: string): OAuthClientRec {
  const c = clientsOf(auth).find((x) => x.client_id === clientId);
  if (c === undefined) throw new HttpError(404, `OAuth client ${clientId} not found`);
  return c;
}

/**
 * "Every entry in `resources` must be configured on the OAuth provider plugin" (create page). The
 * plugin's `mcp.resource` counts as configured too (assumption: the guide calls the MCP server URL
 * a protected resource). The message: assumption.
 */
function mustBeOnPlugin(auth: BranchAuthRec, resources: readonly string[]): void {
  const plugin = auth.oauth_server as { resources?: string[]; mcp?: { resource?: string } };
  const configured = new Set([...(plugin.resources ?? []), ...(plugin.mcp?.resource === undefined ? [] : [plugin.mcp.resource])]);
  const missing = resources.filter((r) => !configured.has(r));
  if (missing.length > 0) {
    throw new HttpError(400, `resources: ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not configured on the OAuth provider plugin (its resources or mcp.resource)`);
  }
}

/**
 * "Must be https, or http on loopback hosts when localhost is allowed" (create page): the request
 * rule admits loopback http; here it is refused unless the branch allows localhost. The message:
 * assumption.
 */
function mustBeAllowedRedirects(auth: BranchAuthRec, uris: readonly string[]): void {
  const loopback = uris.filter((u) => {
    const url = new URL(u);
    return url.protocol === "http:" && isLoopbackHost(url.hostname);
  });
  if (loopback.length > 0 && !auth.allow_localhost) {
    throw new HttpError(400, `redirect_uris: http on a loopback host (${loopback.join(", ")}) needs localhost allowed on the branch (allow_localhost)`);
  }
}

/** Format of ids and secrets: assumption (Neon documents neither). */
const newClientId = () => randomBytes(16).toString("hex");
const newSecret = () => randomBytes(32).toString("base64url");

export const branchOAuthClientRoutes: ApiRoute[] = [
  route(B.listBranchOAuthClients, (ctx, { params }) => ({ body: { clients: clientsOf(branchAuth(ctx, params).auth).map(clientView) } })),
  route(B.createBranchOAuthClient, (ctx, { params, body }) => {
    const { auth } = branchAuth(ctx, params);
    mustBeOnPlugin(auth, body.resources);
    mustBeAllowedRedirects(auth, body.redirect_uris);
    const clients = clientsOf(auth);
    let id = newClientId();
    while (clients.some((c) => c.client_id === id)) id = newClientId();
    const rec: OAuthClientRec = {
      client_id: id,
      name: body.name,
      type: body.type,
      redirect_uris: [...body.redirect_uris],
      resources: [...body.resources],
      // Default: assumption (the field is optional on create and always present on reads).
      skip_consent: body.skip_consent ?? false,
      disabled: false,
      created_ms: ctx.clock.now(),
      ...(body.type === "confidential" ? { client_secret: newSecret() } : {}),
    };
    clients.push(rec);
    // "For confidential clients the response includes the client_secret, which is shown only once."
    return { body: { ...clientView(rec), ...(rec.client_secret === undefined ? {} : { client_secret: rec.client_secret }) } };
  }),
  route(B.updateBranchOAuthClient, (ctx, { params, body }) => {
    const { auth } = branchAuth(ctx, params);
    const rec = findClient(auth, params.client_id);
    if (body.resources !== undefined) mustBeOnPlugin(auth, body.resources);
    if (body.redirect_uris !== undefined) mustBeAllowedRedirects(auth, body.redirect_uris);
    // Only the fields given change; a list given replaces the stored one (update page).
    for (const [k, v] of Object.entries(body)) if (v !== undefined) Object.assign(rec, { [k]: Array.isArray(v) ? [...v] : v });
    return { body: clientView(rec) };
  }),
  // "Tokens already issued to the client are not revoked" (delete page): the emulator issues none.
  route(B.deleteBranchOAuthClient, (ctx, { params }) => {
    const { auth } = branchAuth(ctx, params);
    const clients = clientsOf(auth);
    clients.splice(clients.indexOf(findClient(auth, params.client_id)), 1);
  }),
  route(B.rotateBranchOAuthClientSecret, (ctx, { params }) => {
    const { auth } = branchAuth(ctx, params);
    const rec = findClient(auth, params.client_id);
    // The page speaks of confidential clients only; the refusal and its message: assumption.
    if (rec.type !== "confidential") throw new HttpError(400, `OAuth client ${rec.client_id} is public and has no secret to rotate`);
    // "Generates a new secret … and invalidates the previous one."
    rec.client_secret = newSecret();
    return { body: { client_id: rec.client_id, client_secret: rec.client_secret } };
  }),
];

/** Whether `secret` authenticates the client now (the control route's check; an old secret does not). */
export function secretIsValid(auth: BranchAuthRec, clientId: string, secret: string): boolean {
  const c = clientsOf(auth).find((x) => x.client_id === clientId);
  return c?.client_secret !== undefined && c.client_secret === secret && !c.disabled;
}
