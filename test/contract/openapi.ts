/**
 * Neon's OpenAPI document as shipped in @neondatabase/api-client 2.7.3, for the contract tests: look
 * up an operation, validate a JSON value against one of its schemas, and compare a zod schema of the
 * endpoint table with it. The validator covers the keywords the document's auth and branch schemas
 * use (type, required, properties, items, enum, allOf, oneOf with discriminator, bounds, pattern).
 */
import * as fs from "node:fs";
import { parse } from "yaml";
import { z } from "zod";

type Schema = Record<string, any>;

const DOC_PATH = require.resolve("@neondatabase/api-client/public-v2-for-users.gen.yaml");
export const doc: { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, Schema>; responses: Record<string, any> } } = parse(
  fs.readFileSync(DOC_PATH, "utf8"),
);

export function resolve(s: Schema | undefined): Schema | undefined {
  let cur = s;
  while (cur && typeof cur.$ref === "string") {
    const [, , kind, name] = (cur.$ref as string).split("/");
    cur = (doc.components as Record<string, Record<string, Schema>>)[kind as string]?.[name as string];
  }
  return cur;
}

export interface DocOperation {
  operationId: string;
  /** 2xx statuses the document lists. */
  success: number[];
  request?: Schema;
  /** Query parameters: name and whether the document requires it. */
  query: { name: string; required: boolean }[];
  response(status: number): Schema | undefined;
}

export function operation(method: string, path: string): DocOperation | undefined {
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (op === undefined) return undefined;
  return {
    operationId: op.operationId,
    success: Object.keys(op.responses).filter((k) => /^2\d\d$/.test(k)).map(Number),
    request: op.requestBody?.content?.["application/json"]?.schema,
    query: ((op.parameters ?? []) as { name: string; in: string; required?: boolean }[])
      .filter((p) => p.in === "query")
      .map((p) => ({ name: p.name, required: p.required === true })),
    response: (status) => resolve(op.responses[String(status)])?.content?.["application/json"]?.schema,
  };
}

export const generalError: Schema = { $ref: "#/components/schemas/GeneralError" };

/** Problems of `value` against `schema`, as `path: problem`; empty when it conforms. */
export function validate(schema: Schema | undefined, value: unknown, at = "$"): string[] {
  const s = resolve(schema);
  if (s === undefined) return [];
  const out: string[] = [];
  if (s.allOf) for (const part of s.allOf) out.push(...validate(part, value, at));
  if (s.oneOf) {
    const d = s.discriminator?.propertyName as string | undefined;
    if (d !== undefined && s.discriminator.mapping) {
      const tag = (value as Record<string, unknown>)?.[d];
      const target = s.discriminator.mapping[String(tag)];
      if (target === undefined) out.push(`${at}.${d}: ${JSON.stringify(tag)} is not one of ${Object.keys(s.discriminator.mapping).join(", ")}`);
      else out.push(...validate({ $ref: target }, value, at));
    } else if (s.oneOf.filter((o: Schema) => validate(o, value, at).length === 0).length !== 1) {
      out.push(`${at}: matches no single oneOf branch`);
    }
  }
  if (value === null) return s.nullable ? out : [...out, `${at}: is null`];
  const type = s.type as string | undefined;
  if (type === "object" || (type === undefined && s.properties)) {
    if (typeof value !== "object" || Array.isArray(value)) return [...out, `${at}: expected an object`];
    const o = value as Record<string, unknown>;
    for (const r of (s.required ?? []) as string[]) if (o[r] === undefined) out.push(`${at}.${r}: is required`);
    for (const [k, sub] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
      if (o[k] !== undefined) out.push(...validate(sub, o[k], `${at}.${k}`));
    }
    if (s.additionalProperties === false) {
      for (const k of Object.keys(o)) if (!(k in (s.properties ?? {}))) out.push(`${at}.${k}: is not allowed`);
    }
  } else if (type === "array") {
    if (!Array.isArray(value)) return [...out, `${at}: expected an array`];
    if (s.minItems !== undefined && value.length < s.minItems) out.push(`${at}: fewer than ${s.minItems} items`);
    value.forEach((v, i) => out.push(...validate(s.items, v, `${at}[${i}]`)));
  } else if (type === "string") {
    if (typeof value !== "string") return [...out, `${at}: expected a string`];
    if (s.minLength !== undefined && value.length < s.minLength) out.push(`${at}: shorter than ${s.minLength}`);
    if (s.maxLength !== undefined && value.length > s.maxLength) out.push(`${at}: longer than ${s.maxLength}`);
    if (s.pattern !== undefined && !new RegExp(s.pattern).test(value)) out.push(`${at}: does not match ${s.pattern}`);
    if (s.format === "date-time" && Number.isNaN(Date.parse(value))) out.push(`${at}: not a date-time`);
    if (s.format === "email" && !/^[^@\s]+@[^@\s]+$/.test(value)) out.push(`${at}: not an email`);
    if (s.format === "uri" && !URL.canParse(value)) out.push(`${at}: not a URI`);
  } else if (type === "integer" || type === "number") {
    if (typeof value !== "number" || (type === "integer" && !Number.isInteger(value))) return [...out, `${at}: expected ${type}`];
    if (s.minimum !== undefined && value < s.minimum) out.push(`${at}: below ${s.minimum}`);
    if (s.maximum !== undefined && value > s.maximum) out.push(`${at}: above ${s.maximum}`);
  } else if (type === "boolean") {
    if (typeof value !== "boolean") return [...out, `${at}: expected a boolean`];
  }
  if (s.enum && !s.enum.includes(value)) out.push(`${at}: ${JSON.stringify(value)} is not one of ${s.enum.join(", ")}`);
  return out;
}

