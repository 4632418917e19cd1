/**
 * Newer-Neon mode (issue 39): the emulator answers as a later Neon would, so that the package's own
 * tests meet one before its users do. Every object of every API answer gains a field today's API
 * does not have, a new integration lists members of ids and types it does not have, control routes
 * answer as ever, and the added field written back by a client is accepted even strict, and stored.
 * Answers say less, and in pages (issue 48): unset settings are null, an integration's JWKS URL and
 * database are left out, and the lists the package reads whole come one member a page.
 * Plain fetch: Neon's 2.7.3 document cannot describe a newer Neon's answers, so they are not
 * checked against it here; the values are.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type EmulatorHandle } from "../../src/emulator";
import { parseArgs } from "../../src/emulator/cli";
import { FOREIGN_BRANCH_PROVIDER, FOREIGN_CLIENT as NEWER_NEON_CLIENT, FOREIGN_DOMAIN, FOREIGN_PROJECT_PROVIDER } from "../newer-neon";
import { betterAuthEnabled, betterAuthRecord, manualClock } from "./emulator-helpers";
import { aggregated } from "./branch-helpers";

const KEY = "newer-neon-key";
const P = "p-newer";
const BR = `br-main-${P}`;
const AUTH = `/projects/${P}/branches/${BR}/auth`;
const clock = manualClock();
const AT = new Date(clock.now()).toISOString().replace(".000Z", "Z");
const MCP = "https://mcp.example.com/mcp";

/** The field and value every object gains, written out here rather than taken from the code under test. */
const ADDED = { added_by_newer_neon: { since: "2099-01-01", entries: [{ name: "first", enabled: true }, { name: "second", enabled: false }] } };
const FOREIGN_CLIENT = { ...NEWER_NEON_CLIENT, created_at: AT, ...ADDED };

let em: EmulatorHandle;

interface Answer {
  status: number;
  json: any;
  text: string;
}

