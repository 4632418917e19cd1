/**
 * OAuthClient's check and diff, called directly: its defaults, the rules that name their field
 * (a NeonAuth parent, the type, redirect URIs, no rotation of a public client), and which changes
 * replace the client.
 */
import { describe, expect, it } from "vitest";
import { secretOutputsOf } from "../../src/provider/declaration";
import { oauthClientHandler, oauthClientKind } from "../../src/kinds/oauthClient";
import { inRef } from "./refs";

const IN = { authProviderProjectId: "ap-1", createdAt: "2026-11-01T10:00:00Z" };
const BASE = inRef({ projectId: "p-unit", branchId: "br-unit-1", integration: IN, name: "Dashboard", type: "confidential", redirectUris: ["https://app.example.com/cb"] });
const reasons = (r: { failures?: { reason: string }[] }) => r.failures?.map((f) => f.reason);

describe("OAuthClient check", () => {
  it("fills the defaults: no resources, consent asked, enabled", async () => {
    expect(await oauthClientHandler.check({}, BASE)).toEqual({ inputs: { ...BASE, resources: [], skipConsent: false, disabled: false } });
  });

  it("refuses what Neon refuses, naming the field", async () => {
    const { branchId: _, ...projectRef } = BASE.integration;
    const projectLevel = { ...BASE, integration: projectRef };
    expect(reasons(await oauthClientHandler.check({}, projectLevel))).toEqual([
      "OAuthClient integration must be a NeonAuth: the OAuth server is a branch's Neon Auth (today's branch-scoped API); an AuthIntegration has none",
    ]);
    expect(reasons(await oauthClientHandler.check({}, { ...BASE, type: "native" }))).toEqual(['OAuthClient type must be "confidential" or "public"']);
    expect(reasons(await oauthClientHandler.check({}, { ...BASE, redirectUris: [] }))).toEqual(["OAuthClient redirectUris must hold at least one URI"]);
    expect(reasons(await oauthClientHandler.check({}, { ...BASE, redirectUris: ["http://app.example.com/cb", "myapp://cb"], resources: ["ftp://x.example.com"] }))).toEqual([
      "OAuthClient redirectUris.0 must use https (http is accepted for loopback hosts only)",
      "OAuthClient redirectUris.1 must be an https:// URL",
      "OAuthClient resources.0 must be an https:// URL",
    ]);
    expect(reasons(await oauthClientHandler.check({}, { ...BASE, type: "public", rotationTrigger: "2026-11" }))).toEqual([
      "OAuthClient rotationTrigger rotates a confidential client's secret; a public client has none",
    ]);
    expect(reasons(await oauthClientHandler.check({}, { ...BASE, secret: "x" }))).toEqual([expect.stringMatching(/^OAuthClient secret is not an input of this resource/)]);
  });
});

describe("OAuthClient secrets", () => {
  it("keeps the client secret a secret output, from the wire schema's mark", () => {
    expect(secretOutputsOf(oauthClientKind)).toEqual(["clientSecret"]);
  });
});

describe("OAuthClient diff", () => {
  const olds = { ...BASE, resources: [], skipConsent: false, disabled: false, clientId: "c-1", clientSecret: "s-1" };
  it("updates the fields Neon updates in place, and replaces on a new type", async () => {
    const moved = await oauthClientHandler.diff("id", olds, { ...olds, redirectUris: ["https://app.example.com/v2"], rotationTrigger: "r1" });
    expect([moved.changes, moved.replaces, moved.detailedDiff]).toEqual([true, [], { redirectUris: "update", rotationTrigger: "add" }]);
    const typed = await oauthClientHandler.diff("id", olds, { ...olds, type: "public" });
    expect([typed.replaces, typed.detailedDiff]).toEqual([["type"], { type: "updateReplace" }]);
    expect((await oauthClientHandler.diff("id", olds, { ...BASE, resources: [], skipConsent: false, disabled: false })).changes).toBe(false);
  });
});
