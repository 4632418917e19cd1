/**
 * The fidelity probe's script: each operation the package uses, called once on a throwaway
 * project, plus one call for each assumption of the emulator's ledger that a call can settle
 * (`ledger` names the row by a unique part of its Behaviour cell in src/emulator/README.md).
 * The same script runs against Neon and against the emulator; only shapes are compared.
 */

/** Values an answer gave that later calls name (ids only; never recorded). */
export type Vars = Record<string, string>;

export interface Step {
  /** Unique: the endpoint's name in the endpoint table, with a suffix when it is called again. */
  readonly id: string;
  readonly method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** With `{name}` filled from the vars; the recorded path keeps the template. */
  readonly path: string;
  readonly body?: unknown | ((v: Vars) => unknown);
  /** The ledger row this call settles. */
  readonly ledger?: string;
  /** Ids of the answer that later calls need. */
  readonly keep?: (json: any, v: Vars) => void;
}

const P = "/projects/{project_id}";
const AUTH = `${P}/branches/{branch_id}/auth`;
const BA = { auth_provider: "better_auth" };
const SMTP = { host: "smtp.example.com", port: 587, username: "probe", password: "probe-smtp-password", sender_email: "probe@example.com", sender_name: "Probe" };
const RESOURCE = "https://api.example.com";
const DATA_API = `${P}/branches/{branch_id}/data-api/neondb`;

/** The project the probe makes first; every later call runs in it, and it is deleted at the end. */
export function createProjectStep(name: string, orgId?: string): Step {
  return {
    id: "createProject",
    method: "POST",
    path: "/projects",
    body: { project: { name, ...(orgId === undefined ? {} : { org_id: orgId }) } },
    keep: (j, v) => {
      v.project_id = j.project.id;
      v.branch_id = j.branch.id;
      v.operation_id = j.operations?.[0]?.id ?? "";
    },
  };
}

