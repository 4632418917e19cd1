/**
 * "Adopt this existing branch" in two commands, in TypeScript, Go and YAML, through the real engine:
 * a branch's Neon Auth with each importable kind in it (NeonAuth, RedirectDomain, OAuthProvider,
 * EmailServer, OAuthClient) goes up and leaves the stack's state; `neon-auth-import`
 * (`branchImportFile`) lists what the branch holds (type, name and id only), and `pulumi import
 * --file --out` takes it all back by id, with only reads, and writes the program in the stack's
 * language (the language host's GenerateProgram). That program then previews and refreshes with no
 * changes, updates, and destroys what it adopted.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, onFreshEmulator, pluginStack, type E2eStack } from "./harness";
import { API_KEY, branchSnapshot, clearRequestLog, neonConfig, requestLog } from "./neon";

const PROGRAMS = path.join(__dirname, "programs");
const project = "p-plugin-import";
const branch = `br-main-${project}`;
const site = "https://app.example.com";
const oauthServer = { enabled: true, loginPage: `${site}/sign-in`, consentPage: `${site}/consent` };
const specs = [
  { kind: "NeonAuth", name: "auth", args: { projectId: project, branchId: branch, appName: "Imported", oauthServer } },
  { kind: "RedirectDomain", name: "domain-app-example-com", args: { integration: "auth", domain: site } },
  { kind: "OAuthProvider", name: "google", args: { integration: "auth", providerId: "google" } },
  { kind: "EmailServer", name: "email", args: { integration: "auth", type: "shared" } },
  { kind: "OAuthClient", name: "client-cli", args: { integration: "auth", name: "CLI", type: "public", redirectUris: [`${site}/callback`] } },
];

/** The first of the two commands: the package's `neon-auth-import`, which lists the branch. */
async function importFile(em: EmulatorHandle): Promise<{ resources: { type: string; name: string; id: string }[] }> {
  const importer = path.join(inject("e2eWorkspace"), "node_modules", ".bin", "neon-auth-import");
  const env = { ...process.env, NEON_API_KEY: API_KEY, NEON_API_URL: em.url };
  return JSON.parse((await promisify(execFile)(importer, ["--project", project, "--branch", branch], { env, encoding: "utf8" })).stdout);
}

/** The second: `pulumi import --file`, writing the program to `out`. Returns what it wrote. */
async function adopt(em: EmulatorHandle, e2e: E2eStack, file: string, out: string): Promise<string> {
  await clearRequestLog(em);
  await e2e.run("import", "--file", file, "--out", out, "--yes", "--protect=false", "--skip-preview", "--non-interactive");
  // Reads only: an import changes nothing at Neon.
  expect((await requestLog(em)).filter((r) => r.method !== "GET")).toEqual([]);
  return fs.readFileSync(out, "utf8");
}

/** How the written program declares each resource, as "Kind name" (the pattern names its groups). */
const declared = (code: string, pattern: RegExp) => [...code.matchAll(pattern)].map((m) => `${m.groups!.kind} ${m.groups!.name}`);

