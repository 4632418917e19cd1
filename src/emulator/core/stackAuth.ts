/**
 * What Stack Auth's key set says alike in both generations (a project-level integration, and a
 * branch's integration with `auth_provider: "stack"`): the JWKS address of its auth project, and the
 * table of the `neon_auth` schema its users are synced into.
 */

export const USERS_SYNC_TABLE = "users_sync";

export function stackJwksUrl(authProjectId: string): string {
  return `https://api.stack-auth.com/api/v1/projects/${authProjectId}/.well-known/jwks.json`;
}