export const STEPS: readonly Step[] = [
  { id: "getProject", method: "GET", path: P },
  { id: "listBranches", method: "GET", path: `${P}/branches` },
  { id: "getOperation", method: "GET", path: `${P}/operations/{operation_id}` },
  { id: "getConnectionUri", method: "GET", path: `${P}/connection_uri?branch_id={branch_id}&database_name=neondb&role_name=neondb_owner` },

  // Today's generation, on the project's default (root) branch.
  { id: "enableBranchAuth", method: "POST", path: AUTH, body: BA },
  { id: "enableBranchAuth.again", method: "POST", path: AUTH, body: BA },
  { id: "getBranchAuth", method: "GET", path: AUTH },
  { id: "updateBranchAppName", method: "PATCH", path: `${AUTH}/config`, body: { name: "Probe" } },
  {
    id: "listBranchOAuthProviders",
    method: "GET",
    path: `${AUTH}/oauth_providers`,
    ledger: "A new Better Auth integration has Google enabled with shared credentials",
  },
  {
    id: "addBranchOAuthProvider.sharedGithub",
    method: "POST",
    path: `${AUTH}/oauth_providers`,
    body: { id: "github" },
    ledger: "Shared OAuth credentials exist for Google only",
  },
  { id: "addBranchOAuthProvider", method: "POST", path: `${AUTH}/oauth_providers`, body: { id: "github", client_id: "probe-client", client_secret: "probe-secret" } },
  { id: "updateBranchOAuthProvider", method: "PATCH", path: `${AUTH}/oauth_providers/github`, body: { client_secret: "probe-secret-2" } },
  { id: "deleteBranchOAuthProvider", method: "DELETE", path: `${AUTH}/oauth_providers/github` },

  { id: "addBranchDomain", method: "POST", path: `${AUTH}/domains`, body: { domain: "https://app.example.com", ...BA } },
  {
    id: "addBranchDomain.again",
    method: "POST",
    path: `${AUTH}/domains`,
    body: { domain: "https://APP.example.com", ...BA },
    ledger: "Adding a domain already listed answers 201 and keeps one",
  },
  {
    id: "addBranchDomain.bareHost",
    method: "POST",
    path: `${AUTH}/domains`,
    body: { domain: "app.example.com", ...BA },
    ledger: "A trusted domain that is not an origin is refused with 400",
  },
  { id: "listBranchDomains", method: "GET", path: `${AUTH}/domains` },
  { id: "deleteBranchDomains", method: "DELETE", path: `${AUTH}/domains`, body: { ...BA, domains: [{ domain: "https://app.example.com" }] } },

  { id: "createBranchUser", method: "POST", path: `${AUTH}/users`, body: { email: "probe-a@example.com", name: "Probe" }, keep: (j, v) => void (v.user_id = j.id) },
  {
    id: "createBranchUser.noName",
    method: "POST",
    path: `${AUTH}/users`,
    body: { email: "probe-b@example.com" },
    ledger: "A user created without a name gets `name = ''`",
    keep: (j, v) => void (v.user2_id = j.id),
  },
  {
    id: "createBranchUser.sameAddress",
    method: "POST",
    path: `${AUTH}/users`,
    body: { email: "Probe-A@example.com", name: "Probe" },
    ledger: "One address is one user: 409 for a taken address, case-insensitive",
  },
  { id: "setBranchUserRoles", method: "PUT", path: `${AUTH}/users/{user_id}/role`, body: { roles: ["admin"] } },
  { id: "deleteBranchUser", method: "DELETE", path: `${AUTH}/users/{user_id}` },
  { id: "deleteBranchUser.second", method: "DELETE", path: `${AUTH}/users/{user2_id}` },

  { id: "getBranchEmailProvider", method: "GET", path: `${AUTH}/email_provider` },
  { id: "updateBranchEmailProvider", method: "PATCH", path: `${AUTH}/email_provider`, body: { type: "standard", ...SMTP } },
  {
    id: "updateBranchEmailProvider.partial",
    method: "PATCH",
    path: `${AUTH}/email_provider`,
    body: { type: "standard", sender_name: "Probe 2" },
    ledger: "A partial `standard` email-provider update merges into the saved settings",
  },
  { id: "testBranchEmailProvider", method: "POST", path: `${AUTH}/email_provider/test`, body: { recipient_email: "probe@example.com" } },
  { id: "sendBranchTestEmail", method: "POST", path: `${AUTH}/send_test_email`, body: { ...SMTP, recipient_email: "probe@example.com" } },
  { id: "updateBranchEmailProvider.shared", method: "PATCH", path: `${AUTH}/email_provider`, body: { type: "shared" } },

  { id: "getBranchEmailAndPassword", method: "GET", path: `${AUTH}/email_and_password` },
  { id: "updateBranchEmailAndPassword", method: "PATCH", path: `${AUTH}/email_and_password`, body: { email_verification_method: "link" } },
  { id: "getBranchAllowLocalhost", method: "GET", path: `${AUTH}/allow_localhost` },
  { id: "updateBranchAllowLocalhost", method: "PATCH", path: `${AUTH}/allow_localhost`, body: { allow_localhost: false } },
  { id: "getBranchPlugins", method: "GET", path: `${AUTH}/plugins` },
  { id: "updateBranchOrganizationPlugin", method: "PATCH", path: `${AUTH}/plugins/organization`, body: { enabled: false } },
  { id: "updateBranchMagicLinkPlugin", method: "PATCH", path: `${AUTH}/plugins/magic-link`, body: { enabled: true, expires_in: 10 } },
  { id: "getBranchPhoneNumberPlugin", method: "GET", path: `${AUTH}/plugins/phone-number` },
  { id: "updateBranchPhoneNumberPlugin", method: "PATCH", path: `${AUTH}/plugins/phone-number`, body: { enabled: true } },
  { id: "getBranchWebhooks", method: "GET", path: `${AUTH}/webhooks` },
  { id: "putBranchWebhooks", method: "PUT", path: `${AUTH}/webhooks`, body: { enabled: true, webhook_url: "https://hooks.example.com/probe", enabled_events: ["user.created"], timeout_seconds: 3 } },
  {
    id: "putBranchWebhooks.partial",
    method: "PUT",
    path: `${AUTH}/webhooks`,
    body: { enabled: false },
    ledger: "`PUT …/auth/webhooks` replaces the whole configuration",
  },

  {
    id: "getBranchOAuthServerPlugin",
    method: "GET",
    path: `${AUTH}/plugins/oauth-provider`,
    ledger: "The OAuth-server plugin (`…/auth/plugins/oauth-provider`)",
  },
  { id: "updateBranchOAuthServerPlugin", method: "PATCH", path: `${AUTH}/plugins/oauth-provider`, body: { enabled: true, resources: [RESOURCE] } },
  {
    id: "createBranchOAuthClient",
    method: "POST",
    path: `${AUTH}/oauth-provider/clients`,
    body: { name: "Probe", type: "confidential", redirect_uris: ["https://app.example.com/callback"], resources: [RESOURCE] },
    keep: (j, v) => void (v.client_id = j.client_id),
  },
  {
    id: "createBranchOAuthClient.public",
    method: "POST",
    path: `${AUTH}/oauth-provider/clients`,
    body: { name: "Probe public", type: "public", redirect_uris: ["https://app.example.com/callback"], resources: [RESOURCE] },
    keep: (j, v) => void (v.public_client_id = j.client_id),
  },
  { id: "listBranchOAuthClients", method: "GET", path: `${AUTH}/oauth-provider/clients` },
  { id: "updateBranchOAuthClient", method: "PATCH", path: `${AUTH}/oauth-provider/clients/{client_id}`, body: { disabled: true } },
  { id: "rotateBranchOAuthClientSecret", method: "POST", path: `${AUTH}/oauth-provider/clients/{client_id}/rotate_secret` },
  {
    id: "rotateBranchOAuthClientSecret.public",
    method: "POST",
    path: `${AUTH}/oauth-provider/clients/{public_client_id}/rotate_secret`,
    ledger: "The OAuth server's clients: create with `name`",
  },
  { id: "deleteBranchOAuthClient", method: "DELETE", path: `${AUTH}/oauth-provider/clients/{client_id}` },
  { id: "deleteBranchOAuthClient.public", method: "DELETE", path: `${AUTH}/oauth-provider/clients/{public_client_id}` },
  { id: "updateBranchOAuthServerPlugin.off", method: "PATCH", path: `${AUTH}/plugins/oauth-provider`, body: { enabled: false } },

  // The Data API that trusts this branch's Neon Auth, on the branch's default database.
  {
    id: "createProjectBranchDataAPI",
    method: "POST",
    path: DATA_API,
    body: { auth_provider: "neon_auth", settings: { db_schemas: ["public"] } },
  },
  {
    id: "createProjectBranchDataAPI.again",
    method: "POST",
    path: DATA_API,
    body: { auth_provider: "neon_auth" },
    ledger: "The Data API: one per branch and database",
  },
  { id: "getProjectBranchDataAPI", method: "GET", path: DATA_API },
  {
    id: "updateProjectBranchDataAPI",
    method: "PATCH",
    path: DATA_API,
    body: { settings: { db_max_rows: 100 } },
    ledger: "A Data API PATCH changes the settings given and keeps the others",
  },
  { id: "getProjectBranchDataAPI.afterUpdate", method: "GET", path: DATA_API },
  { id: "deleteProjectBranchDataAPI", method: "DELETE", path: DATA_API },

  // A JWKS entry for another identity provider: the project's keys Neon then trusts.
  {
    id: "addProjectJWKS",
    method: "POST",
    path: `${P}/jwks`,
    body: { jwks_url: "https://idp.example.com/.well-known/jwks.json", provider_name: "Probe IdP", jwt_audience: "probe" },
    keep: (j, v) => void (v.jwks_id = j.jwks.id),
  },
  { id: "getProjectJWKS", method: "GET", path: `${P}/jwks` },
  { id: "deleteProjectJWKS", method: "DELETE", path: `${P}/jwks/{jwks_id}` },

  // A branch of it: what branching copies, and a reset from the parent.
  { id: "createBranch", method: "POST", path: `${P}/branches`, body: { branch: { name: "probe-child" } }, keep: (j, v) => void (v.child_id = j.branch.id) },
  { id: "getBranch", method: "GET", path: `${P}/branches/{child_id}` },
  {
    id: "getBranchAuth.child",
    method: "GET",
    path: `${P}/branches/{child_id}/auth`,
    ledger: "The child has its own endpoint",
  },
  {
    id: "restoreBranch",
    method: "POST",
    path: `${P}/branches/{child_id}/restore`,
    body: (v: Vars) => ({ source_branch_id: v.branch_id }),
    ledger: "A reset from the parent overwrites the branch's Neon Auth",
  },
  {
    id: "disableBranchAuth",
    method: "DELETE",
    path: AUTH,
    body: { delete_data: false },
    ledger: "Disable without `delete_data` keeps the users for a re-enable",
  },
  { id: "enableBranchAuth.afterDisable", method: "POST", path: AUTH, body: BA },
  { id: "disableBranchAuth.deleteData", method: "DELETE", path: AUTH, body: { delete_data: true } },
  {
    id: "createProjectBranchDataAPI.withoutAuth",
    method: "POST",
    path: DATA_API,
    body: { auth_provider: "neon_auth" },
    ledger: "`auth_provider: neon_auth` on a branch without Neon Auth is refused (400)",
  },

  // The project-level generation on the same project.
  {
    id: "createIntegration",
    method: "POST",
    path: "/projects/auth/create",
    body: (v: Vars) => ({ auth_provider: "stack", project_id: v.project_id, branch_id: v.branch_id, database_name: "neondb", role_name: "neondb_owner" }),
  },
  { id: "listIntegrations", method: "GET", path: `${P}/auth/integrations` },
  { id: "generateSdkKeys", method: "POST", path: "/projects/auth/keys", body: (v: Vars) => ({ project_id: v.project_id, auth_provider: "stack" }) },
  {
    id: "createUser",
    method: "POST",
    path: "/projects/auth/user",
    body: (v: Vars) => ({ project_id: v.project_id, auth_provider: "stack", email: "probe-c@example.com", name: "Probe" }),
    keep: (j, v) => void (v.stack_user_id = j.id),
  },
  { id: "deleteUser", method: "DELETE", path: `${P}/auth/users/{stack_user_id}` },
  { id: "listOAuthProviders", method: "GET", path: `${P}/auth/oauth_providers` },
  { id: "addOAuthProvider", method: "POST", path: `${P}/auth/oauth_providers`, body: { id: "github", client_id: "probe-client", client_secret: "probe-secret" } },
  { id: "updateOAuthProvider", method: "PATCH", path: `${P}/auth/oauth_providers/github`, body: { client_secret: "probe-secret-2" } },
  { id: "deleteOAuthProvider", method: "DELETE", path: `${P}/auth/oauth_providers/github` },
  { id: "addDomain", method: "POST", path: `${P}/auth/domains`, body: { domain: "https://app.example.com", auth_provider: "stack" } },
  { id: "listDomains", method: "GET", path: `${P}/auth/domains` },
  { id: "deleteDomains", method: "DELETE", path: `${P}/auth/domains`, body: { auth_provider: "stack", domains: [{ domain: "https://app.example.com" }] } },
  { id: "getEmailServer", method: "GET", path: `${P}/auth/email_server` },
  { id: "updateEmailServer", method: "PATCH", path: `${P}/auth/email_server`, body: { type: "standard", ...SMTP } },
  { id: "transferOwnership", method: "POST", path: "/projects/auth/transfer_ownership", body: (v: Vars) => ({ project_id: v.project_id, auth_provider: "stack" }) },
  { id: "deleteIntegration", method: "DELETE", path: `${P}/auth/integration/stack` },
];
