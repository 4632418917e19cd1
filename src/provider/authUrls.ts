/**
 * The URLs an app is wired with, from a branch's Neon Auth base URL (`base_url`). Each rule's
 * source is in the emulator's fidelity ledger (src/emulator/README.md) and the README; both faces'
 * outputs and the functions take them from here.
 */

const trimmed = (baseUrl: string) => baseUrl.replace(/\/+$/, "");

/**
 * Where a social provider sends the user back: `{base URL}/callback/{provider}` (Neon's docs,
 * `auth/guides/setup-oauth`, website pull request 4926; Neon's CLI prints it after adding a
 * provider). It is what the provider's own OAuth app must list as its redirect URI.
 */
export function callbackUrl(baseUrl: string | undefined, providerId: string): string | undefined {
  return baseUrl === undefined || baseUrl === "" ? undefined : `${trimmed(baseUrl)}/callback/${providerId}`;
}

/**
 * What a resource server trusts the branch's OAuth server by: its issuer and its discovery
 * document. Assumption from Better Auth's defaults (Neon documents neither): the issuer is the auth
 * base URL (Better Auth's `jwt` plugin issues for `baseURL` unless told otherwise), and the
 * oauth-provider plugin serves its OpenID metadata at `/.well-known/openid-configuration` under it.
 */
export function oauthServerUrls(baseUrl: string | undefined): { issuer: string; discoveryUrl: string } | undefined {
  if (baseUrl === undefined || baseUrl === "") return undefined;
  return { issuer: trimmed(baseUrl), discoveryUrl: `${trimmed(baseUrl)}/.well-known/openid-configuration` };
}
