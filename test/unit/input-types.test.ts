/**
 * Each input is published twice from one declaration: as a TypeScript type in the classes' Args
 * (the declaration's `type`, written by `npm run gen`) and as a property of the plugin's schema
 * (from the kind's zod rule). This test fails when the two faces disagree on what an input is:
 * its shape (string, number, boolean, list, map, object), or whether it is required.
 */
import { describe, expect, it } from "vitest";
import { DECLARATIONS } from "../../src/kinds";
import type { InputDeclaration, KindDeclaration } from "../../src/provider/declaration";
import { packageSchema, tokenOf, type PropertySpec } from "../../src/plugin/schema";

const schema = packageSchema();

/** A published TypeScript type as a shape the schema can say. */
function shapeOfType(ts: string, decl: KindDeclaration): string {
  const t = ts.replace(/\s*\|\s*undefined$/, "").trim();
  if (t === "string" || t === "boolean" || t === "number") return t;
  if (/^Record<string,\s*string>$/.test(t)) return "map<string>";
  if (t.endsWith("[]")) return `array<${shapeOfType(t.slice(0, -2), decl)}>`;
  if (/^"[^"]*"(\s*\|\s*"[^"]*")*$/.test(t)) return "string";
  if (decl.types?.[t] !== undefined) return "string";
  return `named ${t}`;
}

/** A schema property as the same shape. */
function shapeOfProperty(p: PropertySpec): string {
  if (p.$ref !== undefined) return "object";
  if (p.type === "integer") return "number";
  if (p.type === "array") return `array<${shapeOfProperty(p.items ?? {})}>`;
  if (p.type === "object") return p.additionalProperties ? `map<${shapeOfProperty(p.additionalProperties)}>` : "object";
  return p.type ?? "any";
}

/** The TypeScript types an input is published with: one, or one per generation. */
function typesOf(input: InputDeclaration): string[] {
  return typeof input.type === "string" ? [input.type] : [...new Set(Object.values(input.type))];
}

const declarations = Object.values(DECLARATIONS);

/** The inputs both faces publish beside a child's `integration` (one type on both: the integration's ref). */
const published = (decl: KindDeclaration) => Object.entries(decl.inputs).filter(([name]) => decl.parent === undefined || name !== "integration");

describe("the two faces agree on every declared input", () => {
  for (const decl of declarations) {
    it(`${decl.kind}: each input's TypeScript type and plugin schema type`, () => {
      const resource = schema.resources[tokenOf(decl.kind)]!;
      const inputs = published(decl);
      const inTypeScript = Object.fromEntries(inputs.map(([name, i]) => [name, typesOf(i).map((t) => shapeOfType(t, decl))]));
      const inPlugin = Object.fromEntries(inputs.map(([name, i]) => [name, typesOf(i).map(() => (resource.inputProperties[name] ? shapeOfProperty(resource.inputProperties[name]) : "absent"))]));
      expect(inPlugin).toEqual(inTypeScript);
    });

    it(`${decl.kind}: the same inputs are required on both faces`, () => {
      const resource = schema.resources[tokenOf(decl.kind)]!;
      const requiredInTs = published(decl)
        .filter(([, i]) => i.required === true)
        .map(([name]) => name)
        .sort();
      expect(resource.requiredInputs.filter((n) => n !== "integration").sort()).toEqual(requiredInTs);
    });
  }

  it("a disagreement is caught: a number published as a string", () => {
    const decl = DECLARATIONS.RedirectDomain;
    expect(shapeOfType("string", decl)).not.toBe(shapeOfProperty({ type: "integer" }));
    expect(shapeOfType("string[]", decl)).toBe(shapeOfProperty({ type: "array", items: { type: "string" } }));
  });
});