async function api(method: string, path: string, body?: unknown, on = em): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${KEY}`, accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(on.url + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, text, json: text === "" ? undefined : JSON.parse(text) };
}

/**
 * A list read as the package reads it: every page, each asked for with the cursor the one before
 * names. Each page but the last holds one member and `pagination: {cursor, has_more: true}`.
 */
async function everyPage(path: string, key: string): Promise<{ members: any[]; pages: any[] }> {
  const pages: any[] = [];
  for (let cursor: string | undefined; ; ) {
    const page = (await api("GET", cursor === undefined ? path : `${path}?cursor=${encodeURIComponent(cursor)}`)).json;
    pages.push(page);
    cursor = page.pagination?.has_more === true ? page.pagination.cursor : undefined;
    if (cursor === undefined) return { members: pages.flatMap((p) => p[key]), pages };
  }
}
/** An integration as `GET …/auth` answers it here: without what only describes it. */
const said = ({ jwks_url: _, db_name: __, ...rest }: Record<string, unknown>) => rest;

async function control(path: string): Promise<Answer> {
  const res = await fetch(em.controlUrl + path, { headers: { authorization: `Bearer ${em.controlToken}` } });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) };
}

beforeAll(async () => {
  em = await startEmulator({ apiKeys: [KEY], seedProjects: [`${P}:${BR}`], strict: true, newerNeon: true, clock, rateLimit: "off" });
});
afterAll(async () => {
  await em?.close();
});
beforeEach(async () => {
  await fetch(`${em.controlUrl}/reset`, { method: "POST", headers: { "content-type": "application/json" } });
});

async function enableBranch(): Promise<void> {
  expect((await api("POST", AUTH, { auth_provider: "better_auth" })).status).toBe(201);
}

describe("newer-Neon mode", () => {
  it("adds added_by_newer_neon to every object of an answer, at every depth and inside lists, and changes no value", async () => {
    const created = await api("POST", AUTH, { auth_provider: "better_auth" });
    const id = created.json.auth_provider_project_id as string;
    expect(created.json).toEqual({ ...betterAuthEnabled(id), ...ADDED });
    expect((await api("GET", AUTH)).json).toEqual({ ...said(betterAuthRecord(id, P, BR, AT)), ...ADDED });

    // An object inside an object inside the answer, and a list replaced whole.
    const patched = await api("PATCH", `${AUTH}/plugins/oauth-provider`, { enabled: true, mcp: { resource: MCP }, resources: [MCP] });
    const server = { enabled: true, mcp: { resource: MCP, ...ADDED }, resources: [MCP], ...ADDED };
    expect([patched.status, patched.json]).toEqual([200, server]);
    expect((await api("GET", `${AUTH}/plugins/oauth-provider`)).json).toEqual(server);

    // The aggregate read: each setting a write has set (the others are null), and each provider in the list (the foreign one too).
    expect((await api("PATCH", `${AUTH}/plugins/magic-link`, { enabled: true })).status).toBe(200);
    const plugins = (await api("GET", `${AUTH}/plugins`)).json;
    expect(plugins).toEqual({
      ...aggregated(() => null),
      magic_link: { enabled: true, expires_in: 5, disable_sign_up: false, ...ADDED },
      email_provider: { type: "shared", ...ADDED },
      oauth_providers: [
        { id: "google", type: "shared", ...ADDED },
        { ...FOREIGN_BRANCH_PROVIDER, ...ADDED },
      ],
      allow_localhost: true,
      ...ADDED,
    });

    // Answers of the project API too, down to an empty object, and errors.
    expect((await api("GET", `/projects/${P}/branches/${BR}`)).json.annotation).toEqual({ object: { type: "console/branch", id: BR, ...ADDED }, value: { ...ADDED }, ...ADDED });
    const missing = await api("DELETE", `${AUTH}/oauth-provider/clients/no-such-client`);
    expect([missing.status, missing.json]).toEqual([404, { code: "", message: "OAuth client no-such-client not found", request_id: missing.json.request_id, ...ADDED }]);
    const denied = await fetch(`${em.url}/projects/${P}`);
    expect([denied.status, await denied.json()]).toEqual([401, expect.objectContaining(ADDED)]);
  });

  it("starts a new branch integration with an OAuth client, a provider and a trusted domain nobody declared, stored like any other", async () => {
    await enableBranch();
    expect((await api("GET", `${AUTH}/oauth-provider/clients`)).json).toEqual({ clients: [FOREIGN_CLIENT], ...ADDED });
    const providers = await everyPage(`${AUTH}/oauth_providers`, "providers");
    expect(providers.members).toEqual([
      { id: "google", type: "shared", ...ADDED },
      { ...FOREIGN_BRANCH_PROVIDER, ...ADDED },
    ]);
    expect(providers.pages.map((p) => p.pagination)).toEqual([{ cursor: "newer-neon-page-1", has_more: true, ...ADDED }, undefined]);
    expect((await api("POST", `${AUTH}/domains`, { domain: "https://app.example.com", auth_provider: "better_auth" })).status).toBe(201);
    const domains = await everyPage(`${AUTH}/domains`, "domains");
    expect(domains.members).toEqual([
      { domain: FOREIGN_DOMAIN, auth_provider: "better_auth", ...ADDED },
      { domain: "https://app.example.com", auth_provider: "better_auth", ...ADDED },
    ]);
    expect(domains.pages.map((p) => Object.keys(p).sort())).toEqual([["added_by_newer_neon", "domains", "pagination"], ["added_by_newer_neon", "domains"]]);

    // They are the branch's own objects: what deletes them shows in what the branch holds.
    const held = (await control(`/projects/${P}/branches/${BR}/auth`)).json.auth;
    expect([held.oauth_clients.map((c: any) => [c.client_id, c.type]), held.oauth_providers, held.domains]).toEqual([
      [[FOREIGN_CLIENT.client_id, "dynamic"]],
      [{ id: "google", type: "shared" }, FOREIGN_BRANCH_PROVIDER],
      [FOREIGN_DOMAIN, "https://app.example.com"],
    ]);
    expect((await api("DELETE", `${AUTH}/oauth-provider/clients/${FOREIGN_CLIENT.client_id}`)).status).toBe(200);
    expect((await api("GET", `${AUTH}/oauth-provider/clients`)).json).toEqual({ clients: [], ...ADDED });
    // Its id is not one today's API takes in a path, so a package cannot remove it by mistake.
    const apple = await api("DELETE", `${AUTH}/oauth_providers/apple`);
    expect([apple.status, apple.json.message]).toEqual([400, 'oauth_provider_id: must be one of "google", "github", "microsoft", "vercel"']);
  });

  it("starts a new project-level integration with a provider and a trusted domain nobody declared", async () => {
    const created = await api("POST", "/projects/auth/create", { auth_provider: "stack", project_id: P, branch_id: BR });
    expect(created.status).toBe(201);
    expect((await api("GET", `/projects/${P}/auth/oauth_providers`)).json).toEqual({ providers: [{ ...FOREIGN_PROJECT_PROVIDER, ...ADDED }], ...ADDED });
    expect((await api("GET", `/projects/${P}/auth/domains`)).json).toEqual({ domains: [{ domain: FOREIGN_DOMAIN, auth_provider: "stack", ...ADDED }], ...ADDED });
    const integration = (await api("GET", `/projects/${P}/auth/integrations`)).json.data[0];
    // Without what only describes it (the JWKS URL, the database).
    expect(Object.keys(integration).sort()).toEqual(["added_by_newer_neon", "auth_provider", "auth_provider_project_id", "branch_id", "created_at", "owned_by"]);
  });

  it("leaves the control routes as they are: no added field (the foreign members are state, so they show)", async () => {
    await enableBranch();
    expect((await control("/health")).json).toEqual({ ok: true });
    const state = await control("/state");
    expect(state.text).not.toContain("added_by_newer_neon");
    expect(state.json.projects.map((p: any) => p.id)).toEqual([P]);
    const branch = await control(`/projects/${P}/branches/${BR}/auth`);
    expect(branch.text).not.toContain("added_by_newer_neon");
    expect(branch.json.auth.domains).toEqual([FOREIGN_DOMAIN]);
    const log = (await control("/requests")).json.requests;
    expect(Object.keys(log[0]).sort()).toEqual(["duration_ms", "key", "method", "path", "request_id", "route", "status", "time"]);
    expect(Object.keys((await control("/faults")).json).sort()).toEqual(["error", "latency", "lock", "lost", "next", "reset"]);
  });

  it("accepts the added field written back even strict, and stores it; any other unknown field is still refused", async () => {
    await enableBranch();
    // A client that keeps what it does not know of `mcp` (replaced whole on PATCH) sends it back.
    const read = (await api("PATCH", `${AUTH}/plugins/oauth-provider`, { enabled: true, mcp: { resource: MCP }, resources: [MCP] })).json;
    const writeBack = { enabled: true, mcp: { ...read.mcp, resource: "https://mcp.example.com/v2" }, resources: [MCP] };
    const r = await api("PATCH", `${AUTH}/plugins/oauth-provider`, writeBack);
    expect([r.status, r.json.mcp]).toEqual([200, { resource: "https://mcp.example.com/v2", ...ADDED }]);
    // Stored: the control route, which adds nothing, shows it where the client put it.
    expect((await control(`/projects/${P}/branches/${BR}/auth`)).json.auth.oauth_server).toEqual({
      enabled: true,
      mcp: { resource: "https://mcp.example.com/v2", ...ADDED },
      resources: [MCP],
    });

    // Outside `mcp` too, and a value of the client's own is kept as given, not replaced by the emulator's.
    const own = { since: "2099-01-01", entries: [] };
    const top = await api("PATCH", `${AUTH}/plugins/oauth-provider`, { enabled: true, added_by_newer_neon: own });
    expect([top.status, top.json.added_by_newer_neon, top.json.mcp]).toEqual([200, own, { resource: "https://mcp.example.com/v2", ...ADDED }]);
    expect((await control(`/projects/${P}/branches/${BR}/auth`)).json.auth.oauth_server.added_by_newer_neon).toEqual(own);

    const other = await api("PATCH", `${AUTH}/plugins/oauth-provider`, { enabled: true, added_by_a_typo: true });
    expect([other.status, other.json.message]).toEqual([400, "added_by_a_typo: is not a known field"]);

    // Today's Neon (strict, without the mode) refuses the field, and adds nothing.
    const today = await startEmulator({ apiKeys: [KEY], seedProjects: [`${P}:${BR}`], strict: true, clock, rateLimit: "off" });
    try {
      expect(Object.keys((await api("POST", AUTH, { auth_provider: "better_auth" }, today)).json)).not.toContain("added_by_newer_neon");
      const refused = await api("PATCH", `${AUTH}/plugins/oauth-provider`, { enabled: true, added_by_newer_neon: own }, today);
      expect([refused.status, refused.json.message]).toEqual([400, "added_by_newer_neon: is not a known field"]);
      expect((await api("GET", `${AUTH}/oauth-provider/clients`, undefined, today)).json).toEqual({ clients: [] });
    } finally {
      await today.close();
    }
  });

  it("is the CLI's --newer-neon", () => {
    expect(parseArgs(["--newer-neon"], {}).newerNeon).toBe(true);
    expect("newerNeon" in parseArgs([], {})).toBe(false);
  });
});
