/**
 * The Pulumi package schema of the `neon-auth` provider plugin, made from the kinds' declarations
 * (provider/declaration.ts) and their runtime input rules: the plugin's `GetSchema` answers it,
 * and SDKs and docs for other languages are generated from it. Nothing here is written by hand per
 * kind: a property's type and words come from the kind's zod rules (as JSON Schema: `input()` and
 * `output()` describe each), whether it is secret from the declaration.
 */
import { z } from "zod";
import { VERSION } from "../client/options";
import { SETTING } from "../provider/settings";
import { DECLARATIONS } from "../kinds";
import { FUNCTIONS } from "../kinds/functions";
import type { FunctionDeclaration, KindDeclaration } from "../provider/declaration";
import { secretNames } from "./props";
import { integrationRef, isIntegration } from "../provider/place";
import type { Kind } from "../provider/kit";

export const PACKAGE = "neon-auth";
const REPOSITORY = "https://github.com/pulumi-neon-auth/pulumi-neon-auth";
/**
 * Where the engine fetches the plugin a program's SDK names and no one installed: the GitHub
 * releases of the repository, whose assets the release workflow names as the engine asks for them
 * (`pulumi-resource-neon-auth-v<version>-<os>-<arch>.tar.gz`).
 */
export const PLUGIN_DOWNLOAD_URL = `github://api.github.com${new URL(REPOSITORY).pathname}`;
/** The type token of a kind: `neon-auth:index:RedirectDomain`. */
export const tokenOf = (kind: Kind) => `${PACKAGE}:index:${kind}`;
/** The object type a child takes as its `integration`, and each integration outputs as `ref`. */
export const REF_TYPE = `${PACKAGE}:index:IntegrationRef`;

export interface PropertySpec {
  type?: "string" | "number" | "integer" | "boolean" | "array" | "object";
  $ref?: string;
  items?: PropertySpec;
  additionalProperties?: PropertySpec;
  description?: string;
  secret?: boolean;
}

interface ObjectSpec {
  description?: string;
  properties: Record<string, PropertySpec>;
  required?: string[];
}

interface ResourceSpec extends ObjectSpec {
  inputProperties: Record<string, PropertySpec>;
  requiredInputs: string[];
}

/** A function: its arguments and result, each an object (Pulumi's schema, `functions`). */
export interface FunctionSpec {
  description: string;
  inputs: ObjectSpec;
  outputs: ObjectSpec;
}

export interface PackageSchema {
  name: string;
  version: string;
  displayName: string;
  description: string;
  license: string;
  keywords: string[];
  repository: string;
  pluginDownloadURL: string;
  config: { variables: Record<string, PropertySpec> };
  provider: ResourceSpec;
  resources: Record<string, ResourceSpec>;
  functions: Record<string, FunctionSpec>;
  types: Record<string, ObjectSpec & { type: "object" }>;
  language: Record<string, unknown>;
}


const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

type Json = Record<string, any>;

/** A JSON Schema (zod's, for inputs) as a Pulumi property; nested objects become named types. */
function propertyOf(js: Json, name: string, types: PackageSchema["types"]): PropertySpec {
  const alternatives = (js.anyOf ?? js.oneOf) as Json[] | undefined;
  if (alternatives) {
    const [first] = alternatives.filter((a) => a.type !== "null");
    return propertyOf(first ?? {}, name, types);
  }
  switch (js.type) {
    case "string":
    case "boolean":
    case "number":
    case "integer":
      return { type: js.type };
    case "array":
      return { type: "array", items: propertyOf(js.items ?? {}, `${name}Item`, types) };
    case "object": {
      if (js.properties === undefined) return { type: "object", additionalProperties: propertyOf(js.additionalProperties ?? {}, name, types) };
      const token = `${PACKAGE}:index:${name}`;
      types[token] = {
        type: "object",
        properties: Object.fromEntries(Object.entries(js.properties as Record<string, Json>).map(([k, v]) => [k, described(propertyOf(v, name + pascal(k), types), v)])),
        ...(js.required?.length ? { required: js.required } : {}),
      };
      return { $ref: `#/types/${token}` };
    }
    default:
      // A value of any shape (none of our rules has one today); the runtime rules still check it.
      return { $ref: "pulumi.json#/Any" };
  }
}

/** A property with the words its rule was described with (`.describe()`), if any. */
const described = (p: PropertySpec, js: Json): PropertySpec => (typeof js.description === "string" ? { ...p, description: js.description } : p);

/** An object rule as the schema's inputs or outputs of a function: its properties, described, and which are required. */
function objectOf(schema: z.ZodType, io: "input" | "output", name: string, types: PackageSchema["types"]): ObjectSpec {
  const js = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Json;
  const properties = Object.fromEntries(Object.entries(js.properties as Record<string, Json>).map(([k, v]) => [k, described(propertyOf(v, name + pascal(k), types), v)]));
  return { properties, ...((js.required as string[] | undefined)?.length ? { required: js.required as string[] } : {}) };
}

/** The schema token of a function: `neon-auth:index:getNeonAuth`. */
export const functionToken = (name: string) => `${PACKAGE}:index:${name}`;

