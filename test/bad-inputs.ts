/**
 * The bad inputs every check must refuse, shared by the layers that try them: test/unit
 * (bad-input.test.ts: every case through the check of both faces, in process) and test/e2e
 * (bad-input.test.ts: a sample through the real engine, which shows how a failure reaches the
 * user). A case lives here once so that the two cannot drift apart.
 */
import { DECLARATIONS } from "../src/kinds";
import type { Kind } from "../src/provider/kit";

export const P = "p-bad";
export const B = "br-main-p-bad";
export const MISSING = Symbol("missing");

const PATTERN = "must match ^[a-z0-9-]{1,60}$";
const BLANK = "must not be empty or only whitespace";
const CONTROL = "must not contain control characters (such as CR, LF, TAB, NUL or ESC)";
const LAYOUT = "must not contain bidirectional-override or line-separator characters";
const EDGE = "must not begin or end with whitespace";
const PG = "must be a PostgreSQL identifier: a letter or '_' first";
const EMAIL = "must be a valid email address";
const ASCII_HOST = "must be ASCII (write an internationalised name in its punycode form, xn--...)";
const LABELS = "must be a hostname of dot-separated labels";
const IPV4 = "must be a valid IPv4 address in dotted decimal";
const ORIGIN = "must be an origin of the form https://host[:port], with no path, query, fragment or credentials";
const TOKEN = "must be visible ASCII characters only";
const IDENTITY_NFKC = "must be written in Unicode NFKC form";
const INVISIBLE = "must not be empty or only invisible characters (such as zero-width spaces)";
const WILDCARD_FIRST = "host may hold a wildcard only as its whole first label (https://*.example.com)";
const unknownInput = (near?: string) => `is not an input of this resource${near ? ` (did you mean ${near}?)` : ""}`;

/**
 * One resource of `kind`, made of `base` with each case's field set to its value. Through the
 * engine a group is one preview: the engine stops a preview at the first resource whose check
 * fails, so each resource carries as many bad fields as it has (each field a case of its own).
 */
export interface Group {
  kind: string;
  base: Record<string, unknown>;
  /** [field, value, rule]: the field named and the rule quoted in the failure. */
  cases: [string, unknown, string][];
  /** Why test/e2e previews it through the engine as well; the others go through the checks alone (test/unit). */
  engine?: string;
}

/**
 * The integration a child lives in, as its class reads it (its outputs; a NeonAuth's
 * `deleteDataOnDestroy` says its branch is the child's) and as its plugin's ref carries it.
 */
const NEON_AUTH = { projectId: P, branchId: B, authProvider: "better_auth", authProviderProjectId: "ap-bad", createdAt: "2026-11-01T10:00:00Z", deleteDataOnDestroy: false };
const PROJECT_AUTH = { projectId: P, authProvider: "stack", authProviderProjectId: "ap-bad", createdAt: "2026-11-01T10:00:00Z" };
const PLACE = ["projectId", "branchId", "authProvider"];

export const SMTP = { projectId: P, type: "standard", host: "smtp.example.com", port: 587, username: "mailer", password: "pw-7c1e", senderEmail: "auth@example.com", senderName: "Example" };

