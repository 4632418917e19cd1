/**
 * The identity, webhook URL, wildcard and shared-credential rules through each resource's check,
 * with the exact message. A lone surrogate meets the SDK's protobuf encoding before it could reach a
 * check through the engine, so it is pinned here.
 */
import { describe, expect, it } from "vitest";
import { authUserInputs } from "../../src/kinds/authUser";
import { checkInputs } from "../../src/provider/kit";
import { neonAuthInputs } from "../../src/kinds/neonAuth";
import { oauthProviderInputs } from "../../src/kinds/oauthProvider";
import { redirectDomainInputs } from "../../src/kinds/redirectDomain";
import { inRef } from "./refs";

const W = inRef({ projectId: "p-1", branchId: "br-1", integration: { authProviderProjectId: "a", createdAt: "t" } });
const reasons = (r: { failures?: { reason: string }[] }) => (r.failures ?? []).map((f) => f.reason);

describe("input rules", () => {
  it("names and emails that could pass for another or for nothing", () => {
    const user = (o: object) => reasons(checkInputs("AuthUser", authUserInputs, { ...W, email: "ada@example.com", ...o }));
    expect(user({ name: "Ad\ud800a" })).toEqual(["AuthUser name must not contain lone UTF-16 surrogates (half of a character)"]);
    expect(user({ email: "ada\udc00@example.com" })).toEqual(["AuthUser email must not contain lone UTF-16 surrogates (half of a character)"]);
    expect(user({ name: "\u200b\u2060\ufeff" })).toEqual(["AuthUser name must not be empty or only invisible characters (such as zero-width spaces)"]);
    expect(user({ email: "\u212Aate@example.com" })[0]).toMatch(/^AuthUser email must be written in Unicode NFKC form/);
    expect(user({ name: "Ada", email: " Ada@Example.com " })).toEqual([]);
  });

  it("webhook URLs", () => {
    const hook = (webhookUrl: string) => reasons(checkInputs("NeonAuth", neonAuthInputs, { projectId: "p-1", branchId: "br-1", webhooks: { enabled: true, webhookUrl } }));
    expect(hook("http://hooks.example.com/in")).toEqual(["NeonAuth webhooks.webhookUrl must use https (http is accepted for loopback hosts only)"]);
    expect(hook(`https://hooks.example.com/${"a".repeat(200_000)}`)).toEqual(["NeonAuth webhooks.webhookUrl must be at most 2048 characters"]);
    expect(hook("https://hooks.example.com/a\r\nb")).toEqual(["NeonAuth webhooks.webhookUrl must not contain control characters (such as CR, LF, TAB, NUL or ESC)"]);
    expect([hook("http://localhost:9000/h"), hook("https://hooks.example.com/in?t=1")]).toEqual([[], []]);
  });

  it("wildcard trusted domains on a branch only, never over a public suffix", () => {
    const domain = (d: string, branch = true) => {
      const { branchId, ...projectRef } = W.integration;
      const project = { ...W, integration: projectRef };
      const r = checkInputs("RedirectDomain", redirectDomainInputs, { ...(branch ? W : project), domain: d });
      return r.failures ? reasons(r) : r.inputs!.domain;
    };
    expect(domain("HTTPS://*.My-App-Preview.vercel.app/")).toBe("https://*.my-app-preview.vercel.app");
    expect(domain("https://*.vercel.app")).toEqual(["RedirectDomain domain host must not put a wildcard over a public suffix (such as *.vercel.app or *.co.uk): name your own domain after the wildcard"]);
    expect(domain("https://*.example.com", false)).toEqual([
      "RedirectDomain domain may hold a wildcard only on a NeonAuth (a branch's trusted domains); list each origin of an AuthIntegration",
    ]);
  });

  it("shared credentials on a branch for Google only", () => {
    const provider = (providerId: string) => reasons(checkInputs("OAuthProvider", oauthProviderInputs, { ...W, providerId }));
    expect(provider("google")).toEqual([]);
    expect(provider("vercel")).toEqual([
      'OAuthProvider clientId is required for providerId "vercel": Neon has shared credentials for google only; set clientId and clientSecret of your own OAuth app',
    ]);
  });
});
