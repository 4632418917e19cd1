/**
 * check and diff of the resources, called directly (no engine): normalisation and the field
 * lists that decide update versus replace. The engine's view of the same is in test/e2e.
 */
import { describe, expect, it } from "vitest";
import { fakeContext } from "./fake-context";
import { parsedInputs } from "../../src/provider/kit";
import { UNKNOWN } from "../../src/provider/diff";
import { redirectDomainHandler } from "../../src/kinds/redirectDomain";
import { oauthProviderHandler } from "../../src/kinds/oauthProvider";
import { emailServerHandler } from "../../src/kinds/emailServer";
import { authUserInputs, authUserKind, userHandler } from "../../src/kinds/authUser";
import { integrationHandler } from "../../src/kinds/authIntegration";
import { placed, upgraded } from "../../src/provider/place";
import { inRef } from "./refs";

const P = "p-unit";
/** The identity of the integration a child was made in. */
const IN = { authProviderProjectId: "ap-1", createdAt: "2026-11-01T10:00:00Z" };

describe("check", () => {
  it("normalises equivalent origins to one spelling", async () => {
    const r = await redirectDomainHandler.check({}, inRef({ projectId: P, integration: IN, domain: "HTTPS://App.Example.com/" }));
    expect(r).toEqual({ inputs: inRef({ projectId: P, integration: IN, domain: "https://app.example.com", authProvider: "stack" }) });
  });

  it("lower-cases and trims user emails", async () => {
    const r = await userHandler.check({}, inRef({ projectId: P, integration: IN, email: "  Ada@Example.COM " }));
    expect(r.inputs).toEqual(inRef({ projectId: P, integration: IN, email: "ada@example.com", authProvider: "stack" }));
    expect(r.failures).toBeUndefined();
  });

  it("fills in the integration's defaults", async () => {
    const r = await integrationHandler.check({}, { projectId: P, branchId: "br-1" });
    expect(r.inputs).toEqual({
      projectId: P,
      branchId: "br-1",
      databaseName: "neondb",
      roleName: "neondb_owner",
      authProvider: "stack",
      adopt: false,
    });
  });

  it("does not judge values still unknown at preview", async () => {
    const r = await redirectDomainHandler.check({}, { integration: UNKNOWN, domain: "HTTPS://App.example.com" });
    expect(r.failures).toBeUndefined();
    // Known fields still get their canonical form and defaults, as at `up`.
    expect(r.inputs).toEqual({ integration: UNKNOWN, domain: "https://app.example.com" });
  });

  it("still judges the known fields when others are unknown", async () => {
    const r = await redirectDomainHandler.check({}, { integration: { projectId: UNKNOWN, ...IN }, domain: "app.example.com" });
    expect(r.failures).toEqual([
      {
        property: "",
        reason:
          "RedirectDomain domain must be an origin of the form https://host[:port], with no path, query, fragment or credentials: did you mean https://app.example.com?",
      },
    ]);
  });

  it("names every missing SMTP field of a standard email server", async () => {
    const r = await emailServerHandler.check({}, inRef({ projectId: P, integration: IN, type: "standard", host: "smtp.example.com" }));
    expect(r.failures?.map((f) => f.reason.split(" ")[1])).toEqual(["port", "username", "password", "senderEmail", "senderName"]);
    expect(r.failures?.[0]?.reason).toBe('EmailServer port is required when type is "standard"');
  });
});

