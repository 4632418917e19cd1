/**
 * The plugin's package schema comes from the kinds' declarations: every kind, each input it
 * declares, its secrets and its computed outputs, without a second description to drift from them.
 */
import { describe, expect, it } from "vitest";
import { secretOutputsOf } from "../../src/provider/declaration";
import { DECLARATIONS } from "../../src/kinds";
import { secretKeys, secretLeafNames } from "../../src/schemas/fields";
import { functionToken, packageSchema, REF_TYPE, tokenOf } from "../../src/plugin/schema";
import { inherited, inputsOf, isIntegration, placed, upgraded, withRef } from "../../src/provider/place";
import { FUNCTIONS } from "../../src/kinds/functions";
import * as pulumi from "@pulumi/pulumi";
import { marked, plain } from "../../src/plugin/props";
import { SECRET, SECRET_INPUTS, SIG } from "../../src/provider/kit";
import { UNKNOWN } from "../../src/provider/diff";

const schema = packageSchema();
const declarations = Object.values(DECLARATIONS);

describe("the plugin's schema", () => {
  it("has one resource per kind, by token", () => {
    expect(Object.keys(schema.resources).sort()).toEqual(declarations.map((d) => tokenOf(d.kind)).sort());
  });

  it("takes every declared input, a child's place as its integration's ref", () => {
    for (const d of declarations) {
      const r = schema.resources[tokenOf(d.kind)]!;
      // A child that may stand without its integration declares its place too (DataApi).
      const declared = Object.keys(d.inputs);
      const expected = [...declared, ...(d.parent ? ["integration"] : [])];
      // NeonAuth's settings are declared in their own table (`also`), and are its inputs too.
      if (d.also) expect(Object.keys(r.inputProperties), d.kind).toEqual(expect.arrayContaining(expected));
      else expect(Object.keys(r.inputProperties).sort(), d.kind).toEqual(expected.sort());
      if (d.parent) {
        expect(r.inputProperties.integration).toMatchObject({ $ref: `#/types/${REF_TYPE}` });
        if (d.parentUnless === undefined) expect(r.requiredInputs).toContain("integration");
        else expect(r.requiredInputs).not.toContain("integration");
      } else if (isIntegration(d)) {
        expect(r.properties.ref).toMatchObject({ $ref: `#/types/${REF_TYPE}` });
      } else {
        expect(r.properties.ref, `${d.kind} stands alone`).toBeUndefined();
      }
    }
  });

  it("describes every property: each input, output, setting field, function argument and result, type field and setting", () => {
    // The words live on the zod rules (`input()`, `output()`, `.describe()`), so an undescribed one is a rule without them.
    const undescribed = (where: string, props: Record<string, { description?: string }>) =>
      Object.entries(props).flatMap(([k, p]) => (typeof p.description === "string" && /\S/.test(p.description) ? [] : [`${where}.${k}`]));
    const missing = [
      ...Object.entries(schema.resources).flatMap(([t, r]) => [...undescribed(`${t} input`, r.inputProperties), ...undescribed(t, r.properties)]),
      ...Object.entries(schema.functions).flatMap(([t, f]) => [...undescribed(`${t} argument`, f.inputs.properties), ...undescribed(`${t} result`, f.outputs.properties)]),
      ...Object.entries(schema.types).flatMap(([t, o]) => undescribed(t, o.properties)),
      ...undescribed("config", schema.config.variables),
    ];
    expect(missing).toEqual([]);
    // Settings' fields included: each NeonAuth setting is a type of fields (NeonAuthWebhooks, …).
    expect(Object.keys(schema.types).filter((t) => t.startsWith("neon-auth:index:NeonAuth")).length).toBeGreaterThanOrEqual(6);
  });

  it("marks the secrets the declarations and input rules mark, and no other", () => {
    for (const d of declarations) {
      const r = schema.resources[tokenOf(d.kind)]!;
      const secret = new Set([...secretKeys(d.schema), ...secretOutputsOf(d)]);
      const markedOut = Object.entries(r.properties).flatMap(([k, p]) => (p.secret ? [k] : []));
      expect(markedOut.sort(), d.kind).toEqual([...secret].filter((k) => k in r.properties).sort());
      for (const k of secret) if (k in r.inputProperties) expect(r.inputProperties[k]!.secret, `${d.kind}.${k}`).toBe(true);
    }
    expect(schema.config.variables.apiKey).toMatchObject({ type: "string", secret: true });
  });

  it("lists every computed output", () => {
    for (const d of declarations) {
      for (const name of Object.keys(d.outputs ?? {})) expect(schema.resources[tokenOf(d.kind)]!.properties, `${d.kind}.${name}`).toHaveProperty(name);
    }
  });

  it("names each nested object type it refers to", () => {
    const refs = JSON.stringify(schema).match(/#\/types\/[^"]+/g) ?? [];
    for (const ref of refs) expect(schema.types, ref).toHaveProperty(ref.slice("#/types/".length));
  });
});

describe("the plugin's properties", () => {
  const domain = DECLARATIONS.RedirectDomain;
  const ref = { projectId: "p-1", branchId: "br-1", authProvider: "better_auth", authProviderProjectId: "ap-1", createdAt: "2026-01-01T00:00:00Z" };

  it("mark a secret as the engine does", () => {
    expect([SIG, SECRET]).toEqual([pulumi.runtime.specialSigKey, pulumi.runtime.specialSecretSig]);
  });

  it("read a child's place from its integration's ref, and record it as inputs without it", () => {
    const outs = placed({ integration: ref, domain: "https://a.example.com" });
    expect(outs).toEqual({ projectId: "p-1", branchId: "br-1", authProvider: "better_auth", integration: ref, domain: "https://a.example.com" });
    expect(inputsOf(outs)).toEqual({ integration: ref, domain: "https://a.example.com" });
    expect(placed({ integration: UNKNOWN, domain: "d" })).toEqual({ integration: UNKNOWN, domain: "d" });
  });

  it("read state recorded before (the place beside a bare identity, or no identity) as the ref", () => {
    const identity = { authProviderProjectId: "ap-1", createdAt: "2026-01-01T00:00:00Z" };
    const flat = { projectId: "p-1", branchId: "br-1", authProvider: "better_auth", integration: identity, domain: "https://a.example.com" };
    expect(upgraded(domain, flat)).toEqual({ ...flat, integration: ref });
    expect(upgraded(domain, upgraded(domain, flat))).toEqual({ ...flat, integration: ref });
    expect(upgraded(domain, { projectId: "p-1", domain: "d" })).toEqual({ projectId: "p-1", domain: "d", integration: { projectId: "p-1" } });
    // An integration, and a Data API on another identity provider, keep their own place.
    expect(upgraded(DECLARATIONS.NeonAuth, { projectId: "p-1", branchId: "br-1" })).toEqual({ projectId: "p-1", branchId: "br-1" });
    expect(upgraded(DECLARATIONS.DataApi, { projectId: "p-1", branchId: "br-1", jwksUrl: "https://x" })).toEqual({ projectId: "p-1", branchId: "br-1", jwksUrl: "https://x" });
  });

  it("give an integration's ref, with a branch only for a NeonAuth", () => {
    const outs = { projectId: "p-1", branchId: "br-1", authProvider: "stack", authProviderProjectId: "ap-1", createdAt: "c" };
    expect(withRef(DECLARATIONS.AuthIntegration, outs).ref).toEqual({ projectId: "p-1", authProvider: "stack", authProviderProjectId: "ap-1", createdAt: "c" });
    expect(withRef(DECLARATIONS.NeonAuth, { ...outs, authProvider: "better_auth" }).ref).toEqual({ ...outs, authProvider: "better_auth" });
    expect(withRef(DECLARATIONS.RedirectDomain, outs)).toEqual(outs);
  });

  it("pass a NeonAuth's adopt on to its children through its ref, unless a child sets its own", () => {
    const outs = { projectId: "p-1", branchId: "br-1", authProvider: "better_auth", authProviderProjectId: "ap-1", createdAt: "c" };
    const adopting = withRef(DECLARATIONS.NeonAuth, { ...outs, adopt: true }).ref;
    expect(adopting).toEqual({ ...outs, adopt: true });
    expect(withRef(DECLARATIONS.NeonAuth, { ...outs, adopt: false }).ref).toEqual(outs);
    expect(withRef(DECLARATIONS.AuthIntegration, { ...outs, authProvider: "stack", adopt: true }).ref).not.toHaveProperty("adopt");
    expect(inherited({ integration: adopting, domain: "d" }).adopt).toBe(true);
    expect(inherited({ integration: adopting, domain: "d", adopt: false }).adopt).toBe(false);
    expect(inherited({ integration: ref, domain: "d" })).not.toHaveProperty("adopt");
  });

  it("keep secrets secret both ways, by name", () => {
    const sig = "4dabf18193072939515e22adb298388d";
    const wire = { clientId: "id", clientSecret: { [sig]: "1b47061264138c4ac30d75fd1eb44270", value: "s3cret" }, note: { deep: { [sig]: "1b47061264138c4ac30d75fd1eb44270", value: "x" } } };
    const p = plain(wire);
    expect(p).toEqual({ clientId: "id", clientSecret: "s3cret", note: { deep: "x" }, [SECRET_INPUTS]: ["clientSecret", "note"] });
    const back = marked(DECLARATIONS.OAuthProvider, p);
    expect(back.clientSecret).toEqual(wire.clientSecret);
    expect(back.note).toEqual({ [sig]: "1b47061264138c4ac30d75fd1eb44270", value: { deep: "x" } });
    expect(back.clientId).toBe("id");
    expect(back).not.toHaveProperty(SECRET_INPUTS);
  });
});

describe("the plugin schema's functions", () => {
  const schema = packageSchema();
  /** Every property name a function's result can hold, at any depth. */
  const resultNames = (props: Record<string, { $ref?: string; items?: { $ref?: string } }>): string[] =>
    Object.entries(props).flatMap(([k, p]) => {
      const ref = (p.$ref ?? p.items?.$ref)?.replace("#/types/", "");
      return [k, ...(ref ? resultNames(schema.types[ref]!.properties as never) : [])];
    });

  it("lists the eight functions from their declarations, each with typed, described inputs and outputs", () => {
    expect(Object.keys(schema.functions)).toEqual(Object.keys(FUNCTIONS).map(functionToken));
    expect(Object.keys(schema.functions).map((t) => t.split(":")[2])).toEqual(["getNeonAuth", "getOAuthProviders", "getTrustedDomains", "getOAuthServer", "getNeonAuthUsers", "getAuthIntegration", "getDataApi", "getProjectJwks"]);
    for (const [token, f] of Object.entries(schema.functions)) {
      expect(f.inputs.required, token).toContain("projectId");
      for (const [name, p] of [...Object.entries(f.inputs.properties), ...Object.entries(f.outputs.properties)]) {
        expect(p.type ?? p.$ref, `${token} ${name}`).toBeDefined();
        expect(p.description, `${token} ${name}`).toMatch(/\S/);
      }
    }
    expect(schema.functions["neon-auth:index:getOAuthProviders"]!.outputs.properties.providers).toEqual(expect.objectContaining({ type: "array", items: { $ref: "#/types/neon-auth:index:GetOAuthProvidersProvidersItem" } }));
  });

  it("answers no secret: no field a resource keeps secret is in any result, and none is marked", () => {
    // A name secret in one kind and a plain output of another (`url`: a transfer's, a Data API's) is
    // judged by the kind a function reads, whose own declaration marks it: the schema check below.
    const plain = new Set(Object.values(DECLARATIONS).flatMap((d) => Object.keys(d.outputs ?? {}).filter((k) => !secretOutputsOf(d).includes(k))));
    const secretNames = new Set(Object.values(DECLARATIONS).flatMap((d) => [...secretLeafNames(d.schema), ...secretOutputsOf(d)]).filter((n) => !plain.has(n)));
    expect([...secretNames]).toEqual(expect.arrayContaining(["clientSecret", "webhookUrl", "password"]));
    for (const [token, f] of Object.entries(schema.functions)) {
      expect(resultNames(f.outputs.properties as never).filter((n) => secretNames.has(n) || /secret|apiKey|serverKey|clientKey/i.test(n)), token).toEqual([]);
    }
    expect(JSON.stringify(schema.functions)).not.toContain('"secret":true');
  });
});
