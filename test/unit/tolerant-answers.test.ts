/**
 * Strict on requests, tolerant on answers: what a newer Neon adds to an answer (fields at any
 * depth, enum values, list members) never fails a read; an object Neon replaces whole keeps the
 * fields the package does not know, for the write-back; a list that names its next page is marked
 * for the client to follow (client.test.ts), and one that says more without a cursor is refused.
 */
import { describe, expect, it } from "vitest";
import * as s from "../../src/schemas";
import { NEXT_PAGE } from "../../src/schemas/common";

describe("answers a newer Neon gives", () => {
  it("keeps unknown mcp fields (the write-back sends them) and drops unknown fields elsewhere", () => {
    const answer = {
      enabled: true,
      login_page: "https://app.example.com/login",
      mcp: { resource: "https://mcp.example.com", client_id_metadata_documents: true, added: { deep: [{ x: 1 }] } },
      resources: ["https://api.example.com"],
      added: { deep: [{ x: 1 }] },
    };
    expect(s.oauthServerPlugin.parse(answer)).toEqual({
      enabled: true,
      login_page: "https://app.example.com/login",
      mcp: { resource: "https://mcp.example.com", client_id_metadata_documents: true, added: { deep: [{ x: 1 }] } },
      resources: ["https://api.example.com"],
    });
    // The request that writes it back carries them too; the program's own fields keep their rules.
    expect(s.updateOAuthServerPluginRequest.parse({ mcp: answer.mcp })).toEqual({ mcp: answer.mcp });
    expect(s.updateOAuthServerPluginRequest.safeParse({ mcp: { resource: "ftp://x" } }).success).toBe(false);
  });

  it("reads an email provider of a type it does not know as `other`, with Neon's name", () => {
    expect(s.emailProvider.parse({ type: "resend", api_key: "" })).toEqual({ type: "other", name: "resend" });
    expect(s.emailServer.parse({ type: "postmark" })).toEqual({ type: "other", name: "postmark" });
    // A known type missing its fields is still a broken answer, not an unknown one.
    expect(s.emailProvider.safeParse({ type: "standard", host: "smtp.example.com" }).success).toBe(false);
  });

  it("takes enum values and ranges Neon adds as they are", () => {
    const client = { client_id: "c1", name: "mcp", type: "dynamic", redirect_uris: [], resources: [], skip_consent: false, disabled: false, extra: 1 };
    expect(s.listOAuthClientsResponse.parse({ clients: [client] }).clients[0]).toEqual({ ...client, extra: undefined, type: "dynamic" });
    expect(s.emailAndPassword.parse({ enabled: true, email_verification_method: "passkey", require_email_verification: false, auto_sign_in_after_verification: true, send_verification_email_on_sign_up: true, send_verification_email_on_sign_in: false, disable_sign_up: false }).email_verification_method).toBe("passkey");
    expect(s.organizationPlugin.parse({ enabled: true, organization_limit: 0, membership_limit: 100, creator_role: "member", send_invitation_email: false }).creator_role).toBe("member");
    expect(s.magicLinkPlugin.parse({ enabled: true, expires_in: 2880, disable_sign_up: false }).expires_in).toBe(2880);
  });

  it("marks the next page of a list that names one, and refuses one that says more without a cursor", () => {
    const next = (v: unknown) => (v as Record<symbol, unknown>)[NEXT_PAGE];
    const a = { domain: "https://a.example.com", auth_provider: "stack" };
    expect(s.listDomainsResponse.parse({ domains: [], pagination: { next: "" } })).toEqual({ domains: [] });
    for (const [page, cursor] of [
      [{ pagination: { cursor: "c", has_more: true } }, "c"],
      [{ pagination: { next: "n" } }, "n"],
      [{ cursor: "t" }, "t"],
      [{ has_more: false, pagination: { cursor: "c" } }, undefined],
    ] as const) {
      const r = s.listDomainsResponse.parse({ domains: [a], ...page });
      expect([r, next(r)]).toEqual([{ domains: [a] }, cursor]);
    }
    expect(next(s.listDomainsResponse.parse({ domains: [], pagination: { cursor: "c" } }))).toBeUndefined();
    for (const partial of [{ has_more: true }, { pagination: { has_more: true } }]) {
      const r = s.listDomainsResponse.safeParse({ domains: [a], ...partial });
      expect(r.error!.issues[0]!.message).toMatch(/^Neon answered part of the list/);
    }
    expect(s.listOAuthClientsResponse.safeParse({ clients: [], has_more: true }).success).toBe(false);
    expect(next(s.branchListOAuthProvidersResponse.parse({ providers: [{ id: "google", type: "shared" }], pagination: { cursor: "x" } }))).toBe("x");
  });
});