describe("diff", () => {
  const olds = inRef({ projectId: P, integration: IN, providerId: "github", clientId: "id-1", clientSecret: "s-1", adopt: false, type: "standard" });

  it("is quiet on a no-op", async () => {
    const news = inRef({ projectId: P, integration: IN, providerId: "github", clientId: "id-1", clientSecret: "s-1", adopt: false });
    expect(await oauthProviderHandler.diff(`${P}/github`, olds, news)).toEqual({
      changes: false,
      replaces: [],
      stables: ["integration", "providerId"],
      deleteBeforeReplace: false,
    });
  });

  it("updates credentials in place", async () => {
    const news = inRef({ projectId: P, integration: IN, providerId: "github", clientId: "id-1", clientSecret: "s-2", adopt: false });
    const d = await oauthProviderHandler.diff(`${P}/github`, olds, news);
    expect(d.changes).toBe(true);
    expect(d.replaces).toEqual([]);
  });

  it("replaces, deleting first, on a new provider id or back to shared keys", async () => {
    const renamed = await oauthProviderHandler.diff(`${P}/github`, olds, { ...olds, providerId: "microsoft" });
    expect(renamed.replaces).toEqual(["providerId"]);
    expect(renamed.deleteBeforeReplace).toBe(true);
    const shared = await oauthProviderHandler.diff(`${P}/github`, olds, inRef({ projectId: P, integration: IN, providerId: "github", adopt: false }));
    expect(shared.replaces).toEqual(["clientId", "clientSecret"]);
  });

  it("treats an optional field left out as unchanged", async () => {
    const d = await userHandler.diff("u-1", inRef({ projectId: P, integration: IN, email: "a@example.com", authProvider: "stack", userId: "u-1" }), inRef({
      projectId: P,
      integration: IN,
      email: "a@example.com",
      authProvider: "stack",
    }));
    expect(d.changes).toBe(false);
  });

  it("create and update parse the checked inputs with the engine's __provider beside them", () => {
    expect(
      parsedInputs(authUserInputs, inRef({ projectId: P, integration: IN, email: "a@example.com", authProvider: "stack", __provider: "serialized" })),
    ).toEqual(placed(inRef({ projectId: P, integration: IN, email: "a@example.com", authProvider: "stack" })));
  });
});