export const GROUPS: Group[] = [
  // ---- AuthIntegration ------------------------------------------------------------------------
  { kind: "AuthIntegration", base: { projectId: P, branchId: B }, engine: "CR/LF in a database name, misspelt inputs", cases: [
    ["projectId", "P-UPPER", PATTERN], ["branchId", "br 1", PATTERN], ["databaseName", "db\r\nDROP", PG],
    ["roleName", "pg_admin", "must not start with pg_ (reserved by PostgreSQL)"], ["authProvider", "mock", 'must be "stack"'],
    ["adopt", "yes", "must be a boolean"], ["databseName", "neondb", unknownInput("databaseName")], ["branch", "br-1", unknownInput("branchId")],
  ] },
  { kind: "AuthIntegration", base: { projectId: P, branchId: B }, cases: [
    ["projectId", "p_1", PATTERN], ["branchId", MISSING, "is required"], ["databaseName", "1db", PG],
    ["roleName", "r".repeat(64), "must be at most 63 bytes (a PostgreSQL identifier)"], ["authProvider", null, 'must be "stack"'],
    ["adopt", [true], "must be a boolean"], ["rolename", "x", unknownInput("roleName")],
  ] },
  { kind: "AuthIntegration", base: { projectId: P, branchId: B }, cases: [
    ["projectId", "p".repeat(61), PATTERN], ["branchId", 7, "must be a string"], ["databaseName", "   ", BLANK],
    ["roleName", "role\u0000x", PG], ["authProvider", ["stack"], 'must be "stack"'], ["adopt", null, "must be a boolean"],
  ] },
  { kind: "AuthIntegration", base: { projectId: P, branchId: B }, cases: [
    ["projectId", "", PATTERN], ["branchId", null, "must be a string"], ["databaseName", "d\u0430tabase", PG], ["roleName", "ro le", PG],
  ] },
  { kind: "AuthIntegration", base: { projectId: P, branchId: B }, cases: [
    ["projectId", "pr\u202eoj", PATTERN], ["databaseName", "\u00e9t\u00e9", PG], ["roleName", "", BLANK], ["branchId", "BR-MAIN", PATTERN],
  ] },
  // ---- EmailServer ----------------------------------------------------------------------------
  { kind: "EmailServer", base: SMTP, engine: "SMTP header injection, a secret, a misspelt input", cases: [
    ["host", "smtp.example.com\r\nRCPT TO:<x@evil.example>", CONTROL], ["port", "08080", "must be a whole number between 1 and 65535"],
    ["username", "user\nname", CONTROL], ["password", "   ", BLANK], ["senderEmail", "a@example.com\r\nBcc: x@evil.example", EMAIL],
    ["senderName", "Evil\u202eName", LAYOUT], ["hostt", "smtp.example.com", unknownInput("host")],
  ] },
  { kind: "EmailServer", base: SMTP, cases: [
    ["host", "h".repeat(1048), "must be at most 253 characters"], ["port", 0, "must be between 1 and 65535"],
    ["username", "u".repeat(300), "must be at most 256 characters"], ["password", " pw-with-space", EDGE],
    ["senderEmail", "not-an-email", EMAIL], ["senderName", "\u0000", CONTROL], ["integration.projectId", "", PATTERN],
  ] },
  { kind: "EmailServer", base: SMTP, cases: [
    ["host", "999.999.999.999", IPV4], ["port", 65536, "must be between 1 and 65535"], ["username", "   ", BLANK],
    ["password", "p\u0000w-x", CONTROL], ["senderEmail", "", "must not be empty"], ["senderName", "n".repeat(256), "must be at most 255 characters"],
  ] },
  { kind: "EmailServer", base: SMTP, cases: [
    ["host", "0x7f.0x0.0x0.0x1", IPV4], ["port", 25.5, "must be a whole number"], ["username", null, "must be a string"],
    ["password", 12345, "must be a string"], ["senderName", [], "must be a string"], ["senderEmail", "\u00e4dmin@ex\u00e4mple.com", EMAIL],
  ] },
  { kind: "EmailServer", base: SMTP, cases: [
    ["host", "*.example.com", "must not contain wildcards"], ["port", "587x", "must be a whole number between 1 and 65535"],
    ["password", "x".repeat(1025), "must be at most 1024 characters"], ["senderName", "   ", BLANK], ["username", "a\u2028b", LAYOUT],
  ] },
  { kind: "EmailServer", base: SMTP, cases: [
    ["host", "b\u00fccher.example", ASCII_HOST], ["port", -1, "must be between 1 and 65535"], ["password", "\u202epw-rtl", LAYOUT],
    ["senderName", "\u001b[31mred", CONTROL],
  ] },
  { kind: "EmailServer", base: SMTP, cases: [["host", "-bad.example.com", LABELS], ["port", true, "must be a number"], ["password", "pw-tab\t", EDGE]] },
  { kind: "EmailServer", base: SMTP, cases: [["host", "smtp..example.com", LABELS], ["port", null, "must be a number"]] },
  { kind: "EmailServer", base: SMTP, cases: [["host", "exa mple.com", LABELS]] },
  { kind: "EmailServer", base: SMTP, cases: [["host", "smtp.example.com.", LABELS]] },
  { kind: "EmailServer", base: { projectId: P, type: "shared" }, cases: [
    ["host", "smtp.example.com", 'must not be set when type is "shared"'], ["password", "pw-7c1e", 'must not be set when type is "shared"'],
  ] },
  { kind: "EmailServer", base: { ...SMTP, host: undefined, username: undefined }, cases: [
    ["host", MISSING, 'is required when type is "standard"'], ["username", MISSING, 'is required when type is "standard"'],
  ] },
  { kind: "EmailServer", base: SMTP, cases: [["type", "custom", 'must be "shared" or "standard"']] },
  // ---- OAuthProvider --------------------------------------------------------------------------
  { kind: "OAuthProvider", base: { projectId: P, providerId: "github", clientId: "cid-1", clientSecret: "cs-4f2a" }, engine: "a child; a secret with CR/LF", cases: [
    ["integration.projectId", "Bad!", PATTERN], ["providerId", "facebook", 'must be one of "google", "github", "microsoft"'], ["clientId", "id with space", TOKEN],
    ["clientSecret", "sec\r\nret-9", CONTROL], ["adopt", "true", "must be a boolean"], ["clientid", "x", unknownInput("clientId")],
  ] },
  { kind: "OAuthProvider", base: { projectId: P, providerId: "github", clientId: "cid-1", clientSecret: "cs-4f2a" }, cases: [
    ["providerId", "Google", 'must be one of "google", "github", "microsoft"'], ["clientId", "", BLANK], ["clientSecret", "   ", BLANK],
    ["integration.projectId", null, "must be a string"],
  ] },
  { kind: "OAuthProvider", base: { projectId: P, providerId: "github", clientId: "cid-1", clientSecret: "cs-4f2a" }, cases: [
    ["providerId", "g\u043e\u043egle", 'must be one of "google", "github", "microsoft"'], ["clientId", "c".repeat(257), "must be at most 256 characters"],
    ["clientSecret", "s".repeat(1025), "must be at most 1024 characters"],
  ] },
  { kind: "OAuthProvider", base: { projectId: P, providerId: "github", clientId: "cid-1", clientSecret: "cs-4f2a" }, cases: [
    ["providerId", ["github"], 'must be one of "google", "github", "microsoft"'], ["clientId", "cid\u202e", TOKEN], ["clientSecret", "\ttab-secret", EDGE],
  ] },
  { kind: "OAuthProvider", base: { projectId: P, providerId: "github" }, cases: [["clientSecret", "secret-only-9f", ""], ["clientId", MISSING, "must be set together with the other credential"]] },
  { kind: "OAuthProvider", base: { projectId: P, providerId: "github", clientSecret: "cs-4f2a" }, cases: [["clientId", 42, "must be a string"]] },
  // ---- AuthUser -------------------------------------------------------------------------------
  { kind: "AuthUser", base: { projectId: P, email: "ada@example.com" }, cases: [
    ["integration.projectId", "P", PATTERN], ["email", "a@example.com\r\nBcc: x@evil.example", EMAIL], ["name", "Ada\r\nLovelace", CONTROL],
    ["integration.authProvider", "auth0", 'must be "stack"'], ["emial", "x", unknownInput("email")],
  ] },
  { kind: "AuthUser", base: { projectId: P, email: "ada@example.com" }, cases: [["email", "not-an-email", EMAIL], ["name", "", BLANK], ["integration.projectId", 42, "must be a string"]] },
  { kind: "AuthUser", base: { projectId: P, email: "ada@example.com" }, cases: [["email", "", "must not be empty"], ["name", "n".repeat(256), "must be at most 255 characters"], ["integration.authProvider", null, 'must be "stack"']] },
  { kind: "AuthUser", base: { projectId: P, email: "ada@example.com" }, cases: [["email", `${"x".repeat(256)}@example.com`, "must be at most 256 characters"], ["name", "\u202eevil", LAYOUT]] },
  { kind: "AuthUser", base: { projectId: P }, cases: [["email", MISSING, "is required"], ["name", "   ", BLANK]] },
  { kind: "AuthUser", base: { projectId: P, email: "ada@example.com" }, cases: [["email", "a@", EMAIL], ["name", "x\u0000y", CONTROL]] },
  { kind: "AuthUser", base: { projectId: P, email: "ada@example.com" }, cases: [["email", ["a@example.com"], "must be a string"], ["name", 5, "must be a string"]] },
  { kind: "AuthUser", base: { projectId: P, email: "ada@example.com" }, engine: "terminal escapes", cases: [["email", "a@exa mple.com", EMAIL], ["name", "\u001b]0;title\u0007", CONTROL]] },
  // ---- AuthSdkKeys, AuthOwnershipTransfer -----------------------------------------------------
  { kind: "AuthSdkKeys", base: { projectId: P }, cases: [
    ["integration.projectId", "p/1", PATTERN], ["integration.authProvider", "better_auth", 'must be "stack"'], ["rotationTrigger", 7, "must be a string"], ["rotationTriger", "r2", unknownInput("rotationTrigger")],
  ] },
  { kind: "AuthSdkKeys", base: { projectId: P }, cases: [["rotationTrigger", "r\r\n2", CONTROL], ["integration.projectId", "..", PATTERN]] },
  { kind: "AuthOwnershipTransfer", base: { projectId: P }, cases: [["integration.projectId", "p 1", PATTERN], ["integration.authProvider", "", 'must be "stack"'], ["adopt", true, unknownInput()]] },
  { kind: "AuthOwnershipTransfer", base: { projectId: P }, cases: [["integration.projectId", "./p", PATTERN], ["authprovider", "stack", unknownInput()]] },
  // ---- RedirectDomain: one origin per preview ---------------------------------------------------
  ...([
    // The scheme left out: answered with the origin meant.
    ["app.example.com", `${ORIGIN}: did you mean https://app.example.com?`],
    ["App.Example.com:8443/", `${ORIGIN}: did you mean https://app.example.com:8443?`],
    ["localhost:3000", `${ORIGIN}: did you mean http://localhost:3000?`],
    // One word is never echoed: it could be a key pasted into the wrong field.
    ["intranet", ORIGIN],
    ["napi_0123456789abcdef", ORIGIN],
    ["https://app.example.com/callback", ORIGIN],
    ["ftp://app.example.com", "must use https (or http for a loopback host)"],
    ["https://app.example.com?x=1", "must not have a query or fragment"],
    ["https://app.example.com#frag", "must not have a query or fragment"],
    ["https://user:pw@app.example.com", "must not carry credentials (user@host)"],
    ["javascript:alert(1)", ORIGIN],
    ["data:text/html,<script>alert(1)</script>", ORIGIN],
    ["file:///etc/passwd", ORIGIN],
    ["https://app.example.com:70000", "port must be a number between 1 and 65535 without leading zeros"],
    ["https://app.example.com:08080", "port must be a number between 1 and 65535 without leading zeros"],
    ["http://app.example.com", "must use https (http is accepted for loopback hosts only)"],
    ["https://*.example.com", "may hold a wildcard only on a NeonAuth (a branch's trusted domains)"],
    ["https://b\u00fccher.example", `host ${ASCII_HOST}`],
    ["https://\u0430pple.com", `host ${ASCII_HOST}`],
    ["https://[:::1]", "must hold a valid IPv6 address between the brackets"],
    ["http://999.999.999.999", `host ${IPV4}`],
    ["http://0x7f.0x0.0x0.0x1", `host ${IPV4}`],
    ["https://", "host must not be empty"],
    ["https://app.exa\r\nmple.com", `host ${CONTROL}`],
    [`https://${"a".repeat(64)}.com`, `host ${LABELS}`],
    [`https://${`${"a".repeat(60)}.`.repeat(5)}com`, "host must be at most 253 characters"],
  ] as const).map(([domain, rule], i): Group => ({
    kind: "RedirectDomain",
    base: { projectId: P },
    cases: [
      ["domain", domain, rule],
      ...(i === 0 ? ([["integration.projectId", "UPPER", PATTERN], ["integration.authProvider", "x", 'must be "stack"'], ["domian", "x", unknownInput("domain")]] as [string, unknown, string][]) : []),
      ...(i === 1 ? ([["integration.projectId", "", PATTERN], ["integration.authProvider", null, 'must be "stack"']] as [string, unknown, string][]) : []),
    ],
  })),
  // ---- branch children: trusted domains (wildcards), shared OAuth credentials, users -------------
  ...([
    ["*", ORIGIN],
    ["*.example.com", `${ORIGIN}: did you mean https://*.example.com?`],
    ["https://*", "host must not be a bare wildcard"],
    ["https://*.vercel.app", "host must not put a wildcard over a public suffix"],
    ["https://*.co.uk", "host must not put a wildcard over a public suffix"],
    ["https://*.com", "host must have at least two labels after the wildcard"],
    ["https://app.*.example.com", WILDCARD_FIRST],
    ["https://x*.example.com", WILDCARD_FIRST],
    ["https://*.*.example.com", "host may hold one wildcard only"],
    ["https://*.example.com:*", "port must not be a wildcard"],
  ] as const).map(([domain, rule]): Group => ({ kind: "RedirectDomain", base: { projectId: P, branchId: B }, cases: [["domain", domain, rule]] })),
  ...(["github", "microsoft", "vercel"] as const).map((providerId): Group => ({
    kind: "OAuthProvider",
    base: { projectId: P, branchId: B, providerId },
    cases: [["clientId", MISSING, `is required for providerId "${providerId}": Neon has shared credentials for google only`]],
  })),
  { kind: "AuthUser", base: { projectId: P, branchId: B, email: "ada@example.com" }, cases: [["email", "\u212Aate@example.com", IDENTITY_NFKC], ["name", "\u200b\u200c\u200d\ufeff", INVISIBLE]] },
  { kind: "AuthUser", base: { projectId: P, branchId: B, email: "ada@example.com" }, cases: [["email", "a\u200b@example.com", EMAIL], ["name", "\u212Aelvin", IDENTITY_NFKC]] },
  { kind: "AuthUser", base: { projectId: P, branchId: B, email: "ada@example.com" }, cases: [["name", "\uff21da", IDENTITY_NFKC]] },
  // ---- roles as Neon Auth stores them (comma-joined), OAuth clients' redirect URIs (RFC 6749 §3.1.2)
  { kind: "AuthUser", base: { projectId: P, branchId: B, email: "ada@example.com" }, cases: [["roles", ["admin,owner"], "must name each role on its own, without a comma"]] },
  { kind: "AuthUser", base: { projectId: P, branchId: B, email: "ada@example.com" }, cases: [["roles", ["admin", "admin"], "must not name a role twice"]] },
  { kind: "AuthUser", base: { projectId: P, branchId: B, email: "ada@example.com" }, cases: [["roles", "admin", "must be an array"]] },
  { kind: "NeonAuth", base: { projectId: P, branchId: B }, cases: [["magicLink", "on", "must be an object"]] },
  ...([
    ["https://app.example.com/cb#done", "must not hold a fragment"],
    ["https://app.example.com/cb#", "must not hold a fragment"],
    ["https://ada:pw@app.example.com/cb", "must not hold credentials"],
    ["https://ada@app.example.com/cb", "must not hold credentials"],
  ] as const).map(([uri, rule]): Group => ({
    kind: "OAuthClient",
    base: { projectId: P, branchId: B, name: "partner", type: "confidential" },
    cases: [["redirectUris.1", ["https://app.example.com/ok", uri], rule]],
  })),
  // ---- NeonAuth webhooks ----------------------------------------------------------------------
  ...([
    ["http://hooks.example.com/in", "must use https (http is accepted for loopback hosts only)"],
    ["https://hooks.example.com/in\r\nX-Injected: 1", CONTROL],
    // 100 KB: a single command-line argument (how the Automation API sets config) stops at 128 KB.
    [`https://hooks.example.com/${"a".repeat(100_000)}`, "must be at most 2048 characters"],
    ["ftp://hooks.example.com/in", "must be an https:// URL"],
    ["https://hooks.exa mple.com/in", "must not contain spaces"],
  ] as const).map(([webhookUrl, rule]): Group => ({
    kind: "NeonAuth",
    base: { projectId: P, branchId: B },
    cases: [["webhooks.webhookUrl", { enabled: true, webhookUrl }, rule]],
    ...(rule === CONTROL ? { engine: "a setting, secret as a whole, with CR/LF" } : {}),
  })),
  { kind: "NeonAuth", base: { projectId: P, branchId: B }, cases: [["webhooks.webhookUrl", { enabled: true }, "is required when webhooks.enabled is true (Neon refuses enabled webhooks without a URL)"]] },
  // ---- a misspelt field inside a setting: named by its path, against that setting's fields ------
  { kind: "NeonAuth", base: { projectId: P, branchId: B }, cases: [
    ["magicLink.expiresin", { enabled: true, expiresin: 30 }, "is not a field of magicLink (did you mean magicLink.expiresIn?); its fields: enabled, expiresIn, disableSignUp"],
    ["emailAndPassword.requireEmailVerfication", { enabled: true, requireEmailVerfication: true }, "is not a field of emailAndPassword (did you mean emailAndPassword.requireEmailVerification?)"],
    ["organization.colour", { enabled: true, colour: "red" }, "is not a field of organization; its fields: "],
  ] },
  // ---- ProjectJwks: https only, loopback included (Neon fetches the keys, not this machine) ------
  { kind: "ProjectJwks", base: { projectId: P, jwksUrl: "https://clerk.example.com/.well-known/jwks.json", providerName: "Clerk" }, cases: [
    ["jwksUrl", "http://clerk.example.com/.well-known/jwks.json", "must be an https:// URL"], ["providerName", MISSING, "is required"],
    ["jwtAudience", "", BLANK], ["branchId", "BR-1", PATTERN], ["jwksURL", "https://x.example.com/jwks", unknownInput("jwksUrl")],
  ] },
  { kind: "ProjectJwks", base: { projectId: P, jwksUrl: "https://clerk.example.com/.well-known/jwks.json", providerName: "Clerk" }, cases: [
    ["jwksUrl", "http://127.0.0.1:8080/jwks.json", "must be an https:// URL"], ["providerName", "Cl\u202eerk", LAYOUT], ["projectId", "P", PATTERN],
  ] },
  { kind: "ProjectJwks", base: { projectId: P, providerName: "Clerk" }, cases: [
    ["jwksUrl", "https://clerk.example.com/jwks\r\nX: 1", CONTROL], ["jwtAudience", "a".repeat(257), "must be at most 256 characters"],
  ] },
  { kind: "ProjectJwks", base: { projectId: P, providerName: "Clerk" }, cases: [["jwksUrl", MISSING, "is required"]] },
  { kind: "RedirectDomain", base: { projectId: P }, cases: [["domain", 42, "must be a string"]] },
  { kind: "RedirectDomain", base: { projectId: P }, cases: [["domain", null, "must be a string"]] },
  { kind: "RedirectDomain", base: { projectId: P }, cases: [["domain", ["https://app.example.com"], "must be a string"]] },
  // ---- DataApi: a setting Neon refuses, a JWKS URL in clear, or beside the NeonAuth it would replace
  { kind: "DataApi", base: { projectId: P, branchId: B }, cases: [
    ["openapiMode", "everything", 'must be one of "ignore-privileges", "disabled"'], ["dbMaxRows", -5, "must be at least 1"],
    ["jwksUrl", "http://idp.example.com/.well-known/jwks.json", "must use https"], ["dbSchemas", [], "must name at least one schema"], ["database", "1db", PG],
  ] },
  { kind: "DataApi", base: { integration: NEON_AUTH }, cases: [["jwksUrl", "https://idp.example.com/.well-known/jwks.json", "cannot be given with integration"]] },
];

