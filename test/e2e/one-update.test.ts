/**
 * A setting change is one update: each in-place change of a NeonAuth setting (and of the one
 * AuthIntegration input that updates in place, `adopt`) previews in `pulumi preview --json` as
 * exactly one `update` of the integration, no child replaced, and `up` does exactly that (the
 * request log shows the setting's one write). Replacing the integration previews one replace per
 * child, and `up` replaces exactly those. `--diff` names the fields of each update, secrets too,
 * and shows none of their values.
 */
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, programOnProject, useEmulatorStack, type E2eStack } from "./harness";
import { API_KEY, clearRequestLog, NEON_AUTH_SETTINGS, neonConfig, requestLog } from "./neon";

const P = "p-one-update";
const B = `br-main-${P}`;
const AUTH = `/projects/${P}/branches/${B}/auth`;
const P2 = "p-one-update-project";

const SETTINGS = {
  ...NEON_AUTH_SETTINGS,
  webhooks: { enabled: true, webhookUrl: "https://hooks.example.com/one-update-3c1f", enabledEvents: ["user.created"] },
};
/** The children of the NeonAuth, by resource name. */
const CHILDREN = ["domain-0", "domain-1", "ms", "alice", "smtp"].sort();

/** The secrets of the stack: as created, and rotated. */
const FIRST = { clientSecret: "ms-secret-one-update-7a2d", password: "smtp-pw-one-update-9b4e", webhookUrl: SETTINGS.webhooks.webhookUrl };
const ROTATED = { clientSecret: "ms-secret-rotated-1e8c", password: "smtp-pw-rotated-4d2a", webhookUrl: "https://hooks.example.com/rotated-8f3b" };

function argsOf(settings: Record<string, unknown>, secrets = FIRST) {
  return {
    projectId: P,
    branchId: B,
    settings,
    domains: ["https://app.example.com", "https://admin.example.com"],
    oauth: [{ name: "ms", providerId: "microsoft", clientId: "ms-client", clientSecret: secrets.clientSecret, microsoftTenantId: "tenant-a" }],
    users: [{ name: "alice", email: "alice@example.com", displayName: "Alice", roles: ["admin"] }],
    smtp: { host: "smtp.example.com", port: 587, username: "mailer", password: secrets.password, senderEmail: "auth@example.com", senderName: "Acme" },
  };
}

/**
 * The steps of `pulumi preview --json` other than `same`, as op → resource names. Run
 * asynchronously: a synchronous run would stall the emulator in this process and its connections.
 */
async function previewSteps(e2e: E2eStack): Promise<Record<string, string[]>> {
  const { stdout } = await promisify(execFile)("pulumi", ["preview", "--json", "--cwd", e2e.dir, "--stack", e2e.stack.name], {
    env: { ...process.env, ...e2e.env },
    maxBuffer: 64 * 1024 * 1024,
  });
  const out = JSON.parse(stdout) as { steps: { op: string; urn: string }[] };
  const ops: Record<string, string[]> = {};
  for (const s of out.steps) if (s.op !== "same") (ops[s.op] ??= []).push(s.urn.split("::").pop()!);
  for (const names of Object.values(ops)) names.sort();
  return ops;
}

const writes = async (em: EmulatorHandle) =>
  (await requestLog(em)).filter((r) => r.method !== "GET" && r.path.startsWith("/api/v2")).map((r) => `${r.method} ${r.path.replace(/^\/api\/v2/, "")}`);

