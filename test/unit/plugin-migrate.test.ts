/** The rewrite of a stack export that moves the dynamic resources onto the plugin (src/import/migrate.ts). */
import { describe, expect, it } from "vitest";
import { VERSION } from "../../src/client/options";
import { movedToPlugin, type StackExport } from "../../src/import/migrate";

const P = "urn:pulumi:dev::app::";
const NODE = `${P}pulumi:providers:pulumi-nodejs::default`;
const AUTH = `${P}pulumi-nodejs:dynamic/neon-auth:NeonAuth::auth`;
const APP = `${P}pulumi-nodejs:dynamic/neon-auth:RedirectDomain::app`;
const identity = { authProviderProjectId: "ap-1", createdAt: "2026-01-01T00:00:00Z" };
const place = { projectId: "p-1", branchId: "br-1", authProvider: "better_auth" };

function exported(extra: Partial<StackExport["deployment"]> = {}): StackExport {
  return {
    version: 3,
    deployment: {
      resources: [
        { urn: `${P}pulumi:pulumi:Stack::app-dev`, type: "pulumi:pulumi:Stack" },
        { urn: NODE, type: "pulumi:providers:pulumi-nodejs", custom: true, id: "n-1" },
        {
          urn: AUTH,
          type: "pulumi-nodejs:dynamic/neon-auth:NeonAuth",
          custom: true,
          id: "p-1/br-1",
          provider: `${NODE}::n-1`,
          inputs: { __provider: "x", ...place },
          outputs: { __provider: "x", ...place, ...identity },
          propertyDependencies: { __provider: [], projectId: [] },
        },
        {
          urn: APP,
          type: "pulumi-nodejs:dynamic/neon-auth:RedirectDomain",
          custom: true,
          id: "p-1/br-1/https://a.example.com",
          provider: `${NODE}::n-1`,
          dependencies: [AUTH],
          replaceWith: [AUTH],
          inputs: { __provider: "x", ...place, integration: identity, domain: "https://a.example.com" },
          outputs: { __provider: "x", ...place, integration: identity, domain: "https://a.example.com" },
          propertyDependencies: { __provider: [], integration: [AUTH] },
        },
      ],
      ...extra,
    },
  };
}

describe("movedToPlugin", () => {
  const moved = movedToPlugin(exported()).deployment.resources!;
  const provider = `${P}pulumi:providers:neon-auth::default_${VERSION.replace(/\./g, "_")}`;

  it("gives each dynamic resource the plugin's type, URN and default provider, and drops Node's", () => {
    expect(moved.map((r) => r.urn)).toEqual([`${P}pulumi:pulumi:Stack::app-dev`, provider, `${P}neon-auth:index:NeonAuth::auth`, `${P}neon-auth:index:RedirectDomain::app`]);
    expect(moved[1]).toMatchObject({ type: "pulumi:providers:neon-auth", custom: true, inputs: { version: VERSION } });
    for (const r of moved.slice(2)) expect(r.provider).toBe(`${provider}::${moved[1]!.id}`);
  });

  it("renames every URN that named a moved resource, and drops the serialized provider", () => {
    const app = moved[3]!;
    expect(app.dependencies).toEqual([`${P}neon-auth:index:NeonAuth::auth`]);
    expect(app.replaceWith).toEqual([`${P}neon-auth:index:NeonAuth::auth`]);
    expect(app.propertyDependencies).toEqual({ integration: [`${P}neon-auth:index:NeonAuth::auth`] });
    expect(JSON.stringify(moved)).not.toContain("__provider");
    expect(JSON.stringify(moved)).not.toContain("pulumi-nodejs");
  });

  it("writes inputs and outputs in the plugin's shape: an integration's ref, a child's integration", () => {
    expect(moved[2]!.outputs!.ref).toEqual({ ...place, ...identity });
    expect(moved[3]!.outputs!.integration).toEqual({ ...place, ...identity });
    expect(moved[3]!.inputs).toEqual({ integration: { ...place, ...identity }, domain: "https://a.example.com" });
  });

  it("refuses a stack with pending operations, or none of the package's resources", () => {
    expect(() => movedToPlugin(exported({ pending_operations: [{ type: "creating" }] }))).toThrow(/pending operations/);
    expect(() => movedToPlugin({ version: 3, deployment: { resources: [] } })).toThrow(/no resource of pulumi-neon-auth's dynamic resources/);
  });
});