/**
 * Bad arguments of the functions (src/kinds/functions.ts): each refused naming the argument and the
 * rule, before any request, by the TypeScript face's function and the plugin's `Invoke`.
 */
export const FUNCTION_CASES: { fn: string; args: Record<string, unknown>; field: string; rule: string }[] = [
  { fn: "getNeonAuth", args: { branchId: B }, field: "projectId", rule: "is required" },
  { fn: "getNeonAuth", args: { projectId: P, branchId: "br 1" }, field: "branchId", rule: PATTERN },
  { fn: "getOAuthProviders", args: { projectId: P, branchId: "BR-MAIN" }, field: "branchId", rule: PATTERN },
  { fn: "getTrustedDomains", args: { projectId: P }, field: "branchId", rule: "is required" },
  { fn: "getOAuthServer", args: { projectId: "p_1", branchId: B }, field: "projectId", rule: PATTERN },
  { fn: "getNeonAuthUsers", args: { projectId: P, branchId: B, email: "ada@exa mple.com" }, field: "email", rule: EMAIL },
  { fn: "getNeonAuthUsers", args: { projectId: P, branchId: 7 }, field: "branchId", rule: "must be a string" },
  { fn: "getAuthIntegration", args: {}, field: "projectId", rule: "is required" },
  { fn: "getAuthIntegration", args: { projectId: P, branch: B }, field: "branch", rule: "is not an argument of this function; its arguments: projectId" },
  { fn: "getTrustedDomains", args: { projectId: P, branchId: B, branchID: B }, field: "branchID", rule: "is not an argument of this function (did you mean branchId?)" },
  { fn: "getDataApi", args: { projectId: P, branchId: B, database: "1db" }, field: "database", rule: PG },
  { fn: "getDataApi", args: { projectId: P }, field: "branchId", rule: "is required" },
  { fn: "getProjectJwks", args: { projectId: "P-1" }, field: "projectId", rule: PATTERN },
];