describe("adopting a branch with pulumi import on the plugin", () => {
  it("imports each importable kind by id and writes a TypeScript, a Go and a YAML program that own it", { timeout: 900_000 }, async () => {
    const stack = (em: EmulatorHandle) => pluginStack({ program: path.join(PROGRAMS, "plugin"), config: { ...neonConfig(em), resources: { value: JSON.stringify(specs) } } }, "nodejs");
    let go: E2eStack | undefined;
    let yaml: E2eStack | undefined;
    try {
      await onFreshEmulator(project, stack, async ({ em, e2e }) => {
        const up = await e2e.stack.up({ color: "never" });
        expect(up.summary.resourceChanges).toEqual({ create: 6 });
        const ids = up.outputs.ids!.value as Record<string, string>;
        const before = await branchSnapshot(em, project, branch);
        // The stack forgets them (Neon keeps them), then takes them back by id alone.
        e2e.cli("state", "delete", `urn:pulumi:${e2e.stack.name}::plugin::neon-auth:index:NeonAuth::auth`, "--target-dependents", "--yes");
        expect(changesOf((await e2e.stack.preview({ color: "never" })).changeSummary)).toEqual({ create: 5 });
        const whole = await importFile(em);
        // Everything the program declares, by the names it gives them, and nothing else.
        expect(whole.resources).toEqual(specs.map((s) => ({ type: `neon-auth:index:${s.kind}`, name: s.name, id: ids[s.name] })));
        const file = path.join(e2e.dir, "import.json");
        fs.writeFileSync(file, JSON.stringify(whole));

        // TypeScript: the written program declares each kind once, each child in its integration.
        const ts = await adopt(em, e2e, file, path.join(e2e.dir, "imported.ts"));
        expect(declared(ts, /new neon_auth\.(?<kind>\w+)\("(?<name>[\w-]+)"/g)).toEqual(specs.map((s) => `${s.kind} ${s.name}`));
        const ref = (up.outputs.refs!.value as Record<string, Record<string, string>>).auth!;
        expect(ref).toEqual({ projectId: project, branchId: branch, authProvider: "better_auth", authProviderProjectId: expect.any(String), createdAt: expect.any(String) });
        // Each child names its integration whole (the auth provider only where its kind calls for
        // it), keys sorted as Pulumi's generator writes them.
        const literal = (r: Record<string, string>) => `integration: {\n${Object.keys(r).sort().map((k) => `        ${k}: "${r[k]}",\n`).join("")}    }`;
        const { authProvider: _, ...placeOnly } = ref;
        const count = (r: Record<string, string>) => ts.split(literal(r)).length - 1;
        expect([count(ref), count(placeOnly)]).toEqual([1, 3]);
        // ... and is the stack's program from now on: no changes, then an update through it.
        fs.writeFileSync(path.join(e2e.dir, "index.ts"), ts);
        fs.mkdirSync(path.join(e2e.dir, "node_modules", "@pulumi-neon-auth"), { recursive: true });
        fs.symlinkSync(path.join(e2e.dir, "sdk"), path.join(e2e.dir, "node_modules", "@pulumi-neon-auth", "plugin-sdk"));
        await expectNoChanges(e2e.stack, 6);
        fs.writeFileSync(path.join(e2e.dir, "index.ts"), ts.replace('appName: "Imported"', 'appName: "Adopted"'));
        expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ update: 1, same: 5 });
        const adopted = await branchSnapshot(em, project, branch);
        expect(adopted).toEqual({ ...before, auth: { ...before.auth, name: "Adopted" } });

        // Go: a new Go stack adopts the same branch the TypeScript one lets go of (and so on).
        e2e.cli("state", "delete", "--all", "--yes");
        go = await pluginStack({ program: path.join(PROGRAMS, "plugin-go"), config: neonConfig(em) }, "go");
        const main = await adopt(em, go, file, path.join(go.dir, "imported.go"));
        expect(declared(main, /neonauth\.New(?<kind>\w+)\(ctx, "(?<name>[\w-]+)"/g)).toEqual(specs.map((s) => `${s.kind} ${s.name}`));
        expect(main).toContain('"github.com/pulumi-neon-auth/pulumi-neon-auth/sdk/go/neonauth"');
        fs.renameSync(path.join(go.dir, "imported.go"), path.join(go.dir, "main.go"));
        await expectNoChanges(go.stack, 6);
        expect(await branchSnapshot(em, project, branch)).toEqual(adopted);

        // YAML: Pulumi YAML's own host writes the program, Main.yaml beside Pulumi.yaml.
        go.cli("state", "delete", "--all", "--yes");
        yaml = await pluginStack({ program: path.join(PROGRAMS, "plugin-yaml"), config: neonConfig(em) }, "yaml");
        // (Written aside: an empty Main.yaml, which `--out Main.yaml` opens first, is not a program.)
        const doc = await adopt(em, yaml, file, path.join(yaml.dir, "imported.yaml"));
        expect(declared(doc, /^ {2}(?<name>[\w-]+):\n {4}type: neon-auth:(?:index:)?(?<kind>\w+)$/gm)).toEqual(specs.map((s) => `${s.kind} ${s.name}`));
        fs.renameSync(path.join(yaml.dir, "imported.yaml"), path.join(yaml.dir, "Main.yaml"));
        await expectNoChanges(yaml.stack, 6);
        expect(await branchSnapshot(em, project, branch)).toEqual(adopted);

        // What the last program adopted is its to destroy.
        expect((await yaml.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 6 });
        expect((await branchSnapshot(em, project, branch)).auth).toBeUndefined();
      });
    } finally {
      await yaml?.cleanup();
      await go?.cleanup();
    }
  });
});
