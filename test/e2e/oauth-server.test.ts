/**
 * examples/mcp-server through the engine: a branch's Neon Auth as the OAuth server of an MCP
 * server, a confidential and a public client, its trusted domain. Up, no changes, a redirect URI
 * changed in place, a secret rotated (the old one refused by the emulator), drift (a client
 * deleted and a setting changed outside the stack) shown by refresh and repaired by up, destroy;
 * the client secrets never in state, diffs or logs. Then what is refused: a non-root branch
 * before anything is written, and at preview a client resource the server does not list and
 * pages off the declared trusted domains.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { importFile } from "../../src/import/importFile";
import { capture, expectNoSecretAnywhere, found } from "./census";
import { changesOf, expectNoChanges, stackFor, useEmulatorStack } from "./harness";
import { API_KEY, clearRequestLog, neonConfig, newBranch, outOfBand, requestLog } from "./neon";
import { emulatorOnlyIt } from "./remote";

const PROGRAM = path.resolve(__dirname, "../../examples/mcp-server");
const P = "p-mcp-server";
const B = `br-main-${P}`;
const AUTH = `/projects/${P}/branches/${B}/auth`;
const MCP = "https://mcp.example.com/mcp";

async function get(em: EmulatorHandle, p: string): Promise<any> {
  const res = await fetch(`${em.url}${p}`, { headers: { authorization: `Bearer ${API_KEY}` } });
  expect(res.status, `GET ${p}`).toBe(200);
  return res.json();
}

/** The clients at the emulator, by name, without the server-made fields. */
async function clients(em: EmulatorHandle, auth = AUTH): Promise<Record<string, any>> {
  const list = (await get(em, `${auth}/oauth-provider/clients`)).clients as any[];
  return Object.fromEntries(list.map(({ name, created_at: _, ...c }) => [name, c]));
}

async function secretValid(em: EmulatorHandle, clientId: string, secret: string): Promise<boolean> {
  const res = await fetch(`${em.controlUrl}/projects/${P}/branches/${B}/oauth_client_secret_check`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_id: clientId, client_secret: secret }),
  });
  return ((await res.json()) as { valid: boolean }).valid;
}