// The OAuth "together" group's first case only supplies the lone secret; it is not a case.
export const CASES = GROUPS.flatMap((g, gi) => g.cases.filter(([, , rule]) => rule !== "").map(([field, value, rule]) => ({ gi, kind: g.kind, field, value, rule })));

/** The args a program gives a group's resource (test/e2e/programs/many-resources takes them as they are). */
export function argsOf(g: Group): Record<string, unknown> {
  const args: Record<string, unknown> = Object.fromEntries(Object.entries(g.base).filter(([, v]) => v !== undefined));
  const d = DECLARATIONS[g.kind as Kind];
  // A child's place (the group's base says where it lives) is its integration's, on both faces.
  if (d.parent !== undefined && (d.parentUnless === undefined || args.integration !== undefined)) {
    const place = Object.fromEntries(PLACE.filter((k) => k in args).map((k) => [k, args[k]]));
    for (const k of PLACE) delete args[k];
    const branch = place.branchId !== undefined;
    args.integration = { ...(branch ? NEON_AUTH : PROJECT_AUTH), ...(args.integration as object | undefined), ...place };
  }
  for (const [field, value] of g.cases) {
    if (field.startsWith("integration.")) {
      const ref: Record<string, unknown> = { ...(args.integration as object) };
      if (value === MISSING) delete ref[field.slice("integration.".length)];
      else ref[field.slice("integration.".length)] = value;
      args.integration = ref;
      continue;
    }
    // A nested field (`webhooks.webhookUrl`) carries its whole setting as the value.
    if (value === MISSING) delete args[field];
    else args[field.split(".")[0]!] = value;
  }
  return args;
}

/** Strings of the cases that must never come back in a message (secrets and anything odd). */
export const NEVER_SHOWN = ["pw-7c1e", "cs-4f2a", "secret-only-9f", "sec\r\nret-9", "p\u0000w-x", "\u202epw-rtl", "pw-tab", "pw-with-space", "RCPT TO", "\u001b[31m", "\u001b]0;", "Bcc: x@evil", "hooks.example.com/in", "hooks.exa mple.com"];

