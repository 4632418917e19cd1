/**
 * examples/preview-branches as Neon runs it: a `prod` stack on the project's default branch, users
 * signing up there, a branch made from production for a pull request (which inherits its Neon
 * Auth, as auth branches with the database), and the preview stack taking that copy over. The
 * preview sends requests only under its own branch; production is byte-identical, at the API and
 * in its tables, before and after the preview's up and destroy.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { expectNoChanges, sharedBackend, type E2eStack } from "./harness";
import { branchSnapshot, branchState, branchBytes, branchUserRows, clearRequestLog, neonConfig, projectConfig, neonApi, requestLog, secretConfig } from "./neon";
import { atEmulator } from "./remote";

const PROGRAM = path.resolve(__dirname, "../../examples/preview-branches");
const P = "p-acme";
/** A call to Neon's API on this project, as the pipeline or the app would make it, outside any stack. */
const neon = (em: EmulatorHandle, method: string, route: string, body?: unknown) => neonApi(em, method, `/projects/${P}${route}`, body);
const everything = (em: EmulatorHandle, branch: string) => branchBytes(em, P, branch);
const MAIN = "br-main-p-acme";



describe("one stack per Neon branch (examples/preview-branches)", () => {
  let em: EmulatorHandle, prod: E2eStack, preview: E2eStack, pr: string;
  const backend = sharedBackend();

  backend.use({
    emulator: { seedProjects: [`${P}:${MAIN}`], rateLimit: "off" },
    stack: (em) => ({
      program: PROGRAM,
      stackName: "prod",
      config: { ...neonConfig(em), ...secretConfig({ googleClientSecret: "prod-google-secret-7d21", smtpPassword: "prod-smtp-pw-93ab" }) },
    }),
    ready: (s) => ({ em, e2e: prod } = s),
  });

  const prodEmail = { type: "standard", host: "smtp.example.com", port: 587, username: "prod", password: "", sender_email: "auth@example.com", sender_name: "Acme" };
  const prodState = branchState({ name: "Acme", localhost: false, verification: true, providers: { google: "standard" }, domains: ["https://app.example.com"], email: prodEmail });
  // Production's origin came with the branch; the preview adds its own and leaves that one be.
  const previewDomains = ["https://app.example.com", "https://pr-42.preview.example.com"];
  const previewState = branchState({ name: "Acme (pr-42)", localhost: true, verification: false, providers: { google: "shared" }, domains: previewDomains, email: { type: "shared" } });
  const people = async (branch: string) => (await branchUserRows(em, P, branch)).map(({ email, name, role }) => ({ email, name, role }));
  const signedUp = [
    { email: "ann@example.com", name: "Ann", role: "admin" },
    { email: "bo@example.com", name: "Bo", role: "user" },
  ];
  let prodBefore: string;

  it("a branch made from production inherits its auth, and the preview stack takes it over", { timeout: 600_000 }, async () => {
    const upProd = await prod.stack.up({ color: "never" });
    expect(upProd.summary.resourceChanges).toEqual({ create: 5 });
    expect(await branchSnapshot(em, P, MAIN)).toEqual(prodState);
    // Users sign up on production; one is made an admin.
    for (const u of signedUp) {
      const made = await neon(em, "POST", `/branches/${MAIN}/auth/users`, { email: u.email, name: u.name });
      expect(made.status).toBe(201);
      if (u.role !== "user") expect((await neon(em, "PUT", `/branches/${MAIN}/auth/users/${made.json.id}/role`, { roles: [u.role] })).status).toBe(200);
    }
    expect(await people(MAIN)).toEqual(signedUp);
    prodBefore = await everything(em, MAIN);

    // The pipeline's first step: a branch for the pull request, made from production.
    const made = await neon(em, "POST", "/branches", { branch: { name: "pr-42", parent_id: MAIN } });
    expect(made.status).toBe(201);
    pr = made.json.branch.id;
    // It has production's Neon Auth already: settings, providers, domains, SMTP and users.
    expect(await branchSnapshot(em, P, pr)).toEqual(prodState);
    expect(await people(pr)).toEqual(signedUp);
    expect((await neon(em, "POST", `/branches/${pr}/auth`, { auth_provider: "better_auth" })).status).toBe(409);

    preview = await backend.stack({
      program: PROGRAM,
      stackName: "pr-42",
      config: { ...neonConfig(em), ...projectConfig(P, pr) },
    });
    await clearRequestLog(em);
    const upPreview = await preview.stack.up({ color: "never" });
    expect(upPreview.summary.resourceChanges).toEqual({ create: 5 });
    expect(upPreview.outputs.environment).toEqual({ value: "pr-42", secret: false });
    const log = await requestLog(em);
    expect(log.filter((r) => r.path.includes("/branches/") && !r.path.startsWith(`/api/v2/projects/${P}/branches/${pr}/`))).toEqual([]);
    // Taken over, not made: no enable; production's Google app gives way to Neon's shared keys.
    expect(log.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path.slice(`/api/v2/projects/${P}/branches/${pr}`.length)} ${r.status}`)).toEqual(
      expect.arrayContaining(["DELETE /auth/oauth_providers/google 200", "POST /auth/oauth_providers 200"]),
    );
    expect(log.some((r) => r.method === "POST" && r.path.endsWith(`/branches/${pr}/auth`))).toBe(false);

    expect(await branchSnapshot(em, P, pr)).toEqual(previewState);
    // Production's users stay on the preview branch as they came: the stack declares none.
    expect(await people(pr)).toEqual(signedUp);
    await expectNoChanges(preview.stack);
    // Production's second preview and refresh come after the preview's destroy (the next test).
    expect(await everything(em, MAIN)).toBe(prodBefore);
  });

  it("destroying the preview drops its copy of the auth data and leaves prod as it was", { timeout: 600_000 }, async () => {
    const destroy = await preview.stack.destroy({ color: "never" });
    expect(destroy.summary.resourceChanges).toEqual({ delete: 5 });
    expect((await neon(em, "GET", `/branches/${pr}/auth`)).status).toBe(404);
    await atEmulator(async () => {
      const control = (await (await fetch(`${em.controlUrl}/projects/${P}/branches/${pr}/auth`)).json()) as any;
      expect(control.auth).toBeNull();
      // deleteDataOnDestroy on a preview branch: its copy of the users went with it.
      expect(control.neon_auth).toBeNull();
    });
    expect(await everything(em, MAIN)).toBe(prodBefore);
    await expectNoChanges(prod.stack);
  });
});
