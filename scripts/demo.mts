/**
 * The main job: a whole Neon Auth setup provisioned by `pulumi up` against the local emulator,
 * with no Neon account. Run it with `make demo` (which sets up Node and Pulumi first).
 *
 *   1. starts the emulator with its state in a temp folder and creates a Neon project there;
 *   2. runs `pulumi up` of examples/branch-setup (today's branch-scoped Neon Auth), or with
 *      `--project-level` of examples/full-setup (the older project-level API), streaming the
 *      engine's progress;
 *   3. prints the stack outputs (secrets masked) and a table of what now exists at the emulator;
 *   4. runs a second `pulumi preview`, which must show no changes;
 *   5. destroys the stack and stops the emulator, unless `--keep` is given: then the emulator
 *      stays up (Ctrl-C to stop) and the commands to explore the stack are printed.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { apiConfig, copyProgram, prepareWorkspace, pulumiEnv, repo } from "./workspace.mts";

const require = createRequire(import.meta.url);
const { LocalWorkspace } = require("@pulumi/pulumi/automation") as typeof import("@pulumi/pulumi/automation/index.js");

const keep = process.argv.includes("--keep");
const projectLevel = process.argv.includes("--project-level");
const API_KEY = "demo-key-not-a-secret";
const started = Date.now();
const step = (msg: string) => process.stdout.write(`\n==> ${msg} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);

step("preparing a program folder with pulumi-neon-auth installed from its packed tarball");
const workspace = prepareWorkspace((line) => process.stdout.write(`    ${line}\n`));
// Loaded only now: packing the package (above) is what builds dist/ on a fresh clone.
const { startEmulator } = require("../dist/emulator/index.js") as typeof import("../src/emulator/index.ts");
const { createClient } = require("../dist/client/index.js") as typeof import("../src/client/index.ts");
const home = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-demo-"));

step("starting the Neon API emulator");
const emulator = await startEmulator({
  port: 0,
  apiKeys: [API_KEY],
  stateFile: path.join(home, "emulator-state.json"),
  operationDelayMs: 500,
});
process.stdout.write(`    ${emulator.url} (state in ${home}/emulator-state.json)\n`);

step("creating a Neon project and waiting for its operations to finish");
const client = createClient({ apiKey: API_KEY, baseUrl: emulator.url });
const created = await client.createProject({ name: "demo" });
const projectId = created.project.id;
const branchId = created.branch.id;
process.stdout.write(`    project ${projectId}, default branch ${branchId}\n`);

const dir = copyProgram(workspace, path.join(repo, "examples", projectLevel ? "full-setup" : "branch-setup"));
const backend = path.join(home, "state");
fs.mkdirSync(backend);
const envVars = pulumiEnv(backend, "demo-passphrase");
const stack = await LocalWorkspace.createOrSelectStack({ stackName: "dev", workDir: dir }, { envVars });
await stack.setAllConfig({
  ...apiConfig(emulator.url, API_KEY),
  projectId: { value: projectId },
  branchId: { value: branchId },
  smtpPassword: { value: "demo-smtp-password", secret: true },
  ...(projectLevel
    ? { githubClientSecret: { value: "demo-github-secret", secret: true } }
    : { microsoftClientSecret: { value: "demo-microsoft-secret", secret: true } }),
});

/** Read over the API (and the emulator's look at the database), not from the stack. */
async function projectRows(): Promise<[string, string][]> {
  const integrations = await client.listIntegrations(projectId);
  const providers = await client.listOAuthProviders(projectId);
  const domains = await client.listDomains(projectId);
  const email = await client.getEmailServer(projectId);
  return [
    ["integration", integrations.map((i) => `${i.auth_provider} on ${i.branch_id}, owned by ${i.owned_by}`).join("; ")],
    ["OAuth providers", providers.map((p) => `${p.id} (${p.type})`).join(", ")],
    ["redirect domains", domains.map((d) => d.domain).join(", ")],
    ["email server", email.type === "standard" ? `standard: ${email.host}:${email.port} as ${email.sender_email}` : "shared"],
    ["users (neon_auth.users_sync)", (await syncedUsers(`/projects/${projectId}/users_sync`)).join(", ")],
  ];
}

