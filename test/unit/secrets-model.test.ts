/**
 * The one secrets model: a field is marked secret where its rule is defined (schemas/fields.ts);
 * the constructors, the redaction of request bodies and errors, and the import file all read
 * that mark.
 */
import { describe, expect, it } from "vitest";
import { collectSecrets, forgetSecrets, redactText, rememberSecrets, SECRET_FIELDS } from "../../src/client/redact";
import { authIntegrationInputs } from "../../src/kinds/authIntegration";
import { authUserInputs } from "../../src/kinds/authUser";
import { emailServerInputs } from "../../src/kinds/emailServer";
import { secretOutputsOf } from "../../src/provider/declaration";
import { neonAuthInputs } from "../../src/kinds/neonAuth";
import { oauthProviderInputs } from "../../src/kinds/oauthProvider";
import { redirectDomainInputs } from "../../src/kinds/redirectDomain";
import { secretKeys } from "../../src/schemas/fields";
import { fakeContext } from "./fake-context";
import { DECLARATIONS, calls } from "../../src/kinds";

describe("one secrets model", () => {
  it("each resource's secret inputs come from the marks on its field rules", () => {
    expect(secretKeys(neonAuthInputs)).toEqual(["webhooks"]);
    expect(secretKeys(oauthProviderInputs)).toEqual(["clientSecret"]);
    expect(secretKeys(emailServerInputs)).toEqual(["password"]);
    expect([secretKeys(authUserInputs), secretKeys(redirectDomainInputs), secretKeys(authIntegrationInputs)]).toEqual([[], [], []]);
  });

  it("secret outputs come from the marks on the response fields", () => {
    const secret = Object.fromEntries(Object.values(DECLARATIONS).flatMap((d) => (secretOutputsOf(d).length > 0 ? [[d.kind, secretOutputsOf(d)]] : [])));
    // pubClientKey and secretServerKey from keySet's marks, url from transferOwnershipResponse's,
    // clientSecret from createdOAuthClient's; envVars holds the keys, so it is declared secret.
    // Every other kind has none.
    expect(secret).toEqual({
      AuthIntegration: ["pubClientKey", "secretServerKey", "envVars"],
      AuthSdkKeys: ["pubClientKey", "secretServerKey", "envVars"],
      AuthOwnershipTransfer: ["url"],
      OAuthClient: ["clientSecret"],
    });
  });

  it("redaction knows every marked body field under its wire and program names", () => {
    expect([...SECRET_FIELDS].sort()).toEqual(
      ["api_key", "apikey", "authorization", "client_secret", "clientsecret", "envvars", "password", "pub_client_key", "pubclientkey", "secret_server_key", "secretserverkey", "token", "uri", "url", "webhook_url", "webhookurl"].sort(),
    );
  });

  it("a webhook URL inside the webhooks setting is collected, so errors are scrubbed of it", () => {
    forgetSecrets();
    const url = "https://hooks.example.com/in/tok-9f3a";
    rememberSecrets(collectSecrets({ webhooks: { enabled: true, webhookUrl: url } }));
    expect(redactText(`PUT failed for ${url}`)).toBe("PUT failed for [redacted]");
    forgetSecrets();
  });
});

describe("a secret settings object", () => {
  it("keeps its marked field secret, not its neighbours: an error still names the webhook events", async () => {
    const url = "https://hooks.example.com/t0ken-neighbours-4c1d";
    const news = {
      projectId: "p-1",
      branchId: "br-1",
      webhooks: { enabled: true, webhookUrl: url, enabledEvents: ["user.created", "user.deleted"] },
      __secretInputs: ["webhooks"],
    };
    const r = await calls("NeonAuth", fakeContext({})).check({}, news);
    expect(r.failures?.map((f) => f.reason)).toEqual([
      "NeonAuth webhooks.enabledEvents.1 must be one of user.before_create, user.created, send.otp, send.magic_link, organization.invitation.created, organization.invitation.accepted, phone_number.verified",
    ]);
    expect(redactText(`a message quoting ${url} and user.created`)).toBe("a message quoting [redacted] and user.created");
  });
});
