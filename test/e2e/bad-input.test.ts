/**
 * Invalid inputs fail at preview, through the real engine's check, with a message that names
 * the field and the rule, never the value, and without a single request to the API.
 *
 * The engine stops a preview at the first resource whose check fails, so each preview carries
 * one resource with as many bad fields as it has (each field a case of its own), and a few
 * stacks run previews side by side. Borderline forms accepted on purpose go through `up`.
 */
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, stackFor, useEmulatorStack, type E2eStack } from "./harness";
import { clearRequestLog, neonConfig, requestLog } from "./neon";

const P = "p-bad";
const B = "br-main-p-bad";
const MISSING = Symbol("missing");
const PROGRAM = path.join(__dirname, "programs", "many-resources");

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

/** One preview: a resource of `kind` made of `base` with each case's field set to its value. */
interface Group {
  kind: string;
  base: Record<string, unknown>;
  /** [field, value, rule]: the field named and the rule quoted in the failure. */
  cases: [string, unknown, string][];
}

const SMTP = { projectId: P, type: "standard", host: "smtp.example.com", port: 587, username: "mailer", password: "pw-7c1e", senderEmail: "auth@example.com", senderName: "Example" };

const GROUPS: Group[] = [
  // ---- AuthIntegration ------------------------------------------------------------------------
  { kind: "AuthIntegration", base: { projectId: P, branchId: B }, cases: [
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
  { kind: "EmailServer", base: SMTP, cases: [
    ["host", "smtp.example.com\r\nRCPT TO:<x@evil.example>", CONTROL], ["port", "08080", "must be a whole number between 1 and 65535"],
    ["username", "user\nname", CONTROL], ["password", "   ", BLANK], ["senderEmail", "a@example.com\r\nBcc: x@evil.example", EMAIL],
    ["senderName", "Evil\u202eName", LAYOUT], ["hostt", "smtp.example.com", unknownInput("host")],
  ] },
  { kind: "EmailServer", base: SMTP, cases: [
    ["host", "h".repeat(1048), "must be at most 253 characters"], ["port", 0, "must be between 1 and 65535"],
    ["username", "u".repeat(300), "must be at most 256 characters"], ["password", " pw-with-space", EDGE],
    ["senderEmail", "not-an-email", EMAIL], ["senderName", "\u0000", CONTROL], ["projectId", "", PATTERN],
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
  { kind: "OAuthProvider", base: { projectId: P, providerId: "github", clientId: "cid-1", clientSecret: "cs-4f2a" }, cases: [
    ["projectId", "Bad!", PATTERN], ["providerId", "facebook", 'must be one of "google", "github", "microsoft"'], ["clientId", "id with space", TOKEN],
    ["clientSecret", "sec\r\nret-9", CONTROL], ["adopt", "true", "must be a boolean"], ["clientid", "x", unknownInput("clientId")],
  ] },
  { kind: "OAuthProvider", base: { projectId: P, providerId: "github", clientId: "cid-1", clientSecret: "cs-4f2a" }, cases: [
    ["providerId", "Google", 'must be one of "google", "github", "microsoft"'], ["clientId", "", BLANK], ["clientSecret", "   ", BLANK],
    ["projectId", null, "must be a string"],
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
    ["projectId", "P", PATTERN], ["email", "a@example.com\r\nBcc: x@evil.example", EMAIL], ["name", "Ada\r\nLovelace", CONTROL],
    ["authProvider", "auth0", 'must be "stack"'], ["emial", "x", unknownInput("email")],
  ] },
  { kind: "AuthUser", base: { projectId: P, email: "ada@example.com" }, cases: [["email", "not-an-email", EMAIL], ["name", "", BLANK], ["projectId", 42, "must be a string"]] },
  { kind: "AuthUser", base: { projectId: P, email: "ada@example.com" }, cases: [["email", "", "must not be empty"], ["name", "n".repeat(256), "must be at most 255 characters"], ["authProvider", null, 'must be "stack"']] },
  { kind: "AuthUser", base: { projectId: P, email: "ada@example.com" }, cases: [["email", `${"x".repeat(256)}@example.com`, "must be at most 256 characters"], ["name", "\u202eevil", LAYOUT]] },
  { kind: "AuthUser", base: { projectId: P }, cases: [["email", MISSING, "is required"], ["name", "   ", BLANK]] },
  { kind: "AuthUser", base: { projectId: P, email: "ada@example.com" }, cases: [["email", "a@", EMAIL], ["name", "x\u0000y", CONTROL]] },
  { kind: "AuthUser", base: { projectId: P, email: "ada@example.com" }, cases: [["email", ["a@example.com"], "must be a string"], ["name", 5, "must be a string"]] },
  { kind: "AuthUser", base: { projectId: P, email: "ada@example.com" }, cases: [["email", "a@exa mple.com", EMAIL], ["name", "\u001b]0;title\u0007", CONTROL]] },
  // ---- AuthSdkKeys, AuthOwnershipTransfer -----------------------------------------------------
  { kind: "AuthSdkKeys", base: { projectId: P }, cases: [
    ["projectId", "p/1", PATTERN], ["authProvider", "better_auth", 'must be "stack"'], ["rotationTrigger", 7, "must be a string"], ["rotationTriger", "r2", unknownInput("rotationTrigger")],
  ] },
  { kind: "AuthSdkKeys", base: { projectId: P }, cases: [["rotationTrigger", "r\r\n2", CONTROL], ["projectId", "..", PATTERN]] },
  { kind: "AuthOwnershipTransfer", base: { projectId: P }, cases: [["projectId", "p 1", PATTERN], ["authProvider", "", 'must be "stack"'], ["adopt", true, unknownInput()]] },
  { kind: "AuthOwnershipTransfer", base: { projectId: P }, cases: [["projectId", "./p", PATTERN], ["authprovider", "stack", unknownInput("authProvider")]] },
  // ---- RedirectDomain: one origin per preview ---------------------------------------------------
  ...([
    ["app.example.com", ORIGIN],
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
      ...(i === 0 ? ([["projectId", "UPPER", PATTERN], ["authProvider", "x", 'must be "stack"'], ["domian", "x", unknownInput("domain")]] as [string, unknown, string][]) : []),
      ...(i === 1 ? ([["projectId", "", PATTERN], ["authProvider", null, 'must be "stack"']] as [string, unknown, string][]) : []),
    ],
  })),
  // ---- branch children: trusted domains (wildcards), shared OAuth credentials, users -------------
  ...([
    ["*", ORIGIN],
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
  })),
  { kind: "RedirectDomain", base: { projectId: P }, cases: [["domain", 42, "must be a string"]] },
  { kind: "RedirectDomain", base: { projectId: P }, cases: [["domain", null, "must be a string"]] },
  { kind: "RedirectDomain", base: { projectId: P }, cases: [["domain", ["https://app.example.com"], "must be a string"]] },
];

// The OAuth "together" group's first case only supplies the lone secret; it is not a case.
const CASES = GROUPS.flatMap((g, gi) => g.cases.filter(([, , rule]) => rule !== "").map(([field, value, rule]) => ({ gi, kind: g.kind, field, value, rule })));

function argsOf(g: Group): Record<string, unknown> {
  const args: Record<string, unknown> = Object.fromEntries(Object.entries(g.base).filter(([, v]) => v !== undefined));
  for (const [field, value] of g.cases) {
    // A nested field (`webhooks.webhookUrl`) carries its whole setting as the value.
    if (value === MISSING) delete args[field];
    else args[field.split(".")[0]!] = value;
  }
  return args;
}

/** Strings of the cases that must never come back in a message (secrets and anything odd). */
const NEVER_SHOWN = ["pw-7c1e", "cs-4f2a", "secret-only-9f", "sec\r\nret-9", "p\u0000w-x", "\u202epw-rtl", "pw-tab", "pw-with-space", "RCPT TO", "\u001b[31m", "\u001b]0;", "Bcc: x@evil", "hooks.example.com/in", "hooks.exa mple.com"];

const STACKS = 3;

describe("bad input is refused at preview", () => {
  let em: EmulatorHandle;
  const stacks: E2eStack[] = [];
  const messages = new Map<number, string>();

  useEmulatorStack({ emulator: { seedProjects: [P] }, ready: (s) => (em = s.em) });

  beforeAll(async () => {
    for (let i = 0; i < STACKS; i++) {
      stacks.push(await stackFor({ program: PROGRAM, stackName: `bad-${i}`, config: neonConfig(em) }));
    }
    await clearRequestLog(em);
    let next = 0;
    await Promise.all(
      stacks.map(async (e2e) => {
        while (next < GROUPS.length) {
          const gi = next++;
          const g = GROUPS[gi]!;
          await e2e.stack.setConfig("cases", { value: JSON.stringify([{ kind: g.kind, args: argsOf(g) }]) });
          const err = await e2e.stack.preview({ color: "never" }).then(
            () => undefined,
            (e: Error) => e,
          );
          messages.set(gi, err === undefined ? "(preview succeeded)" : String(err.message));
        }
      }),
    );
  }, 1_200_000);

  // Runs before the fixture's teardown closes the emulator (after-hooks run last-registered first).
  afterAll(async () => {
    for (const s of stacks) await s.cleanup();
  });

  it(`tries at least 100 bad inputs across all eight resources (${CASES.length} in ${GROUPS.length} previews)`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(100);
    expect(new Set(CASES.map((c) => c.kind))).toEqual(
      new Set(["AuthIntegration", "AuthSdkKeys", "AuthOwnershipTransfer", "AuthUser", "OAuthProvider", "RedirectDomain", "EmailServer", "NeonAuth"]),
    );
  });

  it.each(CASES.map((c) => [c.kind, c.field, JSON.stringify(c.value === MISSING ? "(missing)" : c.value)?.slice(0, 60), c] as const))(
    "%s %s %s is refused, naming the field and the rule",
    (kind, field, _shown, c) => {
      const message = messages.get(c.gi)!;
      expect(message).toContain(`${kind} ${field} ${c.rule}`);
    },
  );

  it("never shows a secret or a raw value in any message", () => {
    const all = [...messages.values()].join("\n");
    expect(NEVER_SHOWN.filter((s) => all.includes(s))).toEqual([]);
    // The engine prints an input's value ("property x value {...}") only when a failure names a
    // property; none does, so it says "resource 'case-0' has a problem: <our reason>".
    expect(all).not.toMatch(/property \S+ value \{/);
    expect(all).toMatch(/resource 'case-0' has a problem: /);
  });

  it("sent no request to the API for any of them", async () => {
    const apiRequests = (await requestLog(em)).filter((r) => r.path.startsWith("/api/v2"));
    expect(apiRequests).toEqual([]);
    const refused = CASES.filter((c) => messages.get(c.gi)!.includes(`${c.kind} ${c.field} ${c.rule}`)).length;
    process.stdout.write(`bad-input figures: ${JSON.stringify({ tried: CASES.length, refused, previews: GROUPS.length, requests: apiRequests.length })}\n`);
  });
});

/**
 * Borderline forms accepted on purpose: what a program may write (case, default ports, trailing
 * slash, surrounding spaces in names, ports as strings, loopback http origins for local
 * development), stored in canonical form so that later previews and refreshes stay quiet.
 */
describe("borderline forms are accepted and made canonical", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;
  const accepted = [
    { kind: "AuthIntegration", args: { projectId: P, branchId: B, databaseName: "app_db-1", roleName: "app_owner" } },
    { kind: "RedirectDomain", args: { projectId: P, domain: "http://[::1]:3000" } },
    { kind: "RedirectDomain", args: { projectId: P, domain: "http://localhost:5173/" } },
    { kind: "RedirectDomain", args: { projectId: P, domain: "http://127.0.0.1:8080" } },
    { kind: "RedirectDomain", args: { projectId: P, domain: "HTTPS://App.Example.COM:443/" } },
    { kind: "RedirectDomain", args: { projectId: P, domain: "https://xn--bcher-kva.example" } },
    { kind: "RedirectDomain", args: { projectId: P, domain: "https://[2001:DB8:0:0::1]:8443" } },
    { kind: "RedirectDomain", args: { projectId: P, domain: "https://203.0.113.7" } },
    { kind: "EmailServer", args: { ...SMTP, host: "SMTP.Example.COM", port: "2525", username: "  apikey  ", senderName: " Example Auth " } },
    { kind: "AuthUser", args: { projectId: P, email: " Ada@Example.com ", name: "  Ada Lovelace  " } },
  ];

  useEmulatorStack({
    emulator: { seedProjects: [P] },
    stack: (em) => ({ program: PROGRAM, stackName: "borderline", config: neonConfig(em) }),
    ready: (s) => ({ em, e2e } = s),
  });

  beforeAll(async () => {
    await e2e.stack.setAllConfig({ cases: { value: JSON.stringify(accepted) }, chain: { value: "true" } });
  });

  it("up creates them in canonical form; a second preview and a refresh change nothing", async () => {
    const up = await e2e.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ create: accepted.length + 1 });
    const state = em.state() as any;
    const i = state.projects.find((p: any) => p.id === P).integrations[0];
    expect(i.domains.map((d: any) => d.domain).sort()).toEqual(
      ["http://[::1]:3000", "http://localhost:5173", "http://127.0.0.1:8080", "https://app.example.com", "https://xn--bcher-kva.example", "https://[2001:db8::1]:8443", "https://203.0.113.7"].sort(),
    );
    expect([i.db_name, i.role_name]).toEqual(["app_db-1", "app_owner"]);
    expect(i.email_server).toEqual({ type: "standard", host: "smtp.example.com", port: 2525, username: "apikey", password: "[redacted]", sender_email: "auth@example.com", sender_name: "Example Auth" });
    expect(i.users.map((u: any) => [u.email, u.name])).toEqual([["ada@example.com", "Ada Lovelace"]]);

    const preview = await e2e.stack.preview({ color: "never" });
    expect(changesOf(preview.changeSummary)).toEqual({});
    const refresh = await e2e.stack.refresh({ color: "never" });
    expect(changesOf(refresh.summary.resourceChanges)).toEqual({});
  });
});
