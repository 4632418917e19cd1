/**
 * Looking existing objects up with `<Class>.get(name, id)`: the engine reads them through the
 * provider, the program sees their fields, nothing is created or changed at Neon, and a destroy
 * only forgets them.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, useEmulatorStack, type E2eStack } from "./harness";
import { clearRequestLog, neonConfig, outOfBand, requestLog, snapshot } from "./neon";

const P = "p-lookup";
const BRANCH = "br-main-p-lookup";

describe("looking up objects made outside the stack", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;

  useEmulatorStack({
    emulator: { seedProjects: [`${P}:${BRANCH}`] },
    prepare: async (em) => {
      expect(await outOfBand(em, "POST", "/projects/auth/create", { auth_provider: "stack", project_id: P, branch_id: BRANCH })).toBe(201);
      expect(
        await outOfBand(em, "POST", `/projects/${P}/auth/oauth_providers`, { id: "github", client_id: "console-client", client_secret: "console-secret-5e" }),
      ).toBe(200);
      expect(await outOfBand(em, "POST", `/projects/${P}/auth/domains`, { domain: "https://old.example.com", auth_provider: "stack" })).toBe(201);
      expect(
        await outOfBand(em, "PATCH", `/projects/${P}/auth/email_server`, {
          type: "standard",
          host: "smtp.example.com",
          port: 2525,
          username: "u",
          password: "smtp-secret-lookup-1",
          sender_email: "auth@example.com",
          sender_name: "Example",
        }),
      ).toBe(200);
    },
    stack: (em) => ({
      program: path.join(__dirname, "programs", "lookup"),
      config: {
        ...neonConfig(em),
        lookups: {
          value: JSON.stringify([
            { kind: "AuthIntegration", id: `${P}/stack` },
            { kind: "OAuthProvider", id: `${P}/github` },
            { kind: "RedirectDomain", id: `${P}/https://old.example.com` },
            { kind: "EmailServer", id: `${P}/email-server` },
          ]),
        },
      },
    }),
    ready: (s) => ({ em, e2e } = s),
  });

  it("reads each kind by id, changes nothing, and destroy leaves them at Neon", { timeout: 240_000 }, async () => {
    const before = await snapshot(em, P);
    await clearRequestLog(em);
    const up = await e2e.stack.up({ color: "never" });
    // Only the stack itself is created; the four are reads, which the summary does not count.
    expect(up.summary.resourceChanges).toEqual({ create: 1 });
    expect(up.outputs.found!.value).toEqual([
      { kind: "AuthIntegration", id: `${P}/stack`, branchId: BRANCH, dbName: "neondb", ownedBy: "neon" },
      // Neon's provider list carries no client id, so a lookup cannot show one.
      { kind: "OAuthProvider", id: `${P}/github`, providerId: "github", type: "standard" },
      { kind: "RedirectDomain", id: `${P}/https://old.example.com`, domain: "https://old.example.com" },
      { kind: "EmailServer", id: `${P}/email-server`, type: "standard", host: "smtp.example.com", port: 2525 },
    ]);
    // Reads only.
    const methods = new Set((await requestLog(em)).filter((r) => r.path.startsWith("/api/v2")).map((r) => r.method));
    expect([...methods]).toEqual(["GET"]);
    expect(await snapshot(em, P)).toEqual(before);

    expect(changesOf((await e2e.stack.preview({ color: "never" })).changeSummary)).toEqual({});
    expect(changesOf((await e2e.stack.refresh({ color: "never" })).summary.resourceChanges)).toEqual({});

    await e2e.stack.destroy({ color: "never" });
    expect(await snapshot(em, P)).toEqual(before);
  });
});
