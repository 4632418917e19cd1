/**
 * check, diff and ids of the children on a NeonAuth (branch-scoped) parent, called directly:
 * the settings only the branch-scoped API has are refused on a project-level child, naming the
 * field; branch children keep their branch in inputs and ids.
 */
import { describe, expect, it } from "vitest";
import { authUserInputs, userHandler } from "../../src/kinds/authUser";
import { emailServerHandler } from "../../src/kinds/emailServer";
import { oauthProviderHandler } from "../../src/kinds/oauthProvider";
import { childId, splitChildId } from "../../src/provider/generation";
import { redirectDomainHandler } from "../../src/kinds/redirectDomain";
import { parsedInputs } from "../../src/provider/kit";
import { inRef } from "./refs";

const P = "p-unit";
const B = "br-unit-1";
const IN = { authProviderProjectId: "ap-1", createdAt: "2026-11-01T10:00:00Z" };
const reasons = (r: { failures?: { reason: string }[] }) => r.failures?.map((f) => f.reason);
const ONLY_BRANCH = "is accepted only with a NeonAuth integration (the branch-scoped API); the project-level AuthIntegration has no such setting";
const SMTP = { type: "standard", host: "smtp.example.com", port: 587, username: "u", password: "pw-1", senderEmail: "a@example.com", senderName: "A" };

describe("children of a NeonAuth: check", () => {
  it("keeps the branch and the Better Auth provider of a branch child", async () => {
    const r = await redirectDomainHandler.check({}, inRef({ projectId: P, branchId: B, integration: IN, domain: "https://App.example.com", authProvider: "better_auth" }));
    expect(r).toEqual({ inputs: inRef({ projectId: P, branchId: B, integration: IN, domain: "https://app.example.com", authProvider: "better_auth" }) });
    const u = await userHandler.check({}, inRef({ projectId: P, branchId: B, integration: IN, email: "Ada@example.com", authProvider: "better_auth", roles: ["admin"] }));
    expect(u).toEqual({ inputs: inRef({ projectId: P, branchId: B, integration: IN, email: "ada@example.com", authProvider: "better_auth", roles: ["admin"] }) });
  });

  it("refuses roles, the Microsoft tenant, vercel and the SMTP test on a project-level child, naming the field", async () => {
    expect(reasons(await userHandler.check({}, inRef({ projectId: P, integration: IN, email: "a@example.com", roles: ["admin"] })))).toEqual([`AuthUser roles ${ONLY_BRANCH}`]);
    expect(reasons(await oauthProviderHandler.check({}, inRef({ projectId: P, integration: IN, providerId: "microsoft", clientId: "i", clientSecret: "s", microsoftTenantId: "t" })))).toEqual([
      `OAuthProvider microsoftTenantId ${ONLY_BRANCH}`,
    ]);
    expect(reasons(await oauthProviderHandler.check({}, inRef({ projectId: P, integration: IN, providerId: "vercel", clientId: "i", clientSecret: "s" })))).toEqual([
      'OAuthProvider providerId is "vercel", which only a NeonAuth integration (the branch-scoped API) offers',
    ]);
    expect(reasons(await emailServerHandler.check({}, inRef({ projectId: P, integration: IN, ...SMTP, testRecipient: "ops@example.com" })))).toEqual([
      `EmailServer testRecipient ${ONLY_BRANCH}`,
    ]);
    expect(reasons(await redirectDomainHandler.check({}, inRef({ projectId: P, integration: IN, domain: "https://a.example.com", authProvider: "better_auth" })))).toEqual([
      'RedirectDomain integration.authProvider must be "stack", the only auth provider of this API generation',
    ]);
  });

  it("accepts them on a branch child, and still refuses what the service refuses there", async () => {
    const ms = await oauthProviderHandler.check({}, inRef({ projectId: P, branchId: B, integration: IN, providerId: "microsoft", clientId: "i", clientSecret: "s", microsoftTenantId: "t-1" }));
    expect(ms.failures).toBeUndefined();
    expect(reasons(await oauthProviderHandler.check({}, inRef({ projectId: P, branchId: B, integration: IN, providerId: "github", microsoftTenantId: "t-1", clientId: "i", clientSecret: "s" })))).toEqual([
      'OAuthProvider microsoftTenantId is accepted only for providerId "microsoft"',
    ]);
    expect((await emailServerHandler.check({}, inRef({ projectId: P, branchId: B, integration: IN, ...SMTP, testRecipient: "ops@example.com" }))).failures).toBeUndefined();
    expect(reasons(await emailServerHandler.check({}, inRef({ projectId: P, branchId: B, integration: IN, type: "shared", testRecipient: "ops@example.com" })))).toEqual([
      'EmailServer testRecipient is accepted only with type "standard": Neon tests only your own SMTP server',
    ]);
    expect(reasons(await userHandler.check({}, inRef({ projectId: P, branchId: B, integration: IN, email: "a@example.com", roles: [] })))).toEqual(["AuthUser roles must name at least one role"]);
  });
});

