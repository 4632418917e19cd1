/**
 * `pulumi import --file` of objects made outside the stack. The engine cannot read a dynamic
 * resource for an import (pulumi/pulumi#16175), but since 3.254 it takes the state from the
 * file; `importFile` (pulumi-neon-auth/import) writes that state from what Neon shows. What the
 * service cannot show is a placeholder the program's value takes the place of (the SMTP password,
 * a branch's OAuth client secret) or, where Neon shows no client id (a project's OAuth provider),
 * set by the first `up`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { branchImportFile, importFile, type ImportFile } from "../../src/import/importFile";
import { expectNoChanges, onFreshEmulator, stackFor, useEmulatorStack, type E2eStack } from "./harness";
import { ALL_KINDS_EMAIL, API_KEY, clearRequestLog, neonConfig, outOfBand, projectConfig, requestLog, snapshot } from "./neon";

const P = "p-import";
const BRANCH = "br-main-p-import";
const GH_SECRET = "gh-secret-import-5e1";
const SMTP_PASSWORD = "smtp-pw-import-9c3";

/** The identity of the project's integration as the emulator lists it: what each child records. */
async function identityAt(em: EmulatorHandle, projectId: string): Promise<{ authProviderProjectId: string; createdAt: string }> {
  const res = await fetch(`${em.url}/projects/${projectId}/auth/integrations`, {
    headers: { authorization: `Bearer ${API_KEY}`, accept: "application/json" },
  });
  const [i] = ((await res.json()) as any).data;
  return { authProviderProjectId: i.auth_provider_project_id, createdAt: i.created_at };
}

