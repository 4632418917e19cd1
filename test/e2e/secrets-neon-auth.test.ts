/**
 * The secret census of secrets.test.ts on a NeonAuth stack whose program passes every secret as a
 * plain value (the webhook URL, the OAuth client secret, the SMTP password) and wraps one user's
 * email in `pulumi.secret`: the constructors make the first secrets, the provider scrubs the
 * second from its errors. Looked for in `pulumi stack export`, stack outputs and history, the CLI
 * output of `up --diff` and `preview --diff`, the engine events of `--debug` runs (less the SDK's
 * own RPC-response lines, as in secrets.test.ts), provider errors (a 409 that names the user, a
 * refusal at preview that names it, a 401) and the emulator's request log.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { capture, expectNoSecretAnywhere } from "./census";
import { expectNoChanges, onFreshEmulator, pluginStack, useEmulatorStack, type E2eStack } from "./harness";
import { API_KEY, branchSnapshot, neonConfig, outOfBand, projectConfig } from "./neon";

const PROGRAM = path.join(__dirname, "programs", "neon-auth-children");
const P = "p-secrets-na";
const B = `br-main-${P}`;
const WEBHOOK = ["https://hooks.example.com/in/wh-s3cr3t-1a2b", "https://hooks.example.com/in/wh-s3cr3t-3c4d"] as const;
const SECRET_EMAIL = "sue.s3cr3t@example.com";
const TAKEN_EMAIL = "taken.s3cr3t@example.com";
const MS_SECRET = "ms-secret-s3cr3t-5e6f";
const SMTP_PW = ["smtp-pw-s3cr3t-7a8b", "smtp-pw-s3cr3t-9c0d"] as const;
const WRONG_KEY = "wrong-key-s3cr3t-b1c2";

function args(o: Declared = {}) {
  return {
    projectId: P,
    branchId: B,
    settings: { appName: "Acme", webhooks: { enabled: true, webhookUrl: o.webhook ?? WEBHOOK[0], enabledEvents: ["user.created"] } },
    // A wildcard trusted domain, as Neon documents for preview deployments, converges like any other.
    domains: ["https://app.example.com", "HTTPS://*.My-App-Preview.vercel.app/"],
    oauth: [{ name: "ms", providerId: "microsoft", clientId: "ms-client", clientSecret: MS_SECRET, microsoftTenantId: "tenant-a" }],
    users: [
      { name: "sue", email: o.rename ? `x${SECRET_EMAIL}` : SECRET_EMAIL, displayName: "Sue", roles: ["admin"], secretEmail: true },
      ...(o.taken ? [{ name: "taken", email: TAKEN_EMAIL, secretEmail: true }] : []),
    ],
    smtp: { host: "smtp.example.com", port: 587, username: "mailer", password: o.smtpPassword ?? SMTP_PW[0], senderEmail: "auth@example.com", senderName: "Acme" },
  };
}

type Declared = { webhook?: string; smtpPassword?: string; taken?: boolean; rename?: boolean };

/**
 * What both faces do after their first up, `declare` putting each declaration in place: an in-place
 * update of the webhook URL and the SMTP password with --diff and --debug; the 409 that names a user
 * made outside the stack, declared with a secret-wrapped email; a refusal at preview naming the old
 * address; a 401 on a change whose PUT carries the webhook URL; then the right key again.
 */
