/**
 * The renderer of the kinds' examples (scripts/gen/examples.mts) refuses what it cannot render the
 * same in four languages, naming it, and merges examples without one meeting another. Whether the
 * renderings run is the e2e's question (test/e2e/examples.test.ts).
 */
import { describe, expect, it } from "vitest";
import { mergeExamples, renderGo, renderPython, renderTypeScript, type Program } from "../../scripts/gen/examples.mts";
import { packageSchema } from "../../src/plugin/schema";

/** A NeonAuth on a fixed branch and one RedirectDomain in it, with `domain` as its other input. */
const program = (domain: Record<string, string>): Program => ({
  name: "x",
  runtime: "yaml",
  config: { projectId: { type: "string" } },
  resources: {
    auth: { type: "neon-auth:index:NeonAuth", properties: { projectId: "${projectId}", branchId: "br-main" } },
    app: { type: "neon-auth:index:RedirectDomain", properties: { integration: "${auth.ref}", ...domain } },
  },
  outputs: { domainId: "${app.id}" },
});

describe("the examples' renderer", () => {
  it("names an input the schema does not have", () => {
    expect(() => renderGo(program({ domian: "https://app.example.com" }), packageSchema())).toThrow("examples: neon-auth:index:RedirectDomain has no input domian");
  });

  it("refuses a string that mixes text and an interpolation, which the languages would spell differently", () => {
    expect(() => renderPython(program({ domain: "https://${projectId}.example.com" }), packageSchema())).toThrow("only ${config} and ${resource.output} stand alone");
  });

  it("passes the integration as the resource to a class, as its ref to the SDKs; the id as each language reads it", () => {
    const p = program({ domain: "https://app.example.com" });
    expect(renderTypeScript(p, packageSchema())).toContain("  integration: auth,\n");
    expect(renderTypeScript(p, packageSchema())).toContain("export const domainId = app.id;");
    expect(renderGo(p, packageSchema())).toContain("\t\t\tIntegration: auth.Ref,\n");
    expect(renderGo(p, packageSchema())).toContain('ctx.Export("domainId", app.ID())');
    expect(renderPython(p, packageSchema())).toContain("    integration=auth.ref,\n");
  });

  it("merges examples under their keys, each config value given written in, the others shared", () => {
    const p = program({ domain: "https://app.example.com" });
    const merged = mergeExamples("all", [
      { key: "one", program: p, literal: { projectId: "p-one" } },
      { key: "two", program: p, literal: {} },
    ]);
    expect(Object.keys(merged.resources)).toEqual(["oneAuth", "oneApp", "twoAuth", "twoApp"]);
    expect(merged.resources.oneAuth!.properties).toEqual({ projectId: "p-one", branchId: "br-main" });
    expect(merged.resources.twoAuth!.properties).toEqual({ projectId: "${projectId}", branchId: "br-main" });
    expect(merged.resources.twoApp!.properties.integration).toBe("${twoAuth.ref}");
    expect(merged.config).toEqual({ projectId: { type: "string" } });
    expect(merged.outputs).toEqual({ oneDomainId: "${oneApp.id}", twoDomainId: "${twoApp.id}" });
  });
});
