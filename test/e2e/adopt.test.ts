/**
 * Objects made outside the stack: the error names the way out (`adopt: true`), and with it the
 * stack takes them over, sets what it declares, and later deletes them like its own.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { expectNoChanges, programOnProject, useEmulatorStack, type E2eStack } from "./harness";
import { outOfBand, requestLog, snapshot } from "./neon";

const P = "p-adopt";
const BRANCH = "br-main-p-adopt";

describe("adopting objects that already exist", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;

  useEmulatorStack({
    ...programOnProject("all-kinds", P, { secrets: { clientSecret: "gh-secret-declared-77" }, without: ["keys", "transfer", "user", "email"] }),
    ready: (s) => ({ em, e2e } = s),
  });

  beforeAll(async () => {
    // Made in the console, before the stack existed.
    expect(
      await outOfBand(em, "POST", "/projects/auth/create", { auth_provider: "stack", project_id: P, branch_id: BRANCH }),
    ).toBe(201);
    expect(
      await outOfBand(em, "POST", `/projects/${P}/auth/oauth_providers`, {
        id: "github",
        client_id: "console-client",
        client_secret: "console-secret",
      }),
    ).toBe(200);
    expect(
      await outOfBand(em, "POST", `/projects/${P}/auth/domains`, { domain: "https://app.example.com", auth_provider: "stack" }),
    ).toBe(201);
  });

  it("refuses to take over an existing integration silently", async () => {
    const err = await e2e.stack.up({ color: "never" }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(String(err?.message)).toContain(
      `AuthIntegration: project ${P}'s "stack" integration already exists and was not made by this stack (made outside it: in the console, by another stack, or by a run of this stack that was killed). It is not taken over silently: set \`adopt: true\` on this resource to take it over on purpose (this stack then updates it and deletes it on destroy); or delete it at Neon first.`,
    );
    const snap = await snapshot(em, P);
    expect(snap.integrations).toHaveLength(1);
  });

  it("with adopt: true takes everything over and converges", async () => {
    await e2e.stack.setConfig("adopt", { value: "true" });
    const up = await e2e.stack.up({ color: "never" });
    expect(up.summary.result).toBe("succeeded");
    const snap = await snapshot(em, P);
    expect(snap.integrations).toEqual([{ auth_provider: "stack", branch_id: BRANCH, owned_by: "neon" }]);
    expect(snap.providers).toEqual([{ id: "github", type: "standard" }]);
    expect(snap.domains).toEqual(["https://app.example.com"]);
    // The declared credentials replaced the console's.
    const state = await em.state({ secrets: true });
    expect(JSON.stringify(state)).toContain("gh-secret-declared-77");
    expect(JSON.stringify(state)).not.toContain("console-secret");
    // Keys of an adopted integration come from a newly generated set.
    expect(String(up.outputs.pubClientKey?.value)).toMatch(/^pck_/);
    const creates = (await requestLog(em)).filter((r) => r.method === "POST" && r.path === "/api/v2/projects/auth/create");
    // Only the console's: the stack read the integration first, so it never asked to create one.
    expect(creates.map((r) => r.status)).toEqual([201]);

    await expectNoChanges(e2e.stack);
  });

  it("destroys what it adopted", async () => {
    await e2e.stack.destroy({ color: "never" });
    const snap = await snapshot(em, P);
    expect(snap.integrations).toEqual([]);
    expect(snap.domains).toEqual([]);
  });
});
