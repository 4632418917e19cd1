/**
 * Which inputs a class registers to name the program's secrets (resources/registration.ts, SECRET_INPUTS):
 * none when no input can be a secret (plain values, and what a child takes from an integration
 * whose own inputs were plain), so the SDK registers one property fewer per resource; the names,
 * as before, when the program made any input secret, directly or through the integration.
 */
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import { NeonAuth, RedirectDomain } from "../../src";

const registered = new Map<string, Record<string, unknown>>();

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (a) => {
        registered.set(a.name, a.inputs);
        return { id: `${a.name}-id`, state: { ...a.inputs, authProviderProjectId: "ap-1", createdAt: "2026-11-26T00:00:00Z" } };
      },
      call: (a) => a.inputs,
    },
    "secret-inputs",
    "unit",
    true,
  );
});

/** Registered inputs of `name`, once the mock monitor has seen it. */
async function inputsOf(name: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100 && !registered.has(name); i++) await new Promise((r) => setTimeout(r, 10));
  const inputs = registered.get(name);
  if (inputs === undefined) throw new Error(`${name} was never registered`);
  return inputs;
}

describe("the names of the program's secret inputs", () => {
  it("are not registered when every input is plain, on the integration and on its children", async () => {
    const auth = new NeonAuth("plain-auth", { projectId: "p-1", branchId: "br-1", appName: "Plain" });
    new RedirectDomain("plain-domain", { integration: auth, domain: "https://app.example.com" });
    expect(Object.keys(await inputsOf("plain-auth"))).not.toContain("__secretInputs");
    const domain = await inputsOf("plain-domain");
    expect(domain).toMatchObject({ integration: { projectId: "p-1", branchId: "br-1" }, domain: "https://app.example.com" });
    expect(Object.keys(domain)).not.toContain("__secretInputs");
  });

  it("name an input the program made secret", async () => {
    const auth = new NeonAuth("secret-name-auth", { projectId: "p-2", branchId: "br-2", appName: pulumi.secret("Secret name") });
    new RedirectDomain("secret-domain", { integration: auth, domain: pulumi.secret("https://hidden.example.com") });
    expect((await inputsOf("secret-name-auth")).__secretInputs).toEqual(["appName"]);
    expect((await inputsOf("secret-domain")).__secretInputs).toEqual(["domain"]);
  });

  it("name what a child takes from its integration when the program made that secret", async () => {
    const auth = new NeonAuth("secret-project-auth", { projectId: pulumi.secret("p-3"), branchId: "br-3" });
    new RedirectDomain("child-of-secret", { integration: auth, domain: "https://app.example.com" });
    expect((await inputsOf("secret-project-auth")).__secretInputs).toEqual(["projectId"]);
    expect((await inputsOf("child-of-secret")).__secretInputs).toEqual(["integration"]);
  });

  it("stay absent for an input given as a plain Output (asked, and found plain)", async () => {
    const auth = new NeonAuth("output-auth", { projectId: pulumi.output("p-4"), branchId: "br-4" });
    new RedirectDomain("child-of-output", { integration: auth, domain: pulumi.output("https://app.example.com") });
    expect((await inputsOf("output-auth")).__secretInputs).toBeUndefined();
    expect((await inputsOf("child-of-output")).__secretInputs).toBeUndefined();
  });
});
