/**
 * Imports that preview clean (issue 41): a branch made outside any stack, with a Microsoft and a
 * GitHub provider on their own credentials, an SMTP server, webhooks and an OAuth server with a
 * client, taken into a TypeScript, a Go and a YAML program on the plugin as the README's import
 * section says ("adopt this existing branch"): `neon-auth-import`,
 * `pulumi import --file --out`, `neon-auth-import --program`, then the `pulumi config set` lines it
 * printed. What Neon returns (the client ids) is imported; what it never returns (the client
 * secrets, the SMTP password) and the webhook URL it does return are read from the stack's
 * configuration; a provider the package cannot manage is left out with a note. The preview after
 * the config lines shows no changes, and no written file holds a secret. Each written program
 * declares each kind it imported once (the language host's GenerateProgram), each child in its
 * integration; the TypeScript one then updates the branch, and the YAML one destroys what it adopted.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { expectNoChanges, pluginStack, type E2eStack } from "./harness";
import { API_KEY, branchSnapshot, clearRequestLog, emulator, neonConfig, outOfBand, requestLog } from "./neon";
import { emulatorOnly } from "./remote";

const PROGRAMS = path.join(__dirname, "programs");
const P = "p-import-secrets";
const B = `br-main-${P}`;
const BRANCH = `/projects/${P}/branches/${B}/auth`;
// Each value once, so that one found in a file can only have come from here.
const SECRETS = {
  microsoftClientSecret: "ms-secret-import-3b7e",
  githubClientSecret: "gh-secret-import-8d2a",
  smtpPassword: "smtp-pw-import-6f1c",
  webhookUrl: "https://hooks.example.com/import-secrets-c4e9",
};
/** The trusted domain a newer Neon starts a branch with (FOREIGN_DOMAIN). */
const SITE = "https://console.newer-neon.example.com";
const SMTP = { type: "standard", host: "smtp.example.com", port: 587, username: "apikey", sender_email: "auth@example.com", sender_name: "Example" };

/** Runs the package's `neon-auth-import` as a user does: its stdout and its notes (stderr). */
async function neonAuthImport(em: EmulatorHandle, dir: string, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const importer = path.join(inject("e2eWorkspace"), "node_modules", ".bin", "neon-auth-import");
  const env = { ...process.env, NEON_API_KEY: API_KEY, NEON_API_URL: em.url };
  return promisify(execFile)(importer, args, { env, encoding: "utf8", cwd: dir });
}

/** Every file under `dirs` (the generated SDK and installed packages aside), as text. */
function writtenFiles(...dirs: string[]): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (!["node_modules", "sdk"].includes(e.name)) walk(p);
      } else if (e.isFile()) files.set(p, fs.readFileSync(p, "utf8"));
    }
  };
  for (const d of dirs) walk(d);
  return files;
}

/** The NeonAuth's `ref` as the import recorded it: what each child of the written program names. */
async function importedRef(e2e: E2eStack): Promise<Record<string, string>> {
  const resources = (await e2e.stack.exportStack()).deployment.resources as { type: string; outputs: { ref: Record<string, string> } }[];
  return resources.find((r) => r.type === "neon-auth:index:NeonAuth")!.outputs.ref;
}

/**
 * How many children of a written TypeScript program name their integration whole (`ref`) and how
 * many by its place alone (no auth provider, where a kind's requests name none): keys sorted, as
 * Pulumi's generator writes them.
 */
function integrationLiterals(code: string, ref: Record<string, string>): [number, number] {
  const literal = (r: Record<string, string>) => `integration: {\n${Object.keys(r).sort().map((k) => `        ${k}: "${r[k]}",\n`).join("")}    }`;
  const { authProvider: _, ...placeOnly } = ref;
  return [code.split(literal(ref)).length - 1, code.split(literal(placeOnly)).length - 1];
}