describe("children of a NeonAuth: diff", () => {
  const user = parsedInputs(authUserInputs, inRef({ projectId: P, branchId: B, integration: IN, email: "a@example.com", authProvider: "better_auth", roles: ["user"] }));

  it("changes roles in place, and replaces a child moved to another branch", async () => {
    expect(await userHandler.diff(`${P}/${B}/u-1`, { ...user, userId: "u-1" }, { ...user, roles: ["admin"] })).toMatchObject({ changes: true, replaces: [] });
    expect((await userHandler.diff(`${P}/${B}/u-1`, { ...user, userId: "u-1" }, { ...user, integration: { ...user.integration, branchId: "br-other" } })).replaces).toEqual(["integration"]);
  });

  it("rotates a client secret or changes the tenant in place", async () => {
    const ms = inRef({ projectId: P, branchId: B, integration: IN, providerId: "microsoft", clientId: "i", clientSecret: "s1", microsoftTenantId: "t", adopt: false });
    expect(await oauthProviderHandler.diff(`${P}/${B}/microsoft`, ms, { ...ms, clientSecret: "s2" })).toMatchObject({ changes: true, replaces: [] });
    expect(await oauthProviderHandler.diff(`${P}/${B}/microsoft`, ms, { ...ms, microsoftTenantId: "t2" })).toMatchObject({ changes: true, replaces: [] });
    expect((await oauthProviderHandler.diff(`${P}/${B}/microsoft`, ms, ms)).changes).toBe(false);
  });
});

describe("children of a NeonAuth: ids", () => {
  it("put the branch after the project, and split back both generations' ids", () => {
    expect(childId({ projectId: P, branchId: B }, "https://app.example.com")).toBe(`${P}/${B}/https://app.example.com`);
    expect(childId({ projectId: P }, "github")).toBe(`${P}/github`);
    expect(splitChildId("RedirectDomain", `${P}/${B}/https://app.example.com`, "<origin>")).toEqual({ projectId: P, branchId: B, key: "https://app.example.com" });
    expect(splitChildId("RedirectDomain", `${P}/https://app.example.com`, "<origin>")).toEqual({ projectId: P, key: "https://app.example.com" });
    expect(splitChildId("OAuthProvider", `${P}/${B}/vercel`, "<providerId>")).toEqual({ projectId: P, branchId: B, key: "vercel" });
    expect(splitChildId("EmailServer", `${P}/email-server`, "email-server")).toEqual({ projectId: P, key: "email-server" });
    expect(() => splitChildId("OAuthProvider", `${P}`, "<providerId>")).toThrow(
      `OAuthProvider id "${P}" is not of the form <projectId>/<providerId> or <projectId>/<branchId>/<providerId>`,
    );
  });
});
