/**
 * The OAuth-server plugin of the branch-scoped generation and its clients: requests and responses,
 * for the client and the emulator alike (beside branchAuth.ts, which re-exports them).
 */
import { z } from "zod";
import { wholeList } from "./common";
import { secretField, text } from "./fields";
import { webhookUrlProblem } from "./urls";

/**
 * The OAuth-server plugin: Neon Auth as an OAuth 2.1 authorization server for your own apps and
 * MCP servers. Neon's API calls it "OAuth provider", not to be confused with the social sign-in
 * `oauth_providers`. Source: Neon's API reference, getNeonAuthOAuthProviderPlugin and
 * updateNeonAuthOAuthProviderPlugin (https://neon.com/docs/reference/api/auth/update-neon-auth-o-auth-provider-plugin):
 * a PATCH updates the fields it is given; a `resources` list or an `mcp` object given replaces the
 * stored one, and `mcp` must name its `resource`. Not in the 2.7.3 OpenAPI document. The rule for
 * the pages and resources (https, or http on a loopback host): assumption, as for webhook URLs.
 */
const httpsUrl = z.string().superRefine((v, ctx) => {
  const problem = webhookUrlProblem(v);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});
/**
 * `client_id_metadata_documents`: the Client ID Metadata Documents switch, which Neon's page names
 * but cuts off before its field; the field is inferred from Neon's CLI flag
 * `--mcp-client-id-metadata-documents` (an inference until a page names it). `dynamic_registration`
 * is "legacy, deprecated in favour of" it.
 */
const mcpFields = {
  resource: httpsUrl.describe("The MCP server's URL: the resource its tokens are issued for."),
  dynamic_registration: z.boolean().optional().describe("Whether MCP clients may register themselves (dynamic client registration; legacy, in favour of `clientIdMetadataDocuments`)."),
  client_id_metadata_documents: z.boolean().optional().describe("Whether MCP clients may name themselves by the URL of a Client ID Metadata Document instead of registering."),
};
/**
 * A PATCH replaces `mcp` whole, so the package writes back what it does not manage as it read it
 * (neonAuthSettings.ts, `keptWhole`): the request carries fields a newer Neon added, by name.
 */
const oauthServerMcp = z.looseObject(mcpFields);
const oauthServerFields = {
  enabled: z.boolean().describe("Whether the branch's Neon Auth is an OAuth 2.1 server (on the project's root branch only)."),
  login_page: httpsUrl.describe("The page you host where a user signs in during an authorization, on one of the branch's trusted domains."),
  consent_page: httpsUrl.describe("The page you host where a user lets a client in, on one of the branch's trusted domains."),
  mcp: oauthServerMcp.describe("The MCP server the OAuth server issues tokens for; given, it replaces the stored one whole."),
  resources: z.array(httpsUrl).describe("The protected resources (URLs) clients may get tokens for; given, the list replaces the stored one."),
};
/** Answers keep every `mcp` field Neon sends (for the write-back) and take its URLs as they are. */
export const oauthServerPlugin = z
  .object({
    enabled: z.boolean(),
    login_page: z.string(),
    consent_page: z.string(),
    mcp: z.looseObject({ resource: z.string(), dynamic_registration: z.boolean().optional(), client_id_metadata_documents: z.boolean().optional() }),
    resources: z.array(z.string()),
  })
  .partial();
export type OAuthServerPlugin = z.infer<typeof oauthServerPlugin>;
export const updateOAuthServerPluginRequest = z.strictObject(oauthServerFields).partial();

/**
 * The OAuth clients of the OAuth-server plugin (Neon's API reference, list-, create-, update- and
 * delete-neon-auth-o-auth-client and rotate-neon-auth-o-auth-client-secret under
 * https://neon.com/docs/reference/api/auth/; not in the 2.7.3 OpenAPI document). `type` cannot
 * change; a `redirect_uris` or `resources` list given replaces the stored one; a confidential
 * client's `client_secret` comes back at create and at rotation only ("shown only once"), never
 * from the list. Redirect URIs: "https, or http on loopback hosts when localhost is allowed".
 */
export const OAUTH_CLIENT_TYPES = ["confidential", "public"] as const;
export const oauthClientType = z.enum(OAUTH_CLIENT_TYPES, { message: 'must be "confidential" or "public"' });
/**
 * A client's redirect URI: an https URL as above, and "MUST NOT include a fragment component"
 * (RFC 6749 §3.1.2). Credentials in it (`https://user:pw@host/cb`) are refused too: RFC 3986
 * §3.2.1 deprecates them and the server would hand them to every browser it redirects
 * (assumption that Neon refuses them, as RFC 6749 servers do the fragment).
 */
const redirectUri = z.string().superRefine((v, ctx) => {
  const problem = webhookUrlProblem(v) ?? redirectUriProblem(v);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});
function redirectUriProblem(v: string): string | undefined {
  if (v.includes("#")) return "must not hold a fragment (#...): RFC 6749 §3.1.2";
  const url = new URL(v);
  if (url.username !== "" || url.password !== "" || /^[a-z]+:\/\/[^/?#]*@/i.test(v)) return "must not hold credentials (user:password@)";
  return undefined;
}
const clientFields = {
  name: text(256),
  redirect_uris: z.array(redirectUri).min(1, { message: "must hold at least one URI" }),
  resources: z.array(httpsUrl),
  skip_consent: z.boolean(),
};
export const createOAuthClientRequest = z.strictObject({ ...clientFields, type: oauthClientType, skip_consent: z.boolean().optional() });
export type CreateOAuthClientRequest = z.input<typeof createOAuthClientRequest>;
export const updateOAuthClientRequest = z.strictObject({ ...clientFields, disabled: z.boolean() }).partial();
export type UpdateOAuthClientRequest = z.input<typeof updateOAuthClientRequest>;
/** A client of a type this package does not know (one an MCP client registered itself, say) is listed, never a failed read. */
export const oauthClient = z.object({
  client_id: z.string(),
  name: z.string(),
  type: z.string(),
  redirect_uris: z.array(z.string()),
  resources: z.array(z.string()),
  skip_consent: z.boolean(),
  disabled: z.boolean(),
  created_at: z.string().optional(),
});
export type OAuthClient = z.infer<typeof oauthClient>;
const clientSecret = secretField(z.string());
/** The create answer: the client, with the secret of a confidential one. */
export const createdOAuthClient = oauthClient.extend({ client_secret: clientSecret.optional() });
export const listOAuthClientsResponse = wholeList({ clients: z.array(oauthClient).optional().default([]) });
export const rotatedOAuthClientSecret = z.object({ client_id: z.string(), client_secret: clientSecret });