emulatorOnly("the emulator's newer-Neon mode")("neon-auth-import and pulumi import --out: a branch with secrets previews clean in TypeScript, Go and YAML", () => {
  let em: EmulatorHandle;
  let file: string;
  let notes: string;
  const stacks: E2eStack[] = [];

  beforeAll(async () => {
    // A newer Neon: the branch also holds a provider (apple) and a client type this package cannot manage.
    em = await emulator({ seedProjects: [`${P}:${B}`], newerNeon: true });
    const made = [
      await outOfBand(em, "POST", BRANCH, { auth_provider: "better_auth" }),
      await outOfBand(em, "POST", `${BRANCH}/oauth_providers`, { id: "microsoft", client_id: "ms-client-import", client_secret: SECRETS.microsoftClientSecret }),
      await outOfBand(em, "POST", `${BRANCH}/oauth_providers`, { id: "github", client_id: "gh-client-import", client_secret: SECRETS.githubClientSecret }),
      await outOfBand(em, "PATCH", `${BRANCH}/email_provider`, { ...SMTP, password: SECRETS.smtpPassword }),
      await outOfBand(em, "PUT", `${BRANCH}/webhooks`, { enabled: true, webhook_url: SECRETS.webhookUrl, enabled_events: ["user.created", "send.otp"], timeout_seconds: 5 }),
      // The OAuth server, its pages on the branch's trusted domain, and a public client.
      await outOfBand(em, "PATCH", `${BRANCH}/plugins/oauth-provider`, { enabled: true, login_page: `${SITE}/sign-in`, consent_page: `${SITE}/consent` }),
      await outOfBand(em, "POST", `${BRANCH}/oauth-provider/clients`, { name: "CLI", type: "public", redirect_uris: [`${SITE}/callback`], resources: [] }),
    ];
    expect(made).toEqual([201, 200, 200, 200, 200, 200, 201]);
    const dir = fs.mkdtempSync(path.join(inject("e2eWorkspace"), "import-secrets-"));
    file = path.join(dir, "import.json");
    await clearRequestLog(em);
    const listed = await neonAuthImport(em, dir, "--project", P, "--branch", B);
    fs.writeFileSync(file, listed.stdout);
    notes = listed.stderr;
    // Listing reads only.
    expect(new Set((await requestLog(em)).map((r) => r.method))).toEqual(new Set(["GET"]));
  }, 120_000);

  afterAll(async () => {
    for (const s of stacks) await s.cleanup();
    await em?.close();
  });

  it("lists what the package manages, names what it leaves out, and writes no secret", async () => {
    const listed = JSON.parse(fs.readFileSync(file, "utf8")).resources.map((r: { type: string; name: string }) => `${r.type} ${r.name}`);
    expect(listed).toEqual([
      "neon-auth:index:NeonAuth auth",
      "neon-auth:index:RedirectDomain domain-console-newer-neon-example-com",
      // Neon's default on a new branch (shared keys).
      "neon-auth:index:OAuthProvider google",
      "neon-auth:index:OAuthProvider microsoft",
      "neon-auth:index:OAuthProvider github",
      "neon-auth:index:EmailServer email",
      "neon-auth:index:OAuthClient client-cli",
    ]);
    expect(notes).toContain('neon-auth-import: left out OAuthProvider "apple" (type enterprise): the package cannot manage it; it stays at Neon, outside the stack');
    expect(notes).toContain("neon-auth-import --program");
    for (const secret of Object.values(SECRETS)) expect(fs.readFileSync(file, "utf8")).not.toContain(secret);
  });

  // How each written program declares a resource (the pattern names its groups).
  const cases = [
    { language: "nodejs", program: "plugin", out: "imported.ts", main: "index.ts", declares: /new neon_auth\.(?<kind>\w+)\("(?<name>[\w-]+)"/g },
    { language: "go", program: "plugin-go", out: "imported.go", main: "main.go", declares: /neonauth\.New(?<kind>\w+)\(ctx, "(?<name>[\w-]+)"/g },
    // (Written aside: an empty Main.yaml, which `--out Main.yaml` opens first, is not a program.)
    { language: "yaml", program: "plugin-yaml", out: "imported.yaml", main: "Main.yaml", declares: /^ {2}(?<name>[\w-]+):\n {4}type: neon-auth:(?:index:)?(?<kind>\w+)$/gm },
  ] as const;
  /** What the import file lists, as "Kind name". */
  const listed = () => JSON.parse(fs.readFileSync(file, "utf8")).resources.map((r: { type: string; name: string }) => `${r.type.split(":").pop()} ${r.name}`);

  for (const c of cases) {
    it(`${c.language}: the written program reads the secrets from configuration and previews with no changes`, { timeout: 600_000 }, async () => {
      // The previous language's stack lets go of the branch (Neon keeps it) for this one to adopt.
      // (Async CLI calls throughout: a synchronous one blocks the loop past the emulator's keep-alive,
      // and the next fetch may reuse a socket the server is closing.)
      await stacks.at(-1)?.run("state", "delete", "--all", "--yes");
      const e2e = await pluginStack({ program: path.join(PROGRAMS, c.program), config: neonConfig(em) }, c.language);
      stacks.push(e2e);
      fs.copyFileSync(file, path.join(e2e.dir, "import.json"));
      await clearRequestLog(em);
      const imported = await e2e.run("import", "--file", "import.json", "--out", c.out, "--yes", "--protect=false", "--skip-preview", "--non-interactive");
      // The engine checked the imported inputs and found nothing to warn of.
      expect(imported).not.toContain("failed to validate");
      expect((await requestLog(em)).filter((r) => r.method !== "GET")).toEqual([]);
      // The written program declares each kind once, as the file lists them.
      const written = fs.readFileSync(path.join(e2e.dir, c.out), "utf8");
      expect([...written.matchAll(c.declares)].map((m) => `${m.groups!.kind} ${m.groups!.name}`)).toEqual(listed());
      if (c.language === "go") expect(written).toContain('"github.com/pulumi-neon-auth/pulumi-neon-auth/sdk/go/neonauth"');
      if (c.language === "nodejs") expect(integrationLiterals(written, await importedRef(e2e))).toEqual([1, 5]);

      const rewritten = await neonAuthImport(em, e2e.dir, "--program", c.out);
      // One line per secret, each naming the key the program reads; the values are the user's to give.
      const lines = rewritten.stdout.split("\n").filter((l) => l.startsWith("pulumi config set"));
      expect(lines.map((l) => l.split(" ")[4])).toEqual(["webhookUrl", "microsoftClientSecret", "githubClientSecret", "smtpPassword"]);
      for (const line of lines) {
        expect(line).toMatch(/^pulumi config set --secret \w+ '<[^>]+>'$/);
        const key = line.split(" ")[4] as keyof typeof SECRETS;
        await e2e.run("config", "set", "--secret", key, SECRETS[key]);
      }
      const code = fs.readFileSync(path.join(e2e.dir, c.out), "utf8");
      // What Neon returns is in the program: the client ids.
      expect(code).toContain("ms-client-import");
      expect(code).toContain("gh-client-import");
      expect(code).not.toContain("neon-auth-import");

      fs.renameSync(path.join(e2e.dir, c.out), path.join(e2e.dir, c.main));
      if (c.language === "nodejs") {
        fs.mkdirSync(path.join(e2e.dir, "node_modules", "@pulumi-neon-auth"), { recursive: true });
        fs.symlinkSync(path.join(e2e.dir, "sdk"), path.join(e2e.dir, "node_modules", "@pulumi-neon-auth", "plugin-sdk"));
      }
      const before = await branchSnapshot(em, P, B);
      await clearRequestLog(em);
      // The preview the docs name (docs/any-language.md); the refresh after the up below reads the same objects.
      expect((await e2e.stack.preview({ color: "never", expectNoChanges: true })).changeSummary).toEqual({ same: 8 });
      // ... and stays so after an up, which sends nothing, records the program's secrets, and refreshes clean.
      const up = await e2e.stack.up({ color: "never" });
      expect(up.summary.resourceChanges).toEqual({ same: 8 });
      await expectNoChanges(e2e.stack, 8);
      expect((await requestLog(em)).filter((r) => r.method !== "GET")).toEqual([]);
      expect(await branchSnapshot(em, P, B)).toEqual(before);

      // No secret in any file the commands wrote: the program, the import file, the stack's config and state.
      const files = writtenFiles(e2e.dir, e2e.backendDir);
      expect([...files.keys()].some((f) => f.endsWith(c.main))).toBe(true);
      for (const [f, text] of files) for (const secret of Object.values(SECRETS)) expect(text.includes(secret), `${secret} in ${f}`).toBe(false);

      if (c.language === "nodejs") {
        // The written program is the stack's from now on: an update goes through it.
        const main = path.join(e2e.dir, c.main);
        fs.writeFileSync(main, fs.readFileSync(main, "utf8").replace(/appName: "[^"]*"/, 'appName: "Adopted"'));
        expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ update: 1, same: 7 });
        expect(await branchSnapshot(em, P, B)).toEqual({ ...before, auth: { ...before.auth, name: "Adopted" } });
      }
      if (c.language === "yaml") {
        // What the last program adopted is its to destroy.
        expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 8 });
        expect((await branchSnapshot(em, P, B)).auth).toBeUndefined();
      }
    });
  }
});
