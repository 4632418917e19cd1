/**
 * Imports that preview clean (issue 41): a branch made outside any stack, with a Microsoft and a
 * GitHub provider on their own credentials, an SMTP server and webhooks, taken into a TypeScript,
 * a Go and a YAML program on the plugin as the README's import section says: `neon-auth-import`,
 * `pulumi import --file --out`, `neon-auth-import --program`, then the `pulumi config set` lines it
 * printed. What Neon returns (the client ids) is imported; what it never returns (the client
 * secrets, the SMTP password) and the webhook URL it does return are read from the stack's
 * configuration; a provider the package cannot manage is left out with a note. The preview after
 * the config lines shows no changes, and no written file holds a secret.
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
    ];
    expect(made).toEqual([201, 200, 200, 200, 200]);
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
    ]);
    expect(notes).toContain('neon-auth-import: left out OAuthProvider "apple" (type enterprise): the package cannot manage it; it stays at Neon, outside the stack');
    expect(notes).toContain("neon-auth-import --program");
    for (const secret of Object.values(SECRETS)) expect(fs.readFileSync(file, "utf8")).not.toContain(secret);
  });

  const cases = [
    { language: "nodejs", program: "plugin", out: "imported.ts", main: "index.ts" },
    { language: "go", program: "plugin-go", out: "imported.go", main: "main.go" },
    // (Written aside: an empty Main.yaml, which `--out Main.yaml` opens first, is not a program.)
    { language: "yaml", program: "plugin-yaml", out: "imported.yaml", main: "Main.yaml" },
  ] as const;

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
      await expectNoChanges(e2e.stack, 7);
      // ... and stays so after an up, which sends nothing, records the program's secrets, and refreshes clean.
      const up = await e2e.stack.up({ color: "never" });
      expect(up.summary.resourceChanges).toEqual({ same: 7 });
      await expectNoChanges(e2e.stack, 7);
      expect((await requestLog(em)).filter((r) => r.method !== "GET")).toEqual([]);
      expect(await branchSnapshot(em, P, B)).toEqual(before);

      // No secret in any file the commands wrote: the program, the import file, the stack's config and state.
      const files = writtenFiles(e2e.dir, e2e.backendDir);
      expect([...files.keys()].some((f) => f.endsWith(c.main))).toBe(true);
      for (const [f, text] of files) for (const secret of Object.values(SECRETS)) expect(text.includes(secret), `${secret} in ${f}`).toBe(false);
    });
  }
});
