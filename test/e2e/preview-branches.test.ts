/**
 * examples/preview-branches: a `prod` stack on the project's default branch and a preview stack
 * on a branch made for a pull request, against one emulator. Each stack sends requests only
 * under its own branch, and destroying the preview drops its auth data and leaves prod as it was.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { expectNoChanges, stackFor, type E2eStack } from "./harness";
import { API_KEY, branchSnapshot, clearRequestLog, emulator, neonConfig, requestLog } from "./neon";

const PROGRAM = path.resolve(__dirname, "../../examples/preview-branches");
const P = "p-acme";
const MAIN = "br-main-p-acme";

describe("one stack per Neon branch (examples/preview-branches)", () => {
  let em: EmulatorHandle;
  let prod: E2eStack;
  let preview: E2eStack;
  let pr: string;
  const backendDir = fs.mkdtempSync(path.join(os.tmpdir(), "neon-auth-branches-"));

  beforeAll(async () => {
    em = await emulator({ seedProjects: [`${P}:${MAIN}`], rateLimit: "off" });
    // The pipeline's first step: a branch for the pull request, made as Neon's API makes it.
    const made = await fetch(`${em.url}/projects/${P}/branches`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ branch: { name: "pr-42", parent_id: MAIN } }),
    });
    expect(made.status).toBe(201);
    pr = ((await made.json()) as any).branch.id;
    prod = await stackFor({
      program: PROGRAM,
      stackName: "prod",
      backendDir,
      config: {
        ...neonConfig(em),
        googleClientSecret: { value: "prod-google-secret-7d21", secret: true },
        smtpPassword: { value: "prod-smtp-pw-93ab", secret: true },
      },
    });
    preview = await stackFor({
      program: PROGRAM,
      stackName: "pr-42",
      backendDir,
      config: { ...neonConfig(em), projectId: { value: P }, branchId: { value: pr } },
    });
  });

  afterAll(async () => {
    await preview?.cleanup();
    await prod?.cleanup();
    await em?.close();
    fs.rmSync(backendDir, { recursive: true, force: true });
  });

  const prodState = {
    auth: { name: "Acme", auth_provider: "better_auth" },
    allow_localhost: false,
    require_email_verification: true,
    providers: [{ id: "google", type: "standard" }],
    domains: ["https://app.example.com"],
    email: {
      type: "standard",
      host: "smtp.example.com",
      port: 587,
      username: "prod",
      password: "",
      sender_email: "auth@example.com",
      sender_name: "Acme",
    },
  };

  it("each stack configures only its own branch", { timeout: 600_000 }, async () => {
    await clearRequestLog(em);
    const upProd = await prod.stack.up({ color: "never" });
    expect(upProd.summary.resourceChanges).toEqual({ create: 5 });
    const prodPaths = (await requestLog(em)).map((r) => r.path).filter((p) => p.includes("/branches/"));
    expect(prodPaths.length).toBeGreaterThan(0);
    expect(prodPaths.filter((p) => !p.startsWith(`/api/v2/projects/${P}/branches/${MAIN}/`))).toEqual([]);

    await clearRequestLog(em);
    const upPreview = await preview.stack.up({ color: "never" });
    expect(upPreview.summary.resourceChanges).toEqual({ create: 5 });
    expect(upPreview.outputs.environment).toEqual({ value: "pr-42", secret: false });
    const previewPaths = (await requestLog(em)).map((r) => r.path).filter((p) => p.includes("/branches/"));
    expect(previewPaths.filter((p) => !p.startsWith(`/api/v2/projects/${P}/branches/${pr}/`))).toEqual([]);

    expect(await branchSnapshot(em, P, MAIN)).toEqual(prodState);
    expect(await branchSnapshot(em, P, pr)).toEqual({
      auth: { name: "Acme (pr-42)", auth_provider: "better_auth" },
      allow_localhost: true,
      require_email_verification: false,
      providers: [{ id: "google", type: "shared" }],
      domains: ["https://pr-42.preview.example.com"],
      email: { type: "shared" },
    });
    for (const s of [prod, preview]) await expectNoChanges(s.stack);
  });

  it("destroying the preview drops its auth data and leaves prod as it was", { timeout: 600_000 }, async () => {
    const made = await fetch(`${em.url}/projects/${P}/branches/${pr}/auth/users`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ email: "tester@example.com" }),
    });
    expect(made.status).toBe(201);
    const destroy = await preview.stack.destroy({ color: "never" });
    expect(destroy.summary.resourceChanges).toEqual({ delete: 5 });
    const control = (await (await fetch(`${em.controlUrl}/projects/${P}/branches/${pr}/auth`)).json()) as any;
    expect(control.auth).toBeNull();
    // deleteDataOnDestroy on a preview branch: its users went with it.
    expect(control.neon_auth).toBeNull();
    expect(await branchSnapshot(em, P, MAIN)).toEqual(prodState);
    await expectNoChanges(prod.stack);
  });
});
