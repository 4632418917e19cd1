/**
 * What someone does in Neon's console (or a newer Neon does by itself) beside a stack, on a root
 * branch with the OAuth server: a Client ID Metadata Documents switch turned on in `mcp`, an OAuth
 * client of a type this package does not know, an email provider of a type it does not know. The
 * stack's refresh passes with no changes, an `up` that changes `mcp.resource` keeps the switch
 * (Neon replaces `mcp` whole; the package sends back what the program does not name), the foreign
 * client is untouched. Then Neon Auth disabled by `destroy` with the default (the `neon_auth` data
 * kept) and the same program brought up again on the same branch: it converges.
 */
import * as path from "node:path";
import { expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, stackFor, type E2eStack } from "./harness";
import { emulator, neonApi, neonConfig } from "./neon";
import { emulatorOnly } from "./remote";

const P = "p-console";
const B = `br-main-${P}`;
const program = (mcpResource: string, cimd?: boolean) => ({
  projectId: P,
  branchId: B,
  settings: {
    appName: "Acme",
    oauthServer: {
      enabled: true,
      loginPage: "https://app.example.com/login",
      consentPage: "https://app.example.com/consent",
      mcp: { resource: mcpResource, ...(cimd === undefined ? {} : { clientIdMetadataDocuments: cimd }) },
    },
  },
  domains: ["https://app.example.com"],
  oauth: [],
  users: [],
  noEmail: true,
  oauthClients: [{ name: "cli", type: "public", redirectUris: ["https://app.example.com/callback"] }],
});

const FOREIGN_CLIENT = {
  client_id: "cimd-claude-7f3a",
  name: "Claude (registered itself)",
  type: "cimd",
  redirect_uris: ["https://claude.ai/api/mcp/auth_callback"],
  resources: [],
  skip_consent: false,
  disabled: false,
  created_ms: 0,
};

/** A call to the branch's auth API, as the console makes it: its answer. */
async function api(em: EmulatorHandle, method: string, p: string, body?: unknown): Promise<any> {
  const res = await neonApi(em, method, `/projects/${P}/branches/${B}/auth${p}`, body);
  expect(res.status).toBe(200);
  return res.json;
}

/** What the console (through Neon's own records) changed beside the stack. */
function consoleChanges(em: EmulatorHandle): void {
  const branch = em.store.data.projects[P]!.branches.find((b) => b.id === B) as any;
  branch.auth.email_provider = { type: "resend", sender_email: "auth@example.com" };
  branch.auth.oauth_clients.push(FOREIGN_CLIENT);
  em.store.mutated();
}

emulatorOnly("changes made in the emulator's store, standing in for the console")("changes made in Neon's console beside a stack", () => {
  it("CIMD switch, a client and an email provider of unknown types: refresh passes, up keeps them; destroy then up converges", { timeout: 600_000 }, async () => {
    const em = await emulator({ seedProjects: [`${P}:${B}`], rateLimit: "off" });
    let e2e: E2eStack | undefined;
    const setProgram = (mcpResource: string, cimd?: boolean) => e2e!.stack.setConfig("args", { value: JSON.stringify(program(mcpResource, cimd)), secret: true });
    try {
      e2e = await stackFor({ program: path.join(__dirname, "programs", "neon-auth-children"), config: { ...neonConfig(em), args: { value: JSON.stringify(program("https://mcp.example.com")), secret: true } } });
      expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ create: 4 });

      // The console turns CIMD on (a PATCH of mcp, which replaces it whole); Neon's records gain the rest.
      await api(em, "PATCH", "/plugins/oauth-provider", { mcp: { resource: "https://mcp.example.com", client_id_metadata_documents: true } });
      consoleChanges(em);
      expect(changesOf((await e2e.stack.refresh({ color: "never", expectNoChanges: true })).summary.resourceChanges)).toEqual({});

      await setProgram("https://mcp2.example.com");
      expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ update: 1 });
      expect((await api(em, "GET", "/plugins/oauth-provider")).mcp).toEqual({ resource: "https://mcp2.example.com", client_id_metadata_documents: true });
      const clients = (await api(em, "GET", "/oauth-provider/clients")).clients;
      expect(clients.map((c: any) => `${c.name}:${c.type}`)).toEqual(["cli:public", "Claude (registered itself):cimd"]);
      expect(clients[1]).toEqual({ ...FOREIGN_CLIENT, created_ms: undefined, created_at: "1970-01-01T00:00:00Z" });
      expect(await api(em, "GET", "/email_provider")).toEqual({ type: "resend", sender_email: "auth@example.com" });

      // Declared, the switch is the program's.
      await setProgram("https://mcp2.example.com", false);
      expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ update: 1 });
      expect((await api(em, "GET", "/plugins/oauth-provider")).mcp).toEqual({ resource: "https://mcp2.example.com", client_id_metadata_documents: false });

      // Destroy with the default keeps `neon_auth`; Neon's guide: "You can re-enable later without losing user data".
      expect(changesOf((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges)).toEqual({ delete: 4 });
      expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ create: 4 });
      expect((await api(em, "GET", "/plugins/oauth-provider")).mcp).toEqual({ resource: "https://mcp2.example.com", client_id_metadata_documents: false });
      await expectNoChanges(e2e.stack);
    } finally {
      await e2e?.cleanup();
      await em.close();
    }
  });
});