// ---- comparing a zod schema with the document -----------------------------------------------

/** The document's schema flattened to one object view: allOf merged, a discriminated oneOf by tag. */
function objectView(schema: Schema | undefined): { properties: Record<string, Schema>; required: Set<string>; variants?: Record<string, Schema> } {
  const s = resolve(schema) ?? {};
  const properties: Record<string, Schema> = { ...(s.properties ?? {}) };
  const required = new Set<string>(s.required ?? []);
  for (const part of s.allOf ?? []) {
    const v = objectView(part);
    Object.assign(properties, v.properties);
    v.required.forEach((r) => required.add(r));
  }
  if (s.oneOf && s.discriminator?.mapping) {
    const variants: Record<string, Schema> = {};
    for (const [tag, ref] of Object.entries(s.discriminator.mapping as Record<string, string>)) variants[tag] = { $ref: ref };
    return { properties, required, variants };
  }
  return { properties, required };
}

function typeOf(s: Schema): string | undefined {
  return (s.type as string | undefined) ?? (s.properties || s.allOf ? "object" : undefined);
}

/**
 * Problems with `ours` (JSON Schema of a zod schema) against the document's `theirs`. For a request,
 * everything we may send must be accepted; for a response, everything we require must be promised.
 */
export function compare(ours: Schema, theirs: Schema | undefined, mode: "request" | "response", optionalOk: readonly string[] = [], at = "$"): string[] {
  const t = resolve(theirs);
  if (t === undefined) return [`${at}: the document has no schema here`];
  const out: string[] = [];
  const union = (ours.anyOf ?? ours.oneOf) as Schema[] | undefined;
  const theirsView = objectView(t);
  if (union) {
    for (const branch of union) {
      // A null the document allows (`nullable: true`, as DataAPIReponse's settings).
      if (branch.type === "null" && t.nullable === true) continue;
      const tag = branch.properties?.type?.const ?? branch.properties?.type?.enum?.[0];
      const target = theirsView.variants?.[tag] ?? t;
      out.push(...compare(branch, target, mode, optionalOk, `${at}<${tag ?? "?"}>`));
    }
    return out;
  }
  const ourType = typeOf(ours);
  const theirType = typeOf(t) ?? (theirsView.variants ? "object" : undefined);
  if (ourType === "object") {
    if (theirType !== "object") return [`${at}: object here, ${theirType} in the document`];
    const ourProps = (ours.properties ?? {}) as Record<string, Schema>;
    const ourRequired = new Set<string>(ours.required ?? []);
    for (const [k, sub] of Object.entries(ourProps)) {
      const theirsSub = theirsView.properties[k];
      if (theirsSub === undefined) {
        // A discriminated union's tag is implied by the document's mapping.
        if (k === "type" && at.endsWith(">")) continue;
        if (mode === "request" || ourRequired.has(k)) out.push(`${at}.${k}: not in the document`);
        continue;
      }
      out.push(...compare(sub, theirsSub, mode, optionalOk, `${at}.${k}`));
    }
    if (mode === "request") {
      for (const r of theirsView.required) {
        if (!ourRequired.has(r) && ourProps[r]?.default === undefined && !optionalOk.includes(r)) out.push(`${at}.${r}: required by the document, optional here`);
      }
    } else {
      for (const r of ourRequired) {
        if (theirsView.properties[r] !== undefined && !theirsView.required.has(r) && ourProps[r]?.default === undefined) {
          out.push(`${at}.${r}: required here, optional in the document`);
        }
      }
    }
    return out;
  }
  if (ourType === "array") {
    if (theirType !== "array") return [`${at}: array here, ${theirType} in the document`];
    return compare(ours.items ?? {}, t.items, mode, optionalOk, `${at}[]`);
  }
  if (ourType !== undefined && theirType !== undefined) {
    const numeric = (x: string) => x === "integer" || x === "number";
    const ok = ourType === theirType || (numeric(ourType) && numeric(theirType) && (mode === "request" ? ourType === "integer" || theirType === "number" : ourType === "number" || theirType === "integer"));
    if (!ok) out.push(`${at}: ${ourType} here, ${theirType} in the document`);
  }
  const ourEnum = (ours.enum ?? (ours.const !== undefined ? [ours.const] : undefined)) as unknown[] | undefined;
  const theirEnum = t.enum as unknown[] | undefined;
  if (mode === "request" && ourEnum && theirEnum) {
    for (const v of ourEnum) if (!theirEnum.includes(v)) out.push(`${at}: we may send ${JSON.stringify(v)}, not in the document's enum`);
  }
  if (mode === "response" && ourEnum && theirEnum) {
    for (const v of theirEnum) if (!ourEnum.includes(v)) out.push(`${at}: the document may answer ${JSON.stringify(v)}, which we reject`);
  }
  return out;
}

export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): Schema {
  return z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Schema;
}