describe("a setting change is one update (NeonAuth)", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;
  useEmulatorStack({
    emulator: { seedProjects: [`${P}:${B}`], rateLimit: "off" },
    stack: (em) => ({
      program: path.join(__dirname, "programs", "neon-auth-children"),
      config: { ...neonConfig(em), args: { value: JSON.stringify(argsOf(SETTINGS)), secret: true } },
    }),
    ready: (s) => ({ em, e2e } = s),
  });

  const set = (settings: Record<string, unknown>, secrets = ROTATED) =>
    e2e.stack.setConfig("args", { value: JSON.stringify(argsOf(settings, secrets)), secret: true });

  it("--diff names each field of an update, secrets included, and prints no secret", { timeout: 600_000 }, async () => {
    const up = await e2e.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ create: 7 }); // the stack, the NeonAuth, 5 children

    // A client secret, an SMTP password and the webhook URL, rotated together.
    await set({ ...SETTINGS, webhooks: { ...SETTINGS.webhooks, webhookUrl: ROTATED.webhookUrl } });
    const secrets = [...Object.values(FIRST), ...Object.values(ROTATED)].map((v) => v.replace(/^https:\/\/hooks\.example\.com/, ""));
    // Through the Automation API, not the synchronous `cli`: the emulator answers in this process.
    for (const [command, text] of [
      ["preview --diff", (await e2e.stack.preview({ diff: true, color: "never" })).stdout],
      ["up --diff", (await e2e.stack.up({ diff: true, color: "never" })).stdout],
    ] as const) {
      // The property lines (resource headers and the summary's counts left out), in any order.
      const changed = text.split("\n").filter((l) => /^\s*[~+-] /.test(l) && !/neon-auth:|^\s*[~+-] \d+ /.test(l));
      expect(changed.map((l) => l.trim()).sort(), `${command}:\n${text}`).toEqual(
        ["~ webhooks: {", "~ webhookUrl: [secret] => [secret]", "~ clientSecret: [secret] => [secret]", "~ password: [secret] => [secret]"].sort(),
      );
      for (const secret of secrets) expect(text, command).not.toContain(secret);
    }
    await expectNoChanges(e2e.stack);
  });

  it("each setting previews as one update and up does exactly that; a replacement replaces every child", { timeout: 900_000 }, async () => {

    // Two settings per round keep the run short; each round is still exactly one update.
    const rounds: { change: Record<string, unknown>; writes: string[] }[] = [
      { change: { appName: "Acme Staging", allowLocalhost: true }, writes: [`PATCH ${AUTH}/config`, `PATCH ${AUTH}/allow_localhost`] },
      {
        change: { emailAndPassword: { enabled: true, requireEmailVerification: false }, organization: { enabled: true, creatorRole: "owner" } },
        writes: [`PATCH ${AUTH}/email_and_password`, `PATCH ${AUTH}/plugins/organization`],
      },
      {
        change: { magicLink: { enabled: true, expiresIn: 30 }, phoneNumber: { enabled: true, otpExpiresIn: 300 } },
        writes: [`PATCH ${AUTH}/plugins/magic-link`, `PATCH ${AUTH}/plugins/phone-number`],
      },
      { change: { webhooks: { ...SETTINGS.webhooks, webhookUrl: ROTATED.webhookUrl, enabledEvents: ["user.created", "send.otp"] } }, writes: [`PUT ${AUTH}/webhooks`] },
    ];
    let settings: Record<string, unknown> = { ...SETTINGS, webhooks: { ...SETTINGS.webhooks, webhookUrl: ROTATED.webhookUrl } };
    for (const round of rounds) {
      settings = { ...settings, ...round.change };
      await set(settings);
      expect(await previewSteps(e2e), JSON.stringify(round.change)).toEqual({ update: ["auth"] });
      await clearRequestLog(em);
      const done = await e2e.stack.up({ color: "never" });
      expect(changesOf(done.summary.resourceChanges)).toEqual({ update: 1 });
      expect((await writes(em)).sort()).toEqual([...round.writes].sort());
    }
    // `deleteDataOnDestroy` is recorded only: one update, no request at all.
    await set({ ...settings, deleteDataOnDestroy: true });
    expect(await previewSteps(e2e)).toEqual({ update: ["auth"] });
    await clearRequestLog(em);
    expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ update: 1 });
    expect(await writes(em)).toEqual([]);
    await set(settings);
    expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ update: 1 });
    await expectNoChanges(e2e.stack);

    // A replacement of the integration (another database) replaces every child with it.
    const before = (await outOfBandAuth(em)).auth_provider_project_id;
    await set({ ...settings, databaseName: "appdb" });
    expect(await previewSteps(e2e)).toEqual({ replace: ["auth", ...CHILDREN].sort() });
    await clearRequestLog(em);
    const replaced = await e2e.stack.up({ color: "never" });
    expect(changesOf(replaced.summary.resourceChanges)).toEqual({ replace: 1 + CHILDREN.length });
    const after = await outOfBandAuth(em);
    expect(after.auth_provider_project_id).not.toBe(before);
    expect(after.db_name).toBe("appdb");
    await expectNoChanges(e2e.stack);
  });
});

describe("the create-time switch of an AuthIntegration", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;
  useEmulatorStack({
    ...programOnProject("all-kinds", P2, {
      secrets: { clientSecret: "gh-secret-one-update-5d", smtpPassword: "smtp-pw-one-update-6e" },
      without: ["transfer"],
      emulator: { rateLimit: "off" },
    }),
    ready: (s) => ({ em, e2e } = s),
  });

  it("adopt, a create-time switch, previews no change when added and up sends nothing", { timeout: 300_000 }, async () => {
    expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ create: 7 });
    await e2e.stack.setConfig("adoptIntegration", { value: "true" });
    expect(await previewSteps(e2e)).toEqual({});
    await clearRequestLog(em);
    expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({});
    expect(await writes(em)).toEqual([]);
    await expectNoChanges(e2e.stack);
  });
});

/** The branch's integration as the emulator's public API shows it. */
async function outOfBandAuth(em: EmulatorHandle): Promise<{ auth_provider_project_id: string; db_name: string }> {
  const res = await fetch(`${em.url}${AUTH}`, { headers: { authorization: `Bearer ${API_KEY}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as { auth_provider_project_id: string; db_name: string };
}