async function updateAndErrors(
  { em, e2e, captured, project, branch, declare }: { em: EmulatorHandle; e2e: E2eStack; captured: ReturnType<typeof capture>; project: string; branch: string; declare: (o: Declared) => Promise<unknown> },
  o: { resources: number; countNoChanges?: boolean },
): Promise<void> {
  const { seen, LOUD, debugSeen, DEBUG, failing } = captured;
  await declare({ webhook: WEBHOOK[1], smtpPassword: SMTP_PW[1] });
  const preview = await e2e.stack.preview(DEBUG);
  debugSeen.push(preview.stdout, preview.stderr);
  const update = await e2e.stack.up(DEBUG);
  debugSeen.push(update.stdout, update.stderr);
  expect(update.summary.resourceChanges).toEqual({ update: 2, same: o.resources - 2 });

  expect(await outOfBand(em, "POST", `/projects/${project}/branches/${branch}/auth/users`, { email: TAKEN_EMAIL, name: "Taken" })).toBe(201);
  await declare({ webhook: WEBHOOK[1], smtpPassword: SMTP_PW[1], taken: true });
  const conflict = await failing(() => e2e.stack.up(LOUD));
  expect(conflict).toContain(`AuthUser [redacted] of branch ${branch} of project ${project} already exists and was not made by this stack`);

  await declare({ webhook: WEBHOOK[1], smtpPassword: SMTP_PW[1], rename: true });
  const refused = await failing(() => e2e.stack.preview(LOUD));
  expect(refused).toContain("[redacted]");

  await declare({ webhook: WEBHOOK[0], smtpPassword: SMTP_PW[1] });
  await e2e.stack.setConfig("neon-auth:apiKey", { value: WRONG_KEY, secret: true });
  const unauthorised = await failing(() => e2e.stack.up(LOUD));
  expect(unauthorised).toContain("401 from ");
  await e2e.stack.setConfig("neon-auth:apiKey", { value: API_KEY, secret: true });
  await declare({ webhook: WEBHOOK[1], smtpPassword: SMTP_PW[1] });
  // Refresh uses the key the last up recorded (README limits): an up with the right key first.
  const again = await e2e.stack.up(LOUD);
  seen.push(again.stdout, again.stderr);
  expect(again.summary.resourceChanges).toEqual({ same: o.resources });
  await expectNoChanges(e2e.stack, o.countNoChanges ? o.resources : undefined);
}

/** The operations of both faces (an update, a 409 naming the user, a refusal at preview naming it, a 401) leave none of these anywhere. */
async function expectNoSecretAnywhereAndSay(face: string, where: Omit<Parameters<typeof expectNoSecretAnywhere>[0], "errors">): Promise<void> {
  const secrets: [string, string][] = [
    ["API key", API_KEY],
    ["wrong API key", WRONG_KEY],
    ["webhook URL", WEBHOOK[0]],
    ["second webhook URL", WEBHOOK[1]],
    ["secret-wrapped email", SECRET_EMAIL],
    ["secret-wrapped email of a user made outside", TAKEN_EMAIL],
    ["OAuth client secret", MS_SECRET],
    ["SMTP password", SMTP_PW[0]],
    ["second SMTP password", SMTP_PW[1]],
  ];
  const places = await expectNoSecretAnywhere({ ...where, errors: "a 409, a refusal at preview, a 401" }, secrets);
  console.log(`secrets figures (${face}): ${JSON.stringify({ secrets: secrets.length, places: places.length, bytesSearched: places.reduce((n, [, t]) => n + t.length, 0), found: 0 })}`);
}

/** The webhooks setting (its URL a secret) is kept as ciphertext beside the hash of its plain value, in inputs and outputs alike. */
function expectWebhooksEncrypted(neonAuth: any): void {
  expect(Object.keys(neonAuth.inputs.webhooks)).toEqual(["4dabf18193072939515e22adb298388d", "ciphertext"]);
  expect(Object.keys(neonAuth.outputs.webhooks)).toEqual(["4dabf18193072939515e22adb298388d", "ciphertext"]);
}