describe("examples/mcp-server: the OAuth server and its clients", () => {
  let em: EmulatorHandle;
  useEmulatorStack({ emulator: { seedProjects: [`${P}:${B}`] }, ready: (s) => ({ em } = s) });

  emulatorOnlyIt("lost answers the emulator injects, and client secrets checked at its control route")("up, no changes, a redirect URI in place, rotation, drift repaired, destroy; no secret in plain text", { timeout: 600_000 }, async () => {
    const captured = capture();
    const { seen, LOUD, DEBUG, failing } = captured;
    const s = await stackFor({ program: PROGRAM, config: { ...neonConfig(em), projectId: { value: P }, branchId: { value: B } } });
    const secrets: [string, string][] = [];
    try {
      // Both clients' creates lose their answers after Neon acted: each is found by its name, and
      // the confidential one gets a new secret, since nobody saw the first.
      const CLIENTS = "/projects/{project_id}/branches/{branch_id}/auth/oauth-provider/clients";
      for (let i = 0; i < 2; i++) em.injectFaults({ kind: "lost", method: "POST", path: CLIENTS });
      const up = await s.stack.up(LOUD);
      // The stack, NeonAuth, the trusted domain, two clients.
      expect(changesOf(up.summary.resourceChanges)).toEqual({ create: 5 });
      const writes = (await requestLog(em)).filter((r: any) => r.route.startsWith(CLIENTS) && r.method === "POST").map((r: any) => `${r.route.slice(CLIENTS.length)} ${r.status}${r.fault ? `/${r.fault}` : ""}`);
      expect(writes.sort()).toEqual([" 201/lost", " 201/lost", "/{client_id}/rotate_secret 200"]);
      expect(await get(em, `${AUTH}/plugins/oauth-provider`)).toEqual({
        enabled: true,
        login_page: "https://app.example.com/sign-in",
        consent_page: "https://app.example.com/consent",
        mcp: { resource: MCP },
        resources: [MCP],
      });
      const serverId = up.outputs.serverClientId!.value as string;
      const cliId = up.outputs.cliClientId!.value as string;
      const first = up.outputs.serverClientSecret!;
      expect(first.secret).toBe(true);
      secrets.push(["the first client secret", first.value]);
      expect(await clients(em)).toEqual({
        "Acme MCP gateway": { client_id: serverId, type: "confidential", redirect_uris: ["https://app.example.com/oauth/callback"], resources: [MCP], skip_consent: false, disabled: false },
        "Acme CLI": { client_id: cliId, type: "public", redirect_uris: ["http://127.0.0.1:8976/callback"], resources: [MCP], skip_consent: false, disabled: false },
      });
      expect(await secretValid(em, serverId, first.value)).toBe(true);
      // Importable by id; Neon never shows the secret again, so the import file has none.
      const file = await importFile([{ kind: "OAuthClient", name: "c", id: `${P}/${B}/${serverId}` }], { apiKey: API_KEY, apiUrl: em.url });
      const { __provider, integration, ...imported } = file.resources[0]!.inputs;
      // Its place is inside its integration (the ref both faces record).
      const ref = integration as { projectId?: string; branchId?: string };
      expect([typeof __provider, { projectId: ref.projectId, branchId: ref.branchId }, imported]).toEqual([
        "string",
        { projectId: P, branchId: B },
        { name: "Acme MCP gateway", redirectUris: ["https://app.example.com/oauth/callback"], type: "confidential", resources: [MCP], skipConsent: false, disabled: false },
      ]);
      expect(JSON.stringify(file)).not.toContain(first.value);

      // A redirect URI changed: the client is updated in place, its id and secret kept.
      await s.stack.setConfig("serverRedirectUris", { value: JSON.stringify(["https://app.example.com/oauth/v2/callback"]) });
      const preview = await s.stack.preview(LOUD);
      expect(changesOf(preview.changeSummary)).toEqual({ update: 1 });
      expect(seen.join("\n")).toMatch(/~ redirectUris/);
      await clearRequestLog(em);
      const moved = await s.stack.up(LOUD);
      expect(changesOf(moved.summary.resourceChanges)).toEqual({ update: 1 });
      expect((await requestLog(em)).filter((r) => r.method !== "GET").map(({ method, path, status }) => ({ method, path, status }))).toEqual([
        { method: "PATCH", path: `/api/v2${AUTH}/oauth-provider/clients/${serverId}`, status: 200 },
      ]);
      expect([moved.outputs.serverClientId!.value, moved.outputs.serverClientSecret!.value]).toEqual([serverId, first.value]);
      expect((await clients(em))["Acme MCP gateway"].redirect_uris).toEqual(["https://app.example.com/oauth/v2/callback"]);

      // Rotation: a new secret in the output, the old one refused from then on.
      await s.stack.setConfig("rotation", { value: "2026-11" });
      // With --debug: the engine's events (less the SDK's own RPC-response lines, README: Secrets).
      const rotated = await s.stack.up(DEBUG);
      expect(changesOf(rotated.summary.resourceChanges)).toEqual({ update: 1 });
      const second = rotated.outputs.serverClientSecret!;
      secrets.push(["the rotated client secret", second.value]);
      expect([second.secret, rotated.outputs.serverClientId!.value, second.value === first.value]).toEqual([true, serverId, false]);
      expect([await secretValid(em, serverId, first.value), await secretValid(em, serverId, second.value)]).toEqual([false, true]);

      // Drift: the CLI client deleted and the consent page changed outside the stack.
      expect(await outOfBand(em, "DELETE", `${AUTH}/oauth-provider/clients/${cliId}`)).toBe(200);
      expect(await outOfBand(em, "PATCH", `${AUTH}/plugins/oauth-provider`, { consent_page: "https://app.example.com/other" })).toBe(200);
      const refresh = await s.stack.refresh(LOUD);
      expect(changesOf(refresh.summary.resourceChanges)).toEqual({ delete: 1, update: 1 });
      const repair = await s.stack.preview(LOUD);
      // The client comes back as a new one (a new id); the setting is written back.
      expect(changesOf(repair.changeSummary)).toEqual({ create: 1, update: 1 });
      const repaired = await s.stack.up(LOUD);
      expect(changesOf(repaired.summary.resourceChanges)).toEqual({ create: 1, update: 1 });
      const newCli = repaired.outputs.cliClientId!.value as string;
      expect(newCli).not.toBe(cliId);
      expect(Object.keys(await clients(em)).sort()).toEqual(["Acme CLI", "Acme MCP gateway"]);
      expect((await get(em, `${AUTH}/plugins/oauth-provider`)).consent_page).toBe("https://app.example.com/consent");

      // A client deleted outside the stack meets an `up` that changes it, with no refresh first:
      // the update says what to do, and refresh then `up` register a new one.
      expect(await outOfBand(em, "DELETE", `${AUTH}/oauth-provider/clients/${serverId}`)).toBe(200);
      await s.stack.setConfig("serverRedirectUris", { value: JSON.stringify(["https://app.example.com/oauth/v3/callback"]) });
      const gone = await failing(() => s.stack.up(LOUD));
      expect(gone).toContain(`OAuthClient "Acme MCP gateway" (client id ${serverId}) is gone from branch ${B} of project ${P}: it was deleted outside this stack.`);
      expect(changesOf((await s.stack.refresh(LOUD)).summary.resourceChanges)).toEqual({ delete: 1 });
      const remade = await s.stack.up(LOUD);
      expect(changesOf(remade.summary.resourceChanges)).toEqual({ create: 1 });
      const third = remade.outputs.serverClientSecret!;
      secrets.push(["the secret of the client made again", third.value]);
      expect(await secretValid(em, remade.outputs.serverClientId!.value as string, third.value)).toBe(true);
      await expectNoChanges(s.stack);

      await expectNoSecretAnywhere({ cli: s.cli, controlUrl: em.controlUrl, captured, errors: "an update of a client deleted outside" }, secrets);

      const destroy = await s.stack.destroy(LOUD);
      expect(changesOf(destroy.summary.resourceChanges)).toEqual({ delete: 5 });
      expect((await fetch(`${em.url}${AUTH}`, { headers: { authorization: `Bearer ${API_KEY}` } })).status).toBe(404);
      expect(found([["the operations' output", seen.join("\n")]], secrets)).toEqual([]);
    } finally {
      await s.cleanup();
    }
  });

  it("refuses a non-root branch before writing, and at preview a resource off the server and pages off the trusted domains", { timeout: 600_000 }, async () => {
    const child = await newBranch(em, P, "pr-7");
    const s = await stackFor({ program: PROGRAM, config: { ...neonConfig(em), projectId: { value: P }, branchId: { value: child } } });
    try {
      await clearRequestLog(em);
      const err = await s.stack.up({ color: "never" }).then(() => undefined, (e: Error) => e);
      expect(err?.message).toContain(
        `NeonAuth oauthServer.enabled: Neon enables the OAuth server on the project's root branch only, and branch ${child} was made from ${B}.`,
      );
      // Only the branch was read: Neon Auth was not enabled there.
      expect((await requestLog(em)).filter((r) => r.method !== "GET")).toEqual([]);
      expect((await fetch(`${em.url}/projects/${P}/branches/${child}/auth`, { headers: { authorization: `Bearer ${API_KEY}` } })).status).toBe(404);

      await s.stack.setConfig("branchId", { value: B });
      await s.stack.setConfig("cliResources", { value: JSON.stringify([MCP, "https://other.example.com"]) });
      await s.stack.setConfig("trustedDomain", { value: "https://www.example.com" });
      await clearRequestLog(em);
      const refused = await s.stack.preview({ color: "never" }).then(() => undefined, (e: Error) => e);
      expect(refused?.message).toContain(
        'OAuthClient "mcp-cli" resources: https://other.example.com is not on the OAuth server of its NeonAuth (oauthServer.resources or oauthServer.mcp.resource)',
      );
      expect(refused?.message).toContain('NeonAuth "auth" oauthServer.loginPage and oauthServer.consentPage: not on any trusted domain this program declares for it (RedirectDomain).');
      expect(await requestLog(em)).toEqual([]);
      await s.stack.removeConfig("cliResources");
      await s.stack.removeConfig("trustedDomain");
      // The stack resource was made by the refused `up`; the rest is still to create.
      expect(changesOf((await s.stack.preview({ color: "never" })).changeSummary)).toEqual({ create: 4 });
    } finally {
      await s.cleanup();
    }
  });
});
