/**
 * check and diff of the resources, called directly (no engine): normalisation and the field
 * lists that decide update versus replace. The engine's view of the same is in test/e2e.
 */
import { describe, expect, it } from "vitest";
import { parsedInputs, UNKNOWN } from "../../src/resources/kit";
import { redirectDomainHandler } from "../../src/resources/redirectDomain";
import { oauthProviderHandler } from "../../src/resources/oauthProvider";
import { emailServerHandler } from "../../src/resources/emailServer";
import { authUserInputs, userHandler } from "../../src/resources/authUser";
import { integrationHandler } from "../../src/resources/authIntegration";

const P = "p-unit";

describe("check", () => {
  it("normalises equivalent origins to one spelling", async () => {
    const r = await redirectDomainHandler.check({}, { projectId: P, domain: "HTTPS://App.Example.com/" });
    expect(r).toEqual({ inputs: { projectId: P, domain: "https://app.example.com", authProvider: "stack" } });
  });

  it("lower-cases and trims user emails", async () => {
    const r = await userHandler.check({}, { projectId: P, email: "  Ada@Example.COM " });
    expect(r.inputs).toEqual({ projectId: P, email: "ada@example.com", authProvider: "stack" });
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
    const r = await redirectDomainHandler.check({}, { projectId: UNKNOWN, domain: "https://app.example.com" });
    expect(r.failures).toBeUndefined();
    expect(r.inputs).toEqual({ projectId: UNKNOWN, domain: "https://app.example.com", authProvider: "stack" });
  });

  it("still judges the known fields when others are unknown", async () => {
    const r = await redirectDomainHandler.check({}, { projectId: UNKNOWN, domain: "app.example.com" });
    expect(r.failures).toEqual([
      {
        property: "",
        reason:
          "RedirectDomain domain must be an origin of the form https://host[:port], with no path, query, fragment or credentials",
      },
    ]);
  });

  it("names every missing SMTP field of a standard email server", async () => {
    const r = await emailServerHandler.check({}, { projectId: P, type: "standard", host: "smtp.example.com" });
    expect(r.failures?.map((f) => f.reason.split(" ")[1])).toEqual(["port", "username", "password", "senderEmail", "senderName"]);
    expect(r.failures?.[0]?.reason).toBe('EmailServer port is required when type is "standard"');
  });
});

describe("diff", () => {
  const olds = { projectId: P, providerId: "github", clientId: "id-1", clientSecret: "s-1", adopt: false, type: "standard" };

  it("is quiet on a no-op", async () => {
    const news = { projectId: P, providerId: "github", clientId: "id-1", clientSecret: "s-1", adopt: false };
    expect(await oauthProviderHandler.diff(`${P}/github`, olds, news)).toEqual({
      changes: false,
      replaces: [],
      stables: ["projectId", "providerId"],
      deleteBeforeReplace: false,
    });
  });

  it("updates credentials in place", async () => {
    const news = { projectId: P, providerId: "github", clientId: "id-1", clientSecret: "s-2", adopt: false };
    const d = await oauthProviderHandler.diff(`${P}/github`, olds, news);
    expect(d.changes).toBe(true);
    expect(d.replaces).toEqual([]);
  });

  it("replaces, deleting first, on a new provider id or back to shared keys", async () => {
    const renamed = await oauthProviderHandler.diff(`${P}/github`, olds, { ...olds, providerId: "microsoft" });
    expect(renamed.replaces).toEqual(["providerId"]);
    expect(renamed.deleteBeforeReplace).toBe(true);
    const shared = await oauthProviderHandler.diff(`${P}/github`, olds, { projectId: P, providerId: "github", adopt: false });
    expect(shared.replaces).toEqual(["clientId", "clientSecret"]);
  });

  it("treats an optional field left out as unchanged", async () => {
    const d = await userHandler.diff("u-1", { projectId: P, email: "a@example.com", authProvider: "stack", userId: "u-1" }, {
      projectId: P,
      email: "a@example.com",
      authProvider: "stack",
    });
    expect(d.changes).toBe(false);
  });

  it("create and update parse the checked inputs with the engine's __provider beside them", () => {
    expect(parsedInputs(authUserInputs, { projectId: P, email: "a@example.com", authProvider: "stack", __provider: "serialized" })).toEqual({
      projectId: P,
      email: "a@example.com",
      authProvider: "stack",
    });
  });
});