/** One function as the schema declares it; its object types are named after it (`GetOAuthProvidersProvider`). */
function functionOf(f: FunctionDeclaration, types: PackageSchema["types"]): FunctionSpec {
  const stem = pascal(f.name);
  return { description: f.doc, inputs: objectOf(f.args, "input", stem, types), outputs: objectOf(f.result, "output", stem, types) };
}

/** A kind that lives in an integration. */
const isChild = (decl: KindDeclaration) => decl.parent !== undefined;

/** One kind as a schema resource. */
function resourceOf(decl: KindDeclaration, types: PackageSchema["types"]): ResourceSpec {
  const js = z.toJSONSchema(decl.schema, { io: "input", unrepresentable: "any" }) as Json;
  const secrets = secretNames(decl);
  // Each property with the words its rule was declared with (`input()`, `output()`, `.describe()`).
  const mark = (name: string, js: Json): PropertySpec => ({
    ...described(propertyOf(js, decl.kind + pascal(name), types), js),
    ...(secrets.has(name) ? { secret: true } : {}),
  });
  const inputProperties: Record<string, PropertySpec> = {};
  const requiredInputs: string[] = [];
  if (isChild(decl)) {
    const unless = decl.parentUnless === undefined ? "" : ` Required ${decl.parentUnless}.`;
    inputProperties.integration = { $ref: `#/types/${REF_TYPE}`, description: `The NeonAuth or AuthIntegration this lives in: its \`ref\` output.${unless}` };
    if (decl.parentUnless === undefined) requiredInputs.push("integration");
  }
  for (const [name, schema] of Object.entries(js.properties as Record<string, Json>)) {
    if (name in inputProperties) continue;
    inputProperties[name] = mark(name, schema);
    if ((js.required as string[] | undefined)?.includes(name)) requiredInputs.push(name);
  }
  const properties: Record<string, PropertySpec> = { ...inputProperties };
  if (isChild(decl)) {
    properties.projectId = { type: "string", description: "The Neon project, from the integration." };
    properties.branchId = { type: "string", description: "The branch, from a NeonAuth integration." };
    if (decl.withProvider !== false) properties.authProvider = { type: "string", description: "The auth provider, from the integration." };
  }
  for (const [name, o] of Object.entries(decl.outputs ?? {})) properties[name] = mark(name, z.toJSONSchema(o, { io: "output", unrepresentable: "any" }) as Json);
  if (isIntegration(decl)) properties.ref = { $ref: `#/types/${REF_TYPE}`, description: "What a child takes as its `integration`." };
  const required = Object.keys(properties).filter((k) => requiredInputs.includes(k) || k === "ref");
  return { description: `${decl.kind}. Id: ${decl.id}`, inputProperties, requiredInputs, properties, required };
}

/** The provider's configuration, under the `neon-auth:` namespace the dynamic resources read too. */
function config(): Record<string, PropertySpec> {
  const own = (setting: string) => setting.slice(`${PACKAGE}:`.length);
  return {
    [own(SETTING.stackKey)]: { type: "string", secret: true, description: `The Neon API key (or the ${SETTING.envKey} environment variable).` },
    [own(SETTING.stackUrl)]: { type: "string", description: `The API's base URL (or ${SETTING.envUrl}); Neon's by default.` },
    [own(SETTING.lockTimeout)]: { type: "number", description: "How long to wait for a project's lock (423) before failing, in seconds." },
    [own(SETTING.rateLimitTimeout)]: { type: "number", description: "How long to wait out rate limiting (429) before failing, in seconds." },
    [own(SETTING.readUsers)]: { type: "boolean", description: "Read a branch's users from its database (default true)." },
  };
}

/** The whole package schema, from the declarations. */
export function packageSchema(): PackageSchema {
  const types: PackageSchema["types"] = {
    [REF_TYPE]: { type: "object", description: "An integration, as its children name it.", ...objectOf(integrationRef, "input", "IntegrationRef", {}) },
  };
  const resources = Object.fromEntries(Object.values(DECLARATIONS).map((d) => [tokenOf(d.kind), resourceOf(d, types)]));
  const functions = Object.fromEntries(Object.values(FUNCTIONS).map((f) => [functionToken(f.name), functionOf(f, types)]));
  const variables = config();
  return {
    name: PACKAGE,
    version: VERSION,
    displayName: "Neon Auth",
    description: "Neon Auth as code: both API generations (branch-scoped Better Auth and the project-level integration).",
    license: "Apache-2.0",
    keywords: ["pulumi", "neon", "neon-auth", "category/database"],
    repository: REPOSITORY,
    pluginDownloadURL: PLUGIN_DOWNLOAD_URL,
    config: { variables },
    provider: { inputProperties: variables, requiredInputs: [], properties: {} },
    resources,
    functions,
    types,
    language: {
      nodejs: { packageName: "@pulumi-neon-auth/plugin-sdk", respectSchemaVersion: true },
      go: { importBasePath: "github.com/pulumi-neon-auth/pulumi-neon-auth/sdk/go/neonauth", respectSchemaVersion: true },
      python: { packageName: "pulumi_neon_auth", respectSchemaVersion: true },
    },
  };
}
