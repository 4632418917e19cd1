/**
 * The one list of kinds (src/provider/declaration.ts `KINDS`): a provider module per kind that state
 * may require(), a declaration and an exported class per kind, and nothing else. Lists of values
 * (Neon's defaults, provider ids) are written once.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import * as resources from "../../src/resources";
import type { OAuthClientType, OAuthProviderId } from "../../src/resources";
import { DECLARATIONS } from "../../src/kinds";
import { KINDS as ALL_KINDS } from "../../src/provider/declaration";
import { keptAtPreview } from "../../src/provider/kit";
import { PROVIDERS } from "../../src/resources/providers";
import { BRANCH_OAUTH_PROVIDER_IDS, OAUTH_CLIENT_TYPES } from "../../src/schemas/branchAuth";
import { PLACE_FIELDS } from "../../src/provider/place";
import { input, output } from "../../src/provider/declaration";
import { holdsSecret, secretField } from "../../src/schemas/fields";
import { z } from "zod";

const KINDS = [...ALL_KINDS].sort();

describe("the registry of kinds", () => {
  it("lists one provider module per kind", () => {
    expect(Object.keys(PROVIDERS).sort()).toEqual(KINDS);
    const modules = fs.readdirSync(path.join(__dirname, "../../src/resources/providers"))
      .map((f) => f.replace(/\.ts$/, ""))
      .filter((m) => m !== "index" && m !== "dynamic");
    expect(modules.sort()).toEqual(KINDS);
  });

  it("has one declaration per kind, under its own name", () => {
    expect(Object.keys(DECLARATIONS).sort()).toEqual(KINDS);
    for (const [kind, d] of Object.entries(DECLARATIONS)) expect(d.kind).toBe(kind);
  });

  it("names exactly the resource classes the package exports", () => {
    // The functions (`getNeonAuth`, kinds/functions.ts) are the lower-case exports.
    const classes = Object.entries(resources).filter(([k, v]) => typeof v === "function" && /^[A-Z]/.test(k)).map(([k]) => k);
    expect(classes.sort()).toEqual(KINDS);
  });
});

describe("what a preview of an in-place update knows (the plugin's Update at preview)", () => {
  it("is declared by each kind: a child's place, and the outputs that tell which object it is", () => {
    // The kinds of this release (a kind added later has its own place, and is no regression here).
    const expected: Record<string, string[]> = {
      AuthIntegration: ["authProviderProjectId", "createdAt", "ref"],
      AuthOwnershipTransfer: ["integration", "projectId", "branchId", "authProvider"],
      AuthSdkKeys: ["integration", "projectId", "branchId", "authProvider", "authProviderProjectId"],
      AuthUser: ["integration", "projectId", "branchId", "authProvider"],
      DataApi: ["integration", "authProvider"],
      EmailServer: ["integration", "projectId", "branchId", "authProvider"],
      NeonAuth: ["authProviderProjectId", "createdAt", "ref"],
      OAuthClient: ["integration", "projectId", "branchId", "authProvider", "createdAt"],
      OAuthProvider: ["integration", "projectId", "branchId", "authProvider"],
      ProjectJwks: ["createdAt"],
      RedirectDomain: ["integration", "projectId", "branchId", "authProvider"],
    };
    expect(Object.fromEntries(Object.keys(expected).map((k) => [k, keptAtPreview(DECLARATIONS[k as keyof typeof DECLARATIONS])]))).toEqual(expected);
  });
});

describe("each list of values in one place", () => {
  // Published types are plain TypeScript (no zod, no import of the schemas): their unions are
  // written out, and checked here against the schemas' lists.
  type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
  it("the published provider ids and client types are the schemas' lists", () => {
    const ids: Same<OAuthProviderId, (typeof BRANCH_OAUTH_PROVIDER_IDS)[number]> = true;
    const types: Same<OAuthClientType, (typeof OAUTH_CLIENT_TYPES)[number]> = true;
    expect([ids, types]).toEqual([true, true]);
  });

  it("Neon's defaults, provider ids and secret fields are each written once in src", () => {
    const files = fs.readdirSync("src", { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    const count = (text: RegExp) => files.flatMap((f) => [...fs.readFileSync(path.join("src", f), "utf8").matchAll(text)].map(() => f));
    expect(count(/"neondb"/g)).toEqual([path.join("schemas", "common.ts")]);
    expect(count(/"neondb_owner"/g)).toEqual([path.join("schemas", "common.ts")]);
    // A list of provider ids as code (type unions in published files aside).
    expect(count(/\[\s*"google",\s*"github"/g).sort()).toEqual([path.join("schemas", "branchAuth.ts"), path.join("schemas", "common.ts")]);
    expect(count(/"github",\s*"microsoft",\s*"vercel"\]/g)).toEqual([path.join("schemas", "branchAuth.ts")]);
  });
});

describe("each input described once, on its rule", () => {
  it("every field of a kind's rules is a published input (`input()`), a child's place, or a described NeonAuth setting", () => {
    for (const d of Object.values(DECLARATIONS)) {
      const shape = (d.schema as z.ZodObject).shape as Record<string, z.ZodType>;
      const place: readonly string[] = d.parent === undefined ? [] : ["integration", ...PLACE_FIELDS];
      const rest = Object.keys(shape).filter((k) => !(k in d.inputs) && !place.includes(k));
      // A setting is published from its own table (`also`): described, but no input of the Args.
      for (const k of rest) expect(d.also !== undefined && typeof shape[k]!.description === "string", `${d.kind}.${k}`).toBe(true);
    }
  });

  it("says in words only what the rule cannot: no default restated, no required input said to be needed sometimes", () => {
    for (const d of Object.values(DECLARATIONS)) {
      const js = z.toJSONSchema(d.schema, { io: "input", unrepresentable: "any" }) as { properties: Record<string, { default?: unknown }>; required?: string[] };
      for (const [name, i] of Object.entries(d.inputs)) {
        if (i.absent !== undefined) expect(js.properties[name]!.default, `${d.kind}.${name}: its rule has a default`).toBeUndefined();
        if (i.requiredWhen !== undefined) expect(js.required ?? [], `${d.kind}.${name}: its rule requires it`).not.toContain(name);
        if (i.values !== undefined) expect(Object.values(i.values).flat().every((v) => (js.properties[name] as { enum?: unknown[] }).enum?.includes(v)), `${d.kind}.${name}`).toBe(true);
      }
    }
  });

  it("keeps a rule's secret mark on the described copy `.meta()` makes", () => {
    expect(holdsSecret(input(secretField(z.string()), { doc: "A password." }))).toBe(true);
    expect(holdsSecret(output(secretField(z.string()), { doc: "A key." }))).toBe(true);
    expect(holdsSecret(input(z.string(), { doc: "A name." }))).toBe(false);
  });
});
