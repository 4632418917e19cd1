/**
 * Contract-test helpers for the branch-scoped generation: calls go over plain `fetch` to paths built
 * from the endpoint table, and every answer is checked against Neon's OpenAPI document (success
 * bodies by the operation's schema, error bodies by GeneralError).
 */
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import type { EmulatorOptions } from "../../src/emulator";
import { COMMON_ERRORS, fillPath, type AnyEndpoint } from "../../src/schemas/endpoint";
import { BRANCH_SETTINGS, branchEndpoints, type BranchSetting } from "../../src/schemas/endpointsBranch";
import type { Harness, HttpResult } from "./emulator-helpers";
import { PROJECT, BRANCH, startHarness } from "./emulator-helpers";
import { doc, generalError, operation, validate } from "./openapi";

export const B = branchEndpoints;
export const IDS = { project_id: PROJECT, branch_id: BRANCH };

/** The document's closest shape for endpoints newer than 2.7.3. */
const UNDOCUMENTED_SHAPES: Record<string, string> = { testBranchEmailProvider: "SendNeonAuthTestEmailResponse" };

/** Checks one answer of `e` against the table and the OpenAPI document. */
export function checkAnswer(e: AnyEndpoint, r: HttpResult): void {
  const where = `${e.name} answered ${r.status} ${r.text.slice(0, 300)}`;
  if (r.status >= 200 && r.status < 300) {
    expect(e.success, where).toContain(r.status);
    const op = operation(e.method, e.path);
    if (op === undefined && UNDOCUMENTED_SHAPES[e.name] === undefined) {
      // Newer than the document and with no shape of it to borrow: the table's own schema.
      expect(e.response?.safeParse(r.json).success ?? r.text === "", where).toBe(true);
      return;
    }
    const shape = op ? op.response(r.status) : { $ref: `#/components/schemas/${UNDOCUMENTED_SHAPES[e.name]}` };
    if (shape === undefined) expect(r.text, where).toBe("");
    else expect(validate(shape, r.json), where).toEqual([]);
    return;
  }
  expect(Object.keys({ ...COMMON_ERRORS, ...e.errors }).map(Number), where).toContain(r.status);
  expect(validate(generalError, r.json), where).toEqual([]);
}

export interface CallOptions {
  body?: unknown;
  key?: string | null;
  rawBody?: string;
}

/** Calls an entry of the table on the emulator and checks the answer. */
export function caller(h: Harness) {
  return async (e: AnyEndpoint, params: Record<string, string>, opts: CallOptions = {}): Promise<HttpResult> => {
    const r = await h.api(e.method, fillPath(e.path, params), opts);
    checkAnswer(e, r);
    return r;
  };
}

/** Enables Better Auth (or another provider) on a branch of the seeded project. */
export async function enable(h: Harness, ids = IDS, provider = "better_auth"): Promise<HttpResult> {
  const r = await caller(h)(B.enableBranchAuth, ids, { body: { auth_provider: provider } });
  if (r.status !== 201) throw new Error(`enable: ${r.status} ${r.text}`);
  return r;
}

export { doc };

/**
 * The fixture of a branch contract file: one emulator for the file, reset before each test (after
 * the file's own `beforeEach` hooks registered before this call). `ready` gets the harness and
 * its caller once started.
 */
export function useBranchHarness(options: EmulatorOptions, ready: (t: { h: Harness; call: ReturnType<typeof caller> }) => void): void {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness(options);
    ready({ h, call: caller(h) });
  });
  afterAll(async () => {
    await h?.close();
  });
  beforeEach(async () => {
    await h!.control("POST", "/reset");
  });
}

/**
 * A write of a setting of the table that turns each of Neon's initial switches (its booleans), and
 * the setting it leaves: what every row's PATCH must do on the emulator, and any row's client method.
 */
export function switched(row: BranchSetting): { body: Record<string, boolean>; after: Record<string, unknown> } {
  const writable = row.write.request.shape as Record<string, unknown>;
  const body = Object.fromEntries(Object.entries(row.initial).flatMap(([k, v]) => (typeof v === "boolean" && k in writable ? [[k, !v]] : [])));
  return { body, after: { ...row.initial, ...body } };
}

/** The settings of the aggregate read (`GET …/auth/plugins`), each under its key with `value(row)`. */
export const aggregated = (value: (row: BranchSetting) => unknown) => Object.fromEntries(BRANCH_SETTINGS.filter((row) => row.aggregated).map((row) => [row.key, value(row)]));
