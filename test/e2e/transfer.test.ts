/**
 * The two-step ownership transfer: Pulumi requests the URL (a secret), a person confirms it
 * (here the emulator's control route), and refresh shows the new owner. Also SDK key rotation.
 */
import { expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, programOnProject, useEmulatorStack, type E2eStack } from "./harness";
import { emulatorOnly } from "./remote";

emulatorOnly("confirming a transfer at the emulator's control route (a person's step at Neon)")("ownership transfer and key rotation", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;

  useEmulatorStack({ ...programOnProject("transfer", "p-own"), ready: (s) => ({ em, e2e } = s) });

  it("requests a transfer URL, and refresh shows the owner once it is confirmed", async () => {
    const up = await e2e.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toEqual({ create: 4 });
    expect(up.outputs.ownedBy).toEqual({ value: "neon", secret: false });
    expect(up.outputs.transferStatus).toEqual({ value: "initiated", secret: false });
    expect(up.outputs.transferUrl?.secret).toBe(true);
    const url = new URL(String(up.outputs.transferUrl?.value));
    const code = url.searchParams.get("code");
    expect(code).toMatch(/.{8,}/);

    const confirm = await fetch(`${em.controlUrl}/transfers/confirm`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code }),
    });
    expect(confirm.status).toBe(200);

    // The owner is an output only: refresh records it without counting an input change.
    const refresh = await e2e.stack.refresh({ color: "never" });
    expect(refresh.summary.result).toBe("succeeded");
    // Refresh updates the resources' state; the stack's exports follow at the next up.
    const state = await e2e.stack.exportStack();
    const outputsOf = (kind: string) =>
      state.deployment.resources.find((r: { type: string }) => r.type === `pulumi-nodejs:dynamic/neon-auth:${kind}`)?.outputs;
    expect(outputsOf("AuthIntegration")).toMatchObject({ ownedBy: "user", transferStatus: "finished" });
    expect(outputsOf("AuthOwnershipTransfer")).toMatchObject({ ownedBy: "user", transferStatus: "finished" });
    // The next up replaces the key set alone (an exact count): the rest is as refresh left it.
  });

  it("rotates the SDK keys when rotationTrigger changes", async () => {
    const before = (await e2e.stack.outputs()).pubClientKey?.value;
    await e2e.stack.setConfig("rotation", { value: "two" });
    const up = await e2e.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ replace: 1 });
    const after = up.outputs.pubClientKey;
    expect(after?.secret).toBe(true);
    expect(after?.value).not.toBe(before);
    expect(String(after?.value)).toMatch(/^pck_/);
    await expectNoChanges(e2e.stack);
  });
});