describe("children and their integration", () => {
  const user = inRef({ projectId: P, integration: IN, email: "ada@example.com", name: "Ada", authProvider: "stack" });

  it("requires the integration, saying how to declare it", async () => {
    const missing = {
      // The field is named in the reason, never as a property: the engine prints a property's value.
      property: "",
      reason:
        "RedirectDomain integration is required: pass the NeonAuth or AuthIntegration this lives in, e.g. " +
        "`{ integration: auth, ... }` (it gives the project and branch; a 0.1.0 program's `projectId` and `dependsOn` go)",
    };
    // A program that left the integration out (a 0.1.0 program's `projectId` is no input: named too).
    expect((await redirectDomainHandler.check({}, { projectId: P, domain: "https://app.example.com" })).failures).toEqual([
      missing,
      { property: "", reason: "RedirectDomain projectId is not an input of this resource; known inputs: integration, domain, adopt" },
    ]);
    expect((await redirectDomainHandler.check({}, { domain: "https://app.example.com" })).failures).toEqual([missing]);
  });

  it("passes a child whose integration arrives as an empty ref: the engine skips it for its failed integration", async () => {
    // Outside preview the engine drops unknown values: the ref of an integration that failed in an
    // `up --continue-on-error` is `{}` (null from Pulumi YAML). A check failure would stop the whole run.
    const given = { integration: {}, domain: "https://app.example.com" };
    expect(await redirectDomainHandler.check({}, given)).toEqual({ inputs: given });
    // Pulumi YAML's form of the same.
    expect(await redirectDomainHandler.check({}, { ...given, integration: null })).toEqual({ inputs: { ...given, integration: null } });
    // A ref with some of its fields is a ref written by hand: judged as ever.
    expect((await redirectDomainHandler.check({}, { ...given, integration: { projectId: P } })).failures?.map((f) => f.reason)).toEqual([
      "RedirectDomain integration.authProviderProjectId is required",
      "RedirectDomain integration.createdAt is required",
    ]);
  });

  it("still names the cross-field rules when the integration is missing", async () => {
    const email = await emailServerHandler.check({}, { type: "shared", host: "smtp.example.com" });
    const field = (f: { reason: string }) => f.reason.split(" ")[1];
    expect(email.failures?.map(field)).toEqual(["integration", "host"]);
    const oauth = await oauthProviderHandler.check({}, { providerId: "github", clientId: "id-only" });
    expect(oauth.failures?.map(field)).toEqual(["integration", "clientSecret"]);
    // Other failed fields still come first, alone, as before.
    const bad = await emailServerHandler.check({}, inRef({ projectId: P, integration: IN, type: "standard", port: 0 }));
    expect(bad.failures?.map(field)).toEqual(["port"]);
  });

  it("replaces a child whose integration was replaced; an identity unknown at preview is no change (replaceWith covers a replacement)", async () => {
    const replaced = { ...user.integration, authProviderProjectId: "ap-2" };
    const d = await userHandler.diff("u-1", { ...user, userId: "u-1" }, { ...user, integration: replaced });
    expect(d.replaces).toEqual(["integration"]);
    // The classes give the ref field by field: the identity unknown while the integration updates.
    const updating = { ...user.integration, authProviderProjectId: UNKNOWN, createdAt: UNKNOWN };
    expect(await userHandler.diff("u-1", { ...user, userId: "u-1" }, { ...user, integration: updating })).toMatchObject({ changes: false, replaces: [] });
    const domain = inRef({ projectId: P, integration: IN, domain: "https://app.example.com", authProvider: "stack" });
    expect(await redirectDomainHandler.diff(`${P}/x`, domain, { ...domain, integration: { ...domain.integration, createdAt: UNKNOWN } })).toMatchObject({ changes: false, replaces: [] });
    // A ref unknown whole (a replaced integration, on the plugin): its place is unknown too.
    expect((await redirectDomainHandler.diff(`${P}/x`, domain, { ...domain, integration: UNKNOWN })).replaces).toEqual(["integration"]);
  });

  it("records the identity in place in state written before children recorded it", async () => {
    // 0.1.0 recorded the place alone: read as a ref without an identity.
    const old = upgraded(authUserKind, { projectId: P, email: "ada@example.com", name: "Ada", authProvider: "stack", userId: "u-1" });
    const d = await userHandler.diff("u-1", old, user);
    expect(d).toMatchObject({ changes: true, replaces: [] });
    expect((await userHandler.update("u-1", old, parsedInputs(authUserInputs, user), fakeContext({}))).outs).toEqual({ ...placed(user), userId: "u-1" });
  });

  it("refuses a new email or name of an existing user at preview, naming the way to recreate it", async () => {
    const r = await userHandler.check(user, { ...user, name: "Ada King" });
    expect(r.failures).toEqual([
      {
        // No property: the engine would print the value beside the reason, and it may be a secret.
        property: "",
        reason:
          'AuthUser name cannot change in place: the API has no update for users, so changing it from "Ada" to "Ada King" ' +
          "would delete the account ada@example.com (its id, sign-ins and sessions) and create a new one. To do that on " +
          "purpose, set `recreateOnChange: true` on this AuthUser; otherwise put the old value back.",
      },
    ]);
    const moved = await userHandler.check(user, { ...user, email: "Ada@Example.org" });
    expect(moved.failures?.map((f) => f.reason.slice(0, 40))).toEqual(["AuthUser email cannot change in place: t"]);
  });

  it("lets a user be recreated when said so, or when its integration was replaced", async () => {
    expect((await userHandler.check(user, { ...user, name: "Ada King", recreateOnChange: true })).failures).toBeUndefined();
    const replaced = { ...user, name: "Ada King", integration: { ...user.integration, createdAt: "2026-11-02T10:00:00Z" } };
    expect((await userHandler.check(user, replaced)).failures).toBeUndefined();
    expect((await userHandler.check(user, { ...user, integration: UNKNOWN, name: "Ada King" })).failures).toBeUndefined();
    expect((await userHandler.check({}, user)).failures).toBeUndefined();
  });
});