async function branchRows(): Promise<[string, string][]> {
  const where = { project_id: projectId, branch_id: branchId };
  const auth = await client.branchAuth.getBranchAuth(where);
  const plugins = await client.branchAuth.getBranchPlugins(where);
  const { domains } = await client.branchAuth.listBranchDomains(where);
  const hooks = await client.branchAuth.getBranchWebhooks(where);
  const dataApi = await client.branchAuth.getProjectBranchDataAPI({ ...where, database_name: "neondb" });
  const email = plugins.email_provider;
  const on = (name: string, p: { enabled?: boolean } | undefined) => `${name} ${p?.enabled ? "on" : "off"}`;
  return [
    ["Neon Auth", `${auth.auth_provider} on ${branchId} ("${auth.name}"), base URL ${auth.base_url ?? "none"}`],
    ["sign-in", [on("email and password", plugins.email_and_password), `localhost ${plugins.allow_localhost ? "allowed" : "refused"}`].join(", ")],
    ["plugins", [on("organization", plugins.organization), on("magic link", plugins.magic_link), on("phone number", plugins.phone_number)].join(", ")],
    ["webhooks", `${hooks.enabled ? "on" : "off"}: ${hooks.enabled_events.join(", ")}`],
    ["OAuth providers", plugins.oauth_providers.map((p) => `${p.id} (${p.type})`).join(", ")],
    ["trusted domains", domains.map((d) => d.domain).join(", ")],
    ["email provider", email?.type === "standard" ? `standard: ${email.host}:${email.port} as ${email.sender_email}` : "shared"],
    ["users (neon_auth.users_sync)", (await syncedUsers(`/projects/${projectId}/branches/${branchId}/auth`)).join(", ")],
    ["Data API", `${dataApi.url} (${dataApi.status}): schemas ${dataApi.settings?.db_schemas?.join(", ")}, role from ${dataApi.settings?.jwt_role_claim_key}`],
  ];
}

async function syncedUsers(controlPath: string): Promise<string[]> {
  const body = (await (await fetch(`${emulator.controlUrl}${controlPath}`)).json()) as any;
  const rows: { email: string; name?: string | null; roles?: string[] }[] = body.rows ?? body.neon_auth?.users ?? [];
  return rows.map((u) => `${u.email} (${u.name ?? "no name"}${u.roles ? `; ${u.roles.join(", ")}` : ""})`);
}

let failed = false;
try {
  step("pulumi up");
  const up = await stack.up({ color: "always", onOutput: (s: string) => process.stdout.write(s) });

  step("stack outputs (secrets masked)");
  for (const [name, out] of Object.entries(up.outputs)) {
    process.stdout.write(`    ${name.padEnd(22)} ${out.secret ? "[secret]" : JSON.stringify(out.value)}\n`);
  }

  step("what exists at the emulator now");
  const rows = projectLevel ? await projectRows() : await branchRows();
  for (const [what, value] of rows) process.stdout.write(`    ${what.padEnd(30)} ${value}\n`);

  step("second preview: expecting no changes");
  const preview = await stack.preview({ color: "always", expectNoChanges: true, onOutput: (s: string) => process.stdout.write(s) });
  process.stdout.write(`    change summary: ${JSON.stringify(preview.changeSummary)}\n`);
} catch (err) {
  failed = true;
  process.stderr.write(`\ndemo failed: ${(err as Error).message}\n`);
}

if (keep && !failed) {
  step("leaving the stack and the emulator up for exploring (Ctrl-C stops the emulator)");
  process.stdout.write(
    [
      `    cd ${dir}`,
      `    export PULUMI_BACKEND_URL=file://${backend} PULUMI_CONFIG_PASSPHRASE=demo-passphrase`,
      projectLevel ? "    pulumi stack output --show-secrets appEnv" : "    pulumi stack output",
      "    pulumi refresh            # drift check",
      `    curl -s ${emulator.controlUrl}/state | head -c 2000`,
      "    pulumi destroy --yes      # clean up before stopping the emulator",
      "",
    ].join("\n"),
  );
  await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
} else {
  step("destroying the stack and stopping the emulator");
  try {
    await stack.destroy({ color: "always", onOutput: (s: string) => process.stdout.write(s) });
    await stack.workspace.removeStack("dev");
  } catch (err) {
    failed = true;
    process.stderr.write(`destroy failed: ${(err as Error).message}\n`);
  }
}
await client.close();
await emulator.close();
fs.rmSync(dir, { recursive: true, force: true });
if (!keep) fs.rmSync(home, { recursive: true, force: true });
step(failed ? "demo FAILED" : "demo finished");
process.exit(failed ? 1 : 0);