describe("pulumi import --file with the state from importFile", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;

  useEmulatorStack({
    emulator: { seedProjects: [`${P}:${BRANCH}`, "p-import-shared"] },
    prepare: async (em) => {
      // Made in the console, before the stack existed.
      const made = [
        await outOfBand(em, "POST", "/projects/auth/create", { auth_provider: "stack", project_id: P, branch_id: BRANCH }),
        await outOfBand(em, "POST", `/projects/${P}/auth/oauth_providers`, {
          id: "github",
          client_id: "gh-client-id",
          client_secret: "console-secret",
        }),
        await outOfBand(em, "POST", `/projects/${P}/auth/domains`, { domain: "https://app.example.com", auth_provider: "stack" }),
        await outOfBand(em, "PATCH", `/projects/${P}/auth/email_server`, { ...ALL_KINDS_EMAIL, password: "console-password" }),
      ];
      expect(made).toEqual([201, 200, 201, 200]);
    },
    stack: (em) => ({
      program: path.join(__dirname, "programs", "all-kinds"),
      config: {
        ...neonConfig(em),
        ...projectConfig(P, BRANCH, { clientSecret: GH_SECRET, smtpPassword: SMTP_PASSWORD }),
        // The integration was made in the console too: the program looks it up.
        integrationId: { value: `${P}/stack` },
        without: { value: JSON.stringify(["keys", "transfer", "user"]) },
      },
    }),
    ready: (s) => ({ em, e2e } = s),
  });

  it("refuses kinds whose state the service cannot show, naming the way instead", async () => {
    await expect(importFile([{ kind: "AuthIntegration" as any, name: "auth", id: `${P}/stack` }], { apiKey: API_KEY, apiUrl: em.url })).rejects.toThrow(
      "AuthIntegration auth cannot be imported: the API never shows its keys again; declare it with `adopt: true` (its keys are regenerated)",
    );
    await expect(
      importFile([{ kind: "RedirectDomain", name: "other", id: `${P}/https://other.example.com` }], { apiKey: API_KEY, apiUrl: em.url }),
    ).rejects.toThrow(`RedirectDomain other: ${P}/https://other.example.com does not exist at Neon`);
  });

  it("reads the key and URL from the stack it is told, as `pulumi up` does; without one it says how", async () => {
    const saved = { ...process.env };
    // The user's shell: the stack's backend and passphrase, no NEON_API_KEY.
    Object.assign(process.env, e2e.env);
    delete process.env.NEON_API_KEY;
    delete process.env.NEON_API_URL;
    const domain = [{ kind: "RedirectDomain", name: "d", id: `${P}/https://app.example.com` }] as const;
    try {
      await expect(importFile(domain)).rejects.toThrow(
        "importFile: no Neon API key is configured: run `pulumi config set --secret neon-auth:apiKey <key>` or set the NEON_API_KEY " +
          'environment variable. It runs outside Pulumi: pass `{ stack: "<name>" }` to read that stack\'s configuration',
      );
      const file = await importFile(domain, { stack: e2e.stack.name, cwd: e2e.dir });
      expect(file.resources.map((r) => [r.id, r.outputs.domain])).toEqual([[`${P}/https://app.example.com`, "https://app.example.com"]]);
    } finally {
      process.env = saved;
    }
  });

  it("imports what the service shows whole (shared-key OAuth, shared email) with no change at all", async () => {
    const S = "p-import-shared";
    const made = [
      await outOfBand(em, "POST", "/projects/auth/create", { auth_provider: "stack", project_id: S, branch_id: `br-main-${S}` }),
      await outOfBand(em, "POST", `/projects/${S}/auth/oauth_providers`, { id: "google" }),
      await outOfBand(em, "PATCH", `/projects/${S}/auth/email_server`, { type: "shared" }),
    ];
    expect(made).toEqual([201, 200, 200]);
    // Both in one stack: the subject (the provider) and the email server beside it.
    const one = await stackFor({
      program: path.join(__dirname, "programs", "one-resource"),
      stackName: "import-shared",
      config: {
        ...neonConfig(em),
        kind: { value: "OAuthProvider" },
        args: { value: JSON.stringify({ providerId: "google" }) },
        others: { value: JSON.stringify([{ kind: "EmailServer", name: "email", args: { type: "shared" } }]) },
        integrationId: { value: `${S}/stack` },
      },
    });
    try {
      const file = await importFile(
        [
          { kind: "OAuthProvider", name: "subject", id: `${S}/google` },
          { kind: "EmailServer", name: "email", id: `${S}/email-server` },
        ],
        { apiKey: API_KEY, apiUrl: em.url },
      );
      fs.writeFileSync(path.join(one.dir, "import.json"), JSON.stringify(file));
      expect(one.cli("import", "--file", "import.json", "--yes", "--generate-code=false", "--protect=false")).toContain("2 imported");
      await expectNoChanges(one.stack, 3);
      const destroy = await one.stack.destroy({ color: "never" });
      expect(destroy.summary.resourceChanges).toEqual({ delete: 3 });
    } finally {
      await one.cleanup();
    }
    const gone = await snapshot(em, S);
    expect([gone.providers, gone.email]).toEqual([[], { type: "shared" }]);
  });

  it("imports each importable kind; the first up sets what the service cannot show, then nothing changes", async () => {
    await clearRequestLog(em);
    const file = await importFile(
      [
        { kind: "OAuthProvider", name: "github", id: `${P}/github` },
        { kind: "RedirectDomain", name: "domain", id: `${P}/https://app.example.com` },
        { kind: "EmailServer", name: "email", id: `${P}/email-server` },
      ],
      { apiKey: API_KEY, apiUrl: em.url },
    );
    // A child records its place inside its integration (the ref), and outputs it beside it.
    const integration = { ...(await identityAt(em, P)), projectId: P };
    expect(file.resources.map((r) => [r.type, r.name, r.id, r.outputs])).toEqual([
      [
        "pulumi-nodejs:dynamic/neon-auth:OAuthProvider",
        "github",
        `${P}/github`,
        { projectId: P, integration, providerId: "github", adopt: false, type: "standard", __provider: expect.stringContaining("OAuthProvider.js") },
      ],
      [
        "pulumi-nodejs:dynamic/neon-auth:RedirectDomain",
        "domain",
        `${P}/https://app.example.com`,
        { projectId: P, integration: { ...integration, authProvider: "stack" }, domain: "https://app.example.com", authProvider: "stack", __provider: expect.stringContaining("RedirectDomain.js") },
      ],
      [
        "pulumi-nodejs:dynamic/neon-auth:EmailServer",
        "email",
        `${P}/email-server`,
        {
          projectId: P,
          integration,
          type: "standard",
          host: "smtp.example.com",
          port: 587,
          username: "apikey",
          senderEmail: "auth@example.com",
          senderName: "Example",
          password: { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", plaintext: JSON.stringify("neon-auth-import:config:smtpPassword") },
          __provider: expect.stringContaining("EmailServer.js"),
        },
      ],
    ]);
    // Writing the file only reads.
    expect(new Set((await requestLog(em)).map((r) => r.method))).toEqual(new Set(["GET"]));
    const importPath = path.join(e2e.dir, "import.json");
    fs.writeFileSync(importPath, JSON.stringify(file, null, 2));

    // The CLI, as a user runs it (the Automation API's exportStack decrypts secrets by design).
    const cli = (...args: string[]) => e2e.cli(...args, "--color", "never");

    await clearRequestLog(em);
    // Codegen is off: it needs a schema, which the dynamic provider has not (GetSchema unimplemented).
    const imported = cli("import", "--file", importPath, "--yes", "--generate-code=false", "--protect=false");
    expect(imported).toContain("3 imported");
    // The engine checks the imported inputs: the password's placeholder passes.
    expect(imported).not.toMatch(/warning|has a problem/);
    // The engine took the state from the file: not one request reached the service. Read in
    // process: the synchronous CLI call blocked the loop past the emulator's keep-alive, so a
    // fetch now may reuse the socket the server is closing (ECONNRESET).
    expect(em.requestLog.list()).toEqual([]);

    const ids = JSON.parse(cli("stack", "export")).deployment.resources.filter((r: any) => r.type.includes("neon-auth")).map((r: any) => r.id);
    expect(ids.sort()).toEqual([`${P}/email-server`, `${P}/github`, `${P}/https://app.example.com`]);

    // The program's password is taken as the one Neon holds; the provider's credentials, of which a
    // project's list shows nothing, are set once by the next up.
    const up = await e2e.stack.up({ color: "never", diff: true });
    expect(up.summary.resourceChanges).toEqual({ same: 3, update: 1 });
    expect(up.stdout).toContain("~ pulumi-nodejs:dynamic/neon-auth:OAuthProvider: (update)");
    const writes = (await requestLog(em)).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
    expect(writes.sort()).toEqual([`PATCH /api/v2/projects/${P}/auth/oauth_providers/github`]);
    const snap = await snapshot(em, P);
    expect(snap.providers).toEqual([{ id: "github", type: "standard" }]);
    expect(snap.domains).toEqual(["https://app.example.com"]);

    await expectNoChanges(e2e.stack, 4);

    const exported = cli("stack", "export");
    for (const secret of [GH_SECRET, SMTP_PASSWORD, "console-secret", "console-password"]) expect(exported).not.toContain(secret);

    const destroy = await e2e.stack.destroy({ color: "never" });
    // The looked-up integration is only forgotten: it stays at Neon.
    expect(destroy.summary.resourceChanges).toEqual({ delete: 4, discard: 1 });
    const gone = await snapshot(em, P);
    expect([gone.providers, gone.domains]).toEqual([[], []]);
    expect(gone.integrations).toEqual([{ auth_provider: "stack", branch_id: BRANCH, owned_by: "neon" }]);
  });
});

