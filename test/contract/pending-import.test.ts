/**
 * `pendingImportFile` (the README's recovery from an interrupted run) finds every pending create of
 * a kind with a natural key, an OAuth client by its name included (Neon makes its id): the ones
 * the dead run made are in the file under Neon's id, the others left out. Both faces' types, from
 * state as each records a child's inputs (the classes' place fields; the plugin's `integration`).
 */
import { expect, it } from "vitest";
import { pendingImportFile } from "../../src/import/importFile";
import { B, caller, enable, IDS, useBranchHarness } from "./branch-helpers";
import { BRANCH, KEY_A, PROJECT, type Harness } from "./emulator-helpers";

let h: Harness;
let call: ReturnType<typeof caller>;
useBranchHarness({ rateLimit: "off" }, (t) => ({ h, call } = t));

/** A pending create as `pulumi stack export` shows it, of a kind on either face. */
function pending(face: "classes" | "plugin", kind: string, name: string, inputs: Record<string, unknown>) {
  const type = face === "classes" ? `pulumi-nodejs:dynamic/neon-auth:${kind}` : `neon-auth:index:${kind}`;
  const integration = { authProviderProjectId: "x", createdAt: "2026-01-01T00:00:00Z" };
  const place = face === "classes" ? { projectId: PROJECT, branchId: BRANCH, integration } : { integration: { projectId: PROJECT, branchId: BRANCH, ...integration } };
  return { type: "creating", resource: { type, urn: `urn:pulumi:dev::app::${type}::${name}`, inputs: { ...place, ...inputs } } };
}

it("a pending OAuthClient create is imported under Neon's id when a client of its name exists, on either face; one never made is left out", async () => {
  await enable(h);
  await call(B.updateBranchOAuthServerPlugin, IDS, { body: { enabled: true, resources: ["https://api.example.com"] } });
  const made = await call(B.createBranchOAuthClient, IDS, { body: { name: "cli", type: "confidential", redirect_uris: ["https://app.example.com/callback"], resources: ["https://api.example.com"] } });
  expect([made.status, made.text]).toEqual([201, expect.any(String)]);
  const id = `${PROJECT}/${BRANCH}/${made.json.client_id}`;
  const client = { name: "cli", type: "confidential", redirectUris: ["https://app.example.com/callback"] };
  const never = { ...client, name: "never-made" };

  const plugin = await pendingImportFile(
    { deployment: { pending_operations: [pending("plugin", "OAuthClient", "cli", client), pending("plugin", "OAuthClient", "other", never)] } },
    { apiKey: KEY_A, apiUrl: h.emu.url },
  );
  expect(plugin).toEqual({ resources: [{ type: "neon-auth:index:OAuthClient", name: "cli", id }] });

  const classes = await pendingImportFile(
    { deployment: { pending_operations: [pending("classes", "OAuthClient", "cli", client), pending("classes", "OAuthClient", "other", never)] } },
    { apiKey: KEY_A, apiUrl: h.emu.url },
  );
  expect(classes.resources.map((r) => [r.type, r.name, r.id])).toEqual([["pulumi-nodejs:dynamic/neon-auth:OAuthClient", "cli", id]]);
});
