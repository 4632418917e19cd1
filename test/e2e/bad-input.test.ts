/**
 * Invalid inputs fail at preview, through the real engine's check, with a message that names
 * the field and the rule, and without a single request to the API.
 */
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { stackFor, type E2eStack } from "./harness";
import { clearRequestLog, emulator, neonConfig, requestLog } from "./neon";

const P = "p-bad";
const long = "x".repeat(256);

/** [kind, args, field, rule] */
const CASES: [string, Record<string, unknown>, string, string][] = [
  ["AuthIntegration", { projectId: "P-UPPER", branchId: "br-1" }, "projectId", "must match ^[a-z0-9-]{1,60}$"],
  ["AuthIntegration", { projectId: "p_1", branchId: "br-1" }, "projectId", "must match ^[a-z0-9-]{1,60}$"],
  ["AuthIntegration", { projectId: "p".repeat(61), branchId: "br-1" }, "projectId", "must match ^[a-z0-9-]{1,60}$"],
  ["AuthIntegration", { projectId: "", branchId: "br-1" }, "projectId", "must match ^[a-z0-9-]{1,60}$"],
  ["AuthIntegration", { projectId: P, branchId: "br 1" }, "branchId", "must match ^[a-z0-9-]{1,60}$"],
  ["AuthIntegration", { projectId: P }, "branchId", "is required"],
  ["AuthIntegration", { projectId: P, branchId: "br-1", authProvider: "mock" }, "authProvider", 'must be "stack"'],
  ["AuthIntegration", { projectId: P, branchId: "br-1", databaseName: "" }, "databaseName", "must not be empty"],
  ["AuthIntegration", { projectId: P, branchId: "br-1", roleName: "" }, "roleName", "must not be empty"],
  ["AuthIntegration", { projectId: P, branchId: "br-1", adopt: "yes" }, "adopt", "must be a boolean"],
  ["AuthSdkKeys", { projectId: "Bad!" }, "projectId", "must match ^[a-z0-9-]{1,60}$"],
  ["AuthSdkKeys", { projectId: P, authProvider: "better_auth" }, "authProvider", 'must be "stack"'],
  ["AuthSdkKeys", { projectId: P, rotationTrigger: 7 }, "rotationTrigger", "must be a string"],
  ["AuthOwnershipTransfer", { projectId: "p/1" }, "projectId", "must match ^[a-z0-9-]{1,60}$"],
  ["AuthOwnershipTransfer", { projectId: P, authProvider: "" }, "authProvider", 'must be "stack"'],
  ["AuthUser", { projectId: P, email: "not-an-email" }, "email", "must be a valid email address"],
  ["AuthUser", { projectId: P, email: "a@" }, "email", "must be a valid email address"],
  ["AuthUser", { projectId: P, email: "" }, "email", "must not be empty"],
  ["AuthUser", { projectId: P, email: `${long}@example.com` }, "email", "must be at most 256 characters"],
  ["AuthUser", { projectId: P }, "email", "is required"],
  ["AuthUser", { projectId: P, email: "a@example.com", name: "" }, "name", "must be 1 to 255 characters"],
  ["AuthUser", { projectId: P, email: "a@example.com", name: "n".repeat(256) }, "name", "must be 1 to 255 characters"],
  ["AuthUser", { projectId: "P", email: "a@example.com" }, "projectId", "must match ^[a-z0-9-]{1,60}$"],
  ["AuthUser", { projectId: P, email: "a@example.com", authProvider: "auth0" }, "authProvider", 'must be "stack"'],
  ["OAuthProvider", { projectId: P, providerId: "facebook" }, "providerId", 'must be one of "google", "github", "microsoft"'],
  ["OAuthProvider", { projectId: P, providerId: "Google" }, "providerId", 'must be one of "google", "github", "microsoft"'],
  ["OAuthProvider", { projectId: P, providerId: "vercel" }, "providerId", 'must be one of "google", "github", "microsoft"'],
  ["OAuthProvider", { projectId: P, providerId: "github", clientId: "id-only" }, "clientSecret", "must be set together"],
  ["OAuthProvider", { projectId: P, providerId: "github", clientSecret: "secret-only-9f" }, "clientId", "must be set together"],
  ["OAuthProvider", { projectId: P, providerId: "github", clientId: "", clientSecret: "s-3a" }, "clientId", "must not be empty"],
  ["OAuthProvider", { projectId: "", providerId: "google" }, "projectId", "must match ^[a-z0-9-]{1,60}$"],
  ["RedirectDomain", { projectId: P, domain: "app.example.com" }, "domain", "must be an origin"],
  ["RedirectDomain", { projectId: P, domain: "https://app.example.com/callback" }, "domain", "must be an origin"],
  ["RedirectDomain", { projectId: P, domain: "ftp://app.example.com" }, "domain", "must be an origin"],
  ["RedirectDomain", { projectId: P, domain: "https://app.example.com?x=1" }, "domain", "must be an origin"],
  ["RedirectDomain", { projectId: P, domain: "https://app.example.com:70000" }, "domain", "must be an origin"],
  ["RedirectDomain", { projectId: P, domain: "https://" }, "domain", "must be an origin"],
  ["RedirectDomain", { projectId: P, domain: "https://app.example.com", authProvider: "x" }, "authProvider", 'must be "stack"'],
  ["EmailServer", { projectId: P, type: "custom" }, "type", 'must be "shared" or "standard"'],
  ["EmailServer", { projectId: P, type: "shared", host: "smtp.example.com" }, "host", 'must not be set when type is "shared"'],
  ["EmailServer", { projectId: P, type: "standard", port: 587, username: "u", password: "p-8d", senderEmail: "a@example.com", senderName: "A" }, "host", 'is required when type is "standard"'],
  ["EmailServer", { projectId: P, type: "standard", host: "h", port: 0, username: "u", password: "p-8d", senderEmail: "a@example.com", senderName: "A" }, "port", "must be between 1 and 65535"],
  ["EmailServer", { projectId: P, type: "standard", host: "h", port: 65536, username: "u", password: "p-8d", senderEmail: "a@example.com", senderName: "A" }, "port", "must be between 1 and 65535"],
  ["EmailServer", { projectId: P, type: "standard", host: "h", port: 25.5, username: "u", password: "p-8d", senderEmail: "a@example.com", senderName: "A" }, "port", "must be a whole number"],
  ["EmailServer", { projectId: P, type: "standard", host: "h", port: 25, username: "u", password: "p-8d", senderEmail: "nope", senderName: "A" }, "senderEmail", "must be a valid email address"],
  ["EmailServer", { projectId: P, type: "standard", host: "h", port: 25, username: "u", senderEmail: "a@example.com", senderName: "A" }, "password", 'is required when type is "standard"'],
];

describe("bad input is refused at preview", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;

  beforeAll(async () => {
    em = await emulator({ seedProjects: [P] });
    e2e = await stackFor({
      program: path.join(__dirname, "programs", "one-resource"),
      config: neonConfig(em),
    });
    await clearRequestLog(em);
  });

  afterAll(async () => {
    await e2e?.cleanup();
    await em?.close();
  });

  it(`has at least 40 cases (${CASES.length})`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  it.each(CASES)("%s %j names %s", { timeout: 60_000 }, async (kind, args, field, rule) => {
    await e2e.stack.setAllConfig({ kind: { value: kind }, args: { value: JSON.stringify(args) } });
    const err = await e2e.stack.preview({ color: "never" }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err, "preview must fail").toBeInstanceOf(Error);
    const message = String(err?.message);
    expect(message).toContain(`${kind} ${field} ${rule}`);
    expect(message).not.toContain("p-8d");
    expect(message).not.toContain("secret-only-9f");
  });

  it("sent no request to the API for any of them", async () => {
    const apiRequests = (await requestLog(em)).filter((r) => r.path.startsWith("/api/v2"));
    expect(apiRequests).toEqual([]);
  });
});