describe("a branch imported through the classes (branchImportFile for: dynamic)", () => {
  const PB = "p-import-branch";
  const BB = `br-main-${PB}`;
  const AUTH = `/projects/${PB}/branches/${BB}/auth`;
  const args = (clientSecret: string) => ({
    value: JSON.stringify({
      projectId: PB,
      branchId: BB,
      settings: { magicLink: { enabled: true, expiresIn: 30 } },
      domains: ["https://app.example.com"],
      oauth: [{ name: "github", providerId: "github", clientId: "gh-console-id", clientSecret }],
      users: [],
      noEmail: true,
    }),
    secret: true,
  });

  it("records what the program writes: the GitHub client id Neon returns, settings as declared; no warning, then no changes; a new secret still shows", { timeout: 600_000 }, async () => {
    const stack = (em: EmulatorHandle) => stackFor({ program: path.join(__dirname, "programs", "neon-auth-children"), config: { ...neonConfig(em), args: args("gh-console-secret-41") } });
    await onFreshEmulator(PB, stack, async ({ em, e2e }) => {
      // Set up in the console: a GitHub app of the team's own, sign-in links.
      expect([
        await outOfBand(em, "POST", AUTH, { auth_provider: "better_auth" }),
        await outOfBand(em, "POST", `${AUTH}/oauth_providers`, { id: "github", client_id: "gh-console-id", client_secret: "gh-console-secret-41" }),
        await outOfBand(em, "POST", `${AUTH}/domains`, { domain: "https://app.example.com", auth_provider: "better_auth" }),
        await outOfBand(em, "PATCH", `${AUTH}/plugins/magic-link`, { enabled: true, expires_in: 30 }),
      ]).toEqual([201, 200, 201, 200]);
      const file = (await branchImportFile(PB, BB, { for: "dynamic", apiKey: API_KEY, apiUrl: em.url })) as ImportFile;
      // The program's names for what it declares; the rest of the branch stays outside the stack.
      const names: Record<string, string> = { auth: "auth", github: "github", "domain-app-example-com": "domain-0" };
      file.resources = file.resources.filter((r) => names[r.name] !== undefined).map((r) => ({ ...r, name: names[r.name]! }));
      const github = file.resources.find((r) => r.name === "github")!;
      expect([github.inputs.clientId, github.outputs.clientId]).toEqual(["gh-console-id", "gh-console-id"]);
      expect((file.resources.find((r) => r.name === "auth")!.inputs as any).magicLink).toEqual({ enabled: true, expiresIn: 30, disableSignUp: false });
      const importPath = path.join(e2e.dir, "import.json");
      fs.writeFileSync(importPath, JSON.stringify(file, null, 2));

      const imported = e2e.cli("import", "--file", importPath, "--yes", "--generate-code=false", "--protect=false", "--color", "never");
      expect(imported).toContain("3 imported");
      expect(imported).not.toMatch(/warning|has a problem|almost certainly a bug/);

      // The program declares what was imported (sign-in links with two of the three fields Neon has):
      // the first up changes nothing and takes the program's secret as Neon's (it records it, sending
      // nothing, as the request log below shows); a new one is still a change.
      await clearRequestLog(em);
      expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ same: 4 });
      await e2e.stack.setConfig("args", args("gh-rotated-secret-42"));
      expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ same: 3, update: 1 });
      expect(em.requestLog.list().filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.route}`)).toEqual([
        "PATCH /projects/{project_id}/branches/{branch_id}/auth/oauth_providers/{oauth_provider_id}",
      ]);
      await expectNoChanges(e2e.stack, 4);
      expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 4 });
    });
  });
});