describe("secrets of a NeonAuth stack given as plain values — the classes", () => {
  const captured = capture();
  const { seen, LOUD } = captured;

  let em: EmulatorHandle;
  let e2e: E2eStack;

  useEmulatorStack({
    emulator: { seedProjects: [`${P}:${B}`], rateLimit: "off" },
    // Secret config keeps the values out of the stack's config and history; the program reads
    // them with requireObject, which hands it plain values: nothing in it says they are secrets.
    stack: (em) => ({ program: PROGRAM, config: { ...neonConfig(em), args: { value: JSON.stringify(args()), secret: true } } }),
    ready: (s) => ({ em, e2e } = s),
  });

  const setArgs = (a: unknown) => e2e.stack.setConfig("args", { value: JSON.stringify(a), secret: true });

  it("up, an update with --diff and debug, three errors; 0 secrets found anywhere", { timeout: 1_200_000 }, async () => {
    const up = await e2e.stack.up(LOUD);
    seen.push(up.stdout, up.stderr);
    expect(up.summary.result).toBe("succeeded");
    expect((await branchSnapshot(em, P, B)).domains).toEqual(["https://*.my-app-preview.vercel.app", "https://app.example.com"]);

    await updateAndErrors({ em, e2e, captured, project: P, branch: B, declare: (o) => setArgs(args(o)) }, { resources: 7 });

    const exported = e2e.cli("stack", "export");
    const resources = JSON.parse(exported).deployment.resources as any[];
    const user = resources.find((r) => r.type.endsWith(":AuthUser") && r.urn.endsWith("::sue"));
    // The names of the inputs the program made secret, never their values.
    expect(user.inputs.__secretInputs).toEqual(["email"]);
    const neonAuth = resources.find((r) => r.type.endsWith(":NeonAuth"));
    expectWebhooksEncrypted(neonAuth);

    await expectNoSecretAnywhereAndSay("NeonAuth", { cli: e2e.cli, controlUrl: em.controlUrl, captured });
  });
});

/**
 * The same census on the plugin: a YAML program (secrets-yaml) with the same secrets as plain
 * values in the program and one email in `fn::secret`; the same operations (an update with --diff
 * and --debug, a 409 naming the user, a refusal at preview naming it, a 401), searched in the same
 * places.
 */
describe("secrets of a NeonAuth stack given as plain values — the plugin", () => {
  const PP = "p-secrets-plugin";
  const PB = `br-main-${PP}`;
  const captured = capture();
  const { seen, LOUD } = captured;
  const TAKEN = `
  taken:
    type: neon-auth:index:AuthUser
    properties:
      integration: \${auth.ref}
      email:
        fn::secret: ${TAKEN_EMAIL}
`;

  it("up, an update with --diff and debug, three errors; 0 secrets found anywhere", { timeout: 1_200_000 }, async () => {
    const stack = (em: EmulatorHandle) => pluginStack({ program: path.join(__dirname, "programs", "secrets-yaml"), config: { ...neonConfig(em), ...projectConfig(PP, PB) } }, "yaml");
    await onFreshEmulator(PP, stack, async ({ em, e2e }) => {
      const file = path.join(e2e.dir, "Pulumi.yaml");
      const template = fs.readFileSync(file, "utf8");
      const write = (o: Declared = {}) =>
        fs.writeFileSync(
          file,
          template
            .replace("WEBHOOK_URL", o.webhook ?? WEBHOOK[0])
            .replace("MS_SECRET", MS_SECRET)
            .replace("SUE_EMAIL", o.rename ? `x${SECRET_EMAIL}` : SECRET_EMAIL)
            .replace("SMTP_PASSWORD", o.smtpPassword ?? SMTP_PW[0]) + (o.taken ? TAKEN : ""),
        );
      write();
      const up = await e2e.stack.up(LOUD);
      seen.push(up.stdout, up.stderr);
      expect(up.summary.resourceChanges).toEqual({ create: 6 });

      await updateAndErrors({ em, e2e, captured, project: PP, branch: PB, declare: async (o) => write(o) }, { resources: 6, countNoChanges: true });

      const resources = JSON.parse(e2e.cli("stack", "export")).deployment.resources as any[];
      const neonAuth = resources.find((r) => r.type === "neon-auth:index:NeonAuth");
      expectWebhooksEncrypted(neonAuth);

      await expectNoSecretAnywhereAndSay("NeonAuth, plugin", { cli: e2e.cli, controlUrl: em.controlUrl, captured });
      write();
    }, { rateLimit: "off" });
  });
});
