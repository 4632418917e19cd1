/**
 * Every entry of the endpoint table against Neon's OpenAPI document (@neondatabase/api-client
 * 2.7.3): method and path exist, success statuses agree, request and response schemas are
 * compatible; the only differences allowed are the ones the entry declares.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { SMTP_FIELDS } from "../../src/schemas/branchAuth";
import { branchEndpoints, ENDPOINTS, type AnyEndpoint } from "../../src/schemas/endpoints";
import { compare, jsonSchemaOf, operation } from "./openapi";

function deviation<K extends AnyEndpoint["deviations"][number]["kind"]>(e: AnyEndpoint, kind: K) {
  return e.deviations.find((d) => d.kind === kind) as Extract<AnyEndpoint["deviations"][number], { kind: K }> | undefined;
}

describe("the endpoint table against the OpenAPI document", () => {
  it("has unique names and unique method + path pairs", () => {
    expect(new Set(ENDPOINTS.map((e) => e.name)).size).toBe(ENDPOINTS.length);
    expect(new Set(ENDPOINTS.map((e) => `${e.method} ${e.path}`)).size).toBe(ENDPOINTS.length);
  });

  for (const e of ENDPOINTS) {
    describe(`${e.name}: ${e.method} ${e.path}`, () => {
      const op = operation(e.method, e.path);

      if (deviation(e, "not-in-document")) {
        it("is declared newer than the document, and the document indeed lacks it", () => {
          expect(op).toBeUndefined();
        });
        return;
      }

      it("exists in the document with the same path parameters", () => {
        expect(op?.operationId).toMatch(/^[a-zA-Z]+$/);
        expect([...e.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])).toEqual([...e.pathParams]);
      });

      it("agrees on success statuses (or declares the difference)", () => {
        const documented = op?.success ?? [];
        const declared = deviation(e, "status");
        if (declared) {
          expect(documented).toEqual([...declared.document]);
          expect(e.success).toEqual(expect.arrayContaining([...declared.document]));
        } else {
          expect(documented).toContain(e.success[0]);
        }
        for (const s of documented) expect(e.success).toContain(s);
      });

      it("sends only what the document accepts, and all it requires", () => {
        if (e.request === undefined) {
          // The document may describe an optional body we never send (delete_data on project level).
          const required = (op?.request as { required?: string[] } | undefined)?.required ?? [];
          expect(required).toEqual([]);
          return;
        }
        const optionalOk = deviation(e, "request-optional")?.fields ?? [];
        expect(compare(jsonSchemaOf(e.request, "input"), op?.request, "request", optionalOk)).toEqual([]);
      });

      it("sends only query parameters the document knows, and all it requires", () => {
        const ours = e.query === undefined ? {} : (e.query.shape as Record<string, z.ZodType>);
        const documented = op?.query ?? [];
        expect(Object.keys(ours).filter((n) => !documented.some((d) => d.name === n))).toEqual([]);
        for (const d of documented) {
          if (d.required) expect([d.name, ours[d.name]?.safeParse(undefined).success]).toEqual([d.name, false]);
        }
      });

      it("expects only what the document promises in the success body", () => {
        const documented = op?.response(e.success.find((s) => op.success.includes(s)) ?? e.success[0] as number);
        if (e.response === undefined) {
          // Reading nothing is fine where the document promises nothing (EmptyResponse, an object without fields).
          if (documented?.$ref !== "#/components/schemas/EmptyResponse") expect(documented).toBeUndefined();
          return;
        }
        expect(compare(jsonSchemaOf(e.response, "output"), documented, "response")).toEqual([]);
      });
    });
  }
});

describe("the comparison itself", () => {
  const op = operation("POST", "/projects/{project_id}/branches/{branch_id}/auth/oauth_providers");
  const sent = (s: z.ZodType) => compare(jsonSchemaOf(s, "input"), op?.request, "request");
  const got = (s: z.ZodType) => compare(jsonSchemaOf(s, "output"), op?.response(200), "response");

  it("flags a request field the document does not know, a required field left optional and an enum value it lacks", () => {
    expect(sent(z.strictObject({ id: z.enum(["google"]), client_idd: z.string() }))).toEqual(["$.client_idd: not in the document"]);
    expect(sent(z.strictObject({ id: z.enum(["google"]).optional() }))).toEqual(["$.id: required by the document, optional here"]);
    expect(sent(z.strictObject({ id: z.enum(["google", "apple"]) }))).toEqual(['$.id: we may send "apple", not in the document\'s enum']);
    expect(sent(z.strictObject({ id: z.enum(["google"]), client_id: z.number() }))).toEqual(["$.client_id: number here, string in the document"]);
  });

  it("flags a response field we require that the document does not promise", () => {
    expect(got(z.object({ id: z.string(), type: z.string(), client_id: z.string() }))).toEqual([
      "$.client_id: required here, optional in the document",
    ]);
    expect(got(z.object({ id: z.string(), secret: z.string() }))).toEqual(["$.secret: not in the document"]);
    expect(got(z.object({ id: z.enum(["google"]), type: z.string() }))).toEqual([
      '$.id: the document may answer "github", which we reject',
      '$.id: the document may answer "microsoft", which we reject',
      '$.id: the document may answer "vercel", which we reject',
    ]);
  });

  it("needs the declared deviation for partial email-provider updates", () => {
    const e = branchEndpoints.updateBranchEmailProvider;
    const problems = compare(jsonSchemaOf(e.request, "input"), operation(e.method, e.path)?.request, "request");
    expect(problems).toEqual(SMTP_FIELDS.map((f) => `$<standard>.${f}: required by the document, optional here`));
  });
});
