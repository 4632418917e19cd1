/**
 * The children of a NeonAuth (branch-scoped) through the engine: 20 trusted domains, a Microsoft
 * provider with a tenant and a Vercel one, 3 users with roles and an SMTP email provider with
 * its test. Up (one user's create answer lost: it converges by read-back), no changes, one
 * in-place update per child area reaching the emulator, drift at the emulator shown by refresh and
 * restored by up, a failing SMTP test failing the update with the service's message; a second
 * stack on another branch (its NeonAuth declaring only a name: the other settings left as Neon
 * made them) untouched; destroy leaves nothing and keeps the branch's data.
 */
import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { importFile } from "../../src/import/importFile";
import { changesOf, expectNoChanges, stackFor, type E2eStack } from "./harness";
import { API_KEY, CHILDREN_DOMAINS, CHILDREN_SETTINGS, CHILDREN_USERS, branchUserRows, clearRequestLog, emulator, neonConfig, newBranch, outOfBand, requestLog } from "./neon";
import { emulatorOnly } from "./remote";

const PROGRAM = path.join(__dirname, "programs", "neon-auth-children");
const P = "p-nac";
const B1 = `br-main-${P}`;
const auth = (b: string) => `/projects/${P}/branches/${b}/auth`;
const MS_SECRET = ["ms-secret-1-8d2f", "ms-secret-2-5a9c"];
const SMTP_PW = ["smtp-pw-1-3e7b", "smtp-pw-2-6f1d", "smtp-pw-3-0c4a"];

const SMTP = { host: "smtp.example.com", port: 587, username: "mailer", senderEmail: "auth@example.com", senderName: "Acme", testRecipient: "ops@example.com" };

function argsOne(o: { msSecret?: string; smtpPassword?: string; domains?: string[]; users?: typeof CHILDREN_USERS; tenant?: string } = {}) {
  return {
    projectId: P,
    branchId: B1,
    settings: {
      ...CHILDREN_SETTINGS,
      phoneNumber: { enabled: true },
      webhooks: { enabled: true, webhookUrl: "https://hooks.example.com/nac-7d1e", enabledEvents: ["user.created"] },
    },
    domains: o.domains ?? CHILDREN_DOMAINS,
    oauth: [
      { name: "ms", providerId: "microsoft", clientId: "ms-client", clientSecret: o.msSecret ?? MS_SECRET[0], microsoftTenantId: o.tenant ?? "tenant-a" },
      { name: "vercel", providerId: "vercel", clientId: "vc-client", clientSecret: "vc-secret-4b8e" },
    ],
    users: o.users ?? CHILDREN_USERS,
    smtp: { ...SMTP, password: o.smtpPassword ?? SMTP_PW[0] },
  };
}

async function control(em: EmulatorHandle, b: string): Promise<any> {
  return (await fetch(`${em.controlUrl}/projects/${P}/branches/${b}/auth?secrets=true`)).json();
}

async function emailTest(em: EmulatorHandle, b: string, body?: unknown): Promise<void> {
  const res = await fetch(`${em.controlUrl}/projects/${P}/branches/${b}/email_test`, {
    method: body === undefined ? "DELETE" : "PUT",
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status).toBe(200);
}


/** What the branch holds of the children's areas, secrets included. */
function children(state: any) {
  const a = state.auth;
  return {
    domains: [...a.domains].sort(),
    oauth: [...a.oauth_providers].sort((x: any, y: any) => x.id.localeCompare(y.id)),
    email: a.email_provider,
    users: state.neon_auth.users.map((u: any) => ({ email: u.email, name: u.name, roles: u.roles })).sort((x: any, y: any) => x.email.localeCompare(y.email)),
  };
}

const writes = async (em: EmulatorHandle) =>
  (await requestLog(em)).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path.replace(/^\/api\/v2/, "").replace(/\/users\/[0-9a-f-]{36}/, "/users/{id}")}`);

emulatorOnly("injected faults, dashboard changes and stored secrets at the emulator")("children of a NeonAuth", () => {
  let em: EmulatorHandle;
  let one: E2eStack;
  let two: E2eStack;
  let b2: string;

  beforeAll(async () => {
    em = await emulator({ seedProjects: [`${P}:${B1}`], rateLimit: "off" });
    b2 = await newBranch(em, P, "preview");
    one = await stackFor({ program: PROGRAM, stackName: "one", config: { ...neonConfig(em), args: { value: JSON.stringify(argsOne()), secret: true } } });
    const small = { projectId: P, branchId: b2, settings: { appName: "Other" }, domains: ["https://preview.example.com"], oauth: [{ name: "google", providerId: "google" }], users: [{ name: "dave", email: "dave@example.com", roles: ["user"] }] };
    two = await stackFor({ program: PROGRAM, stackName: "two", config: { ...neonConfig(em), args: { value: JSON.stringify(small), secret: true } } });
  });

  afterAll(async () => {
    await Promise.all([one?.cleanup(), two?.cleanup()]);
    await em?.close();
  });

  it("up, no changes, in-place updates, drift restored, SMTP check, other branch untouched, destroy", { timeout: 900_000 }, async () => {
    // One user's create answer is lost: read-back finds the user by address, no duplicate.
    em.injectFaults({ kind: "lost", method: "POST", path: `${auth(B1)}/users` });
    const [up1, up2] = await Promise.all([one.stack.up({ color: "never" }), two.stack.up({ color: "never" })]);
    expect(changesOf(up1.summary.resourceChanges)).toEqual({ create: 28 }); // the stack, the NeonAuth and its 26 children
    expect(changesOf(up2.summary.resourceChanges)).toEqual({ create: 6 });
    expect(em.faults.injected.lost).toBe(1);
    expect((await branchUserRows(em, P, B1)).map((r) => [r.email, r.name, r.role])).toEqual(CHILDREN_USERS.map((u) => [u.email, u.displayName, u.roles.join(",")]));
    const ids = up1.outputs.userIds!.value as string[];
    expect(ids.every((id) => id.startsWith(`${P}/${B1}/`))).toBe(true);

    const created = children(await control(em, B1));
    expect(created).toEqual({
      domains: [...CHILDREN_DOMAINS].sort(),
      oauth: [
        // Neon's default on a new integration; this program does not declare it, so it stays as Neon made it.
        { id: "google", type: "shared" },
        { id: "microsoft", type: "standard", client_id: "ms-client", client_secret: MS_SECRET[0], microsoft_tenant_id: "tenant-a" },
        { id: "vercel", type: "standard", client_id: "vc-client", client_secret: "vc-secret-4b8e" },
      ],
      email: { type: "standard", host: "smtp.example.com", port: 587, username: "mailer", password: SMTP_PW[0], sender_email: "auth@example.com", sender_name: "Acme" },
      users: CHILDREN_USERS.map((u) => ({ email: u.email, name: u.displayName, roles: u.roles })),
    });
    const other = await control(em, b2);
    expect(children(other)).toEqual({
      domains: ["https://preview.example.com"],
      oauth: [{ id: "google", type: "shared" }],
      email: { type: "shared" },
      users: [{ email: "dave@example.com", name: "", roles: ["user"] }], // no name given: "" (the column is NOT NULL)
    });
    // Only its name declared: the other settings stay as Neon made them (localhost allowed, no OAuth server).
    const oauthServer = await fetch(`${em.url}${auth(b2)}/plugins/oauth-provider`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect([other.auth.name, other.auth.allow_localhost, await oauthServer.json()]).toEqual(["Other", true, { enabled: false }]);
    // Nothing to change after the first up: a second preview, and a refresh of the whole branch
    // stack that reads the aggregate settings once, not once per resource. (The other stack's
    // preview and refresh come at the end, after all of this one's.)
    expect(changesOf((await one.stack.preview({ color: "never", expectNoChanges: true })).changeSummary)).toEqual({});
    await clearRequestLog(em);
    expect(changesOf((await one.stack.refresh({ color: "never", expectNoChanges: true })).summary.resourceChanges)).toEqual({});
    const reads = (await requestLog(em)).map((r) => `${r.method} ${r.path}`);
    expect(reads.filter((r) => r.endsWith("/auth/plugins"))).toEqual([`GET /api/v2${auth(B1)}/plugins`]);
    expect(reads.filter((r) => r.endsWith("/auth/domains"))).toEqual([`GET /api/v2${auth(B1)}/domains`]);
    expect(reads.filter((r) => r.endsWith(auth(B1)))).toEqual([`GET /api/v2${auth(B1)}`]);

    // Branch children's ids import (the entries record what Neon shows, secrets left out).
    const file = await importFile(
      [
        { kind: "RedirectDomain", name: "d", id: `${P}/${B1}/https://app0.example.com` },
        { kind: "OAuthProvider", name: "o", id: `${P}/${B1}/vercel` },
        { kind: "EmailServer", name: "e", id: `${P}/${B1}/email-server` },
      ],
      { apiKey: API_KEY, apiUrl: em.url },
    );
    // A secret value as an import file carries it (Pulumi's secret signature, the value as JSON).
    const placeholder = (key: string) => ({ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", plaintext: JSON.stringify(`neon-auth-import:config:${key}`) });
    // A child's place is inside its integration (the ref both faces record), not beside it.
    const placeOf = (integration: unknown) => {
      const ref = integration as { projectId?: string; branchId?: string; authProvider?: string };
      return { projectId: ref.projectId, branchId: ref.branchId, authProvider: ref.authProvider };
    };
    const inputs = file.resources.map(({ id, inputs: { __provider, integration, ...rest } }) => ({ id, integration: placeOf(integration), ...rest }));
    expect(inputs).toEqual([
      { id: `${P}/${B1}/https://app0.example.com`, integration: { projectId: P, branchId: B1, authProvider: "better_auth" }, domain: "https://app0.example.com" },
      // The client id Neon shows is imported; what it never shows (the client secret, the SMTP
      // password) is a secret placeholder naming the configuration key the program's value comes from.
      { id: `${P}/${B1}/vercel`, integration: { projectId: P, branchId: B1 }, providerId: "vercel", adopt: false, clientId: "vc-client", clientSecret: placeholder("vercelClientSecret") },
      { id: `${P}/${B1}/email-server`, integration: { projectId: P, branchId: B1 }, type: "standard", host: "smtp.example.com", port: 587, username: "mailer", senderEmail: "auth@example.com", senderName: "Acme", password: placeholder("smtpPassword") },
    ]);

    // Secrets are never in the state in plain text (the checkpoint `stack export` prints).
    const exported = JSON.stringify(await one.stack.exportStack());
    for (const s of [MS_SECRET[0]!, SMTP_PW[0]!, "vc-secret-4b8e", "nac-7d1e"]) expect(exported).not.toContain(s);

    // One in-place update per child area: a role, a rotated secret and a new tenant, a new SMTP
    // password (tested through Neon), and a new trusted domain.
    const changedUsers = CHILDREN_USERS.map((u) => (u.name === "bob" ? { ...u, roles: ["admin"] } : u));
    await one.stack.setConfig("args", { value: JSON.stringify(argsOne({ msSecret: MS_SECRET[1], tenant: "tenant-b", smtpPassword: SMTP_PW[1], users: changedUsers, domains: [...CHILDREN_DOMAINS, "https://new.example.com"] })), secret: true });
    await clearRequestLog(em);
    const up3 = await one.stack.up({ color: "never" });
    expect(changesOf(up3.summary.resourceChanges)).toEqual({ create: 1, update: 3 });
    expect((await writes(em)).sort()).toEqual(
      [
        `PUT ${auth(B1)}/users/{id}/role`,
        `PATCH ${auth(B1)}/oauth_providers/microsoft`,
        `PATCH ${auth(B1)}/email_provider`,
        `POST ${auth(B1)}/email_provider/test`,
        `POST ${auth(B1)}/domains`,
      ].sort(),
    );
    const updated = children(await control(em, B1));
    expect(updated.oauth.find((o: any) => o.id === "microsoft")).toEqual({ id: "microsoft", type: "standard", client_id: "ms-client", client_secret: MS_SECRET[1], microsoft_tenant_id: "tenant-b" });
    expect(updated.email.password).toBe(SMTP_PW[1]);
    expect(updated.users.find((u: any) => u.email === "bob@example.com").roles).toEqual(["admin"]);
    expect(updated.domains).toContain("https://new.example.com");

    // Drift in each child area, made at the emulator: refresh shows it, up restores it.
    const bob = (await control(em, B1)).neon_auth.users.find((u: any) => u.email === "bob@example.com");
    expect(await outOfBand(em, "DELETE", `${auth(B1)}/domains`, { auth_provider: "better_auth", domains: [{ domain: "https://app3.example.com" }] })).toBe(200);
    expect(await outOfBand(em, "DELETE", `${auth(B1)}/oauth_providers/vercel`)).toBeLessThan(300);
    expect(await outOfBand(em, "DELETE", `${auth(B1)}/users/${bob.id}`)).toBeLessThan(300);
    expect(await outOfBand(em, "PATCH", `${auth(B1)}/email_provider`, { type: "shared" })).toBe(200);
    // The branch API returns an OAuth provider's client id: one changed elsewhere is drift too.
    expect(await outOfBand(em, "PATCH", `${auth(B1)}/oauth_providers/microsoft`, { client_id: "ms-client-outside" })).toBe(200);
    const drift = await one.stack.refresh({ color: "never" });
    expect(changesOf(drift.summary.resourceChanges)).toEqual({ delete: 3, update: 2 });
    const restored = await one.stack.up({ color: "never" });
    expect(changesOf(restored.summary.resourceChanges)).toEqual({ create: 3, update: 2 });
    const back = children(await control(em, B1));
    expect({ ...back, users: back.users }).toEqual({ ...updated, users: updated.users });

    // A user made outside the stack, looked up on the branch by address (read from neon_auth."user").
    expect(await outOfBand(em, "POST", `${auth(B1)}/users`, { email: "grace@example.com", name: "Grace" })).toBe(201);
    const lookupArgs = { ...argsOne({ msSecret: MS_SECRET[1], tenant: "tenant-b", smtpPassword: SMTP_PW[1], users: changedUsers, domains: [...CHILDREN_DOMAINS, "https://new.example.com"] }) };
    await one.stack.setConfig("args", { value: JSON.stringify({ ...lookupArgs, lookupUser: `${P}/${B1}/grace@example.com` }), secret: true });
    const lookup = await one.stack.up({ color: "never" });
    const grace = (await control(em, B1)).neon_auth.users.find((u: any) => u.email === "grace@example.com");
    expect(lookup.outputs.foundUser?.value).toEqual({ id: grace.id, email: "grace@example.com", branchId: B1 });
    await expectNoChanges(one.stack);
    await one.stack.setConfig("args", { value: JSON.stringify(lookupArgs), secret: true });
    // Dropping the lookup only forgets it: grace stays at Neon.
    expect(changesOf((await one.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ discard: 1 });
    expect((await control(em, B1)).neon_auth.users.some((u: any) => u.id === grace.id)).toBe(true);
    expect(await outOfBand(em, "DELETE", `${auth(B1)}/users/${grace.id}`)).toBeLessThan(300);

    // A user renamed at the emulator: refresh shows the drift; renamed back, no change.
    const carol = (await control(em, B1)).neon_auth.users.find((u: any) => u.email === "carol@example.com");
    const rename = (name: string) =>
      fetch(`${em.controlUrl}/projects/${P}/users/${carol.id}`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ name }) }).then((r) => r.status);
    expect(await rename("Carol R.")).toBe(200);
    expect(changesOf((await one.stack.refresh({ color: "never" })).summary.resourceChanges)).toEqual({ update: 1 });
    expect(await rename("Carol")).toBe(200);
    expect(changesOf((await one.stack.refresh({ color: "never" })).summary.resourceChanges)).toEqual({});

    // The SMTP check: a failing test fails the update with the service's message, secrets scrubbed.
    await emailTest(em, B1, { success: false, error_message: `535 authentication failed for mailer:${SMTP_PW[2]}` });
    await one.stack.setConfig("args", { value: JSON.stringify(argsOne({ msSecret: MS_SECRET[1], tenant: "tenant-b", smtpPassword: SMTP_PW[2], users: changedUsers, domains: [...CHILDREN_DOMAINS, "https://new.example.com"] })), secret: true });
    const failed = await one.stack.up({ color: "never" }).then(
      () => undefined,
      (err: Error) => err.message,
    );
    expect(failed).toContain("Neon's test mail to ops@example.com through smtp.example.com:587 failed: 535 authentication failed for mailer:");
    expect(failed).not.toContain(SMTP_PW[2]);
    // A passing test lets the same update through.
    await emailTest(em, B1);
    await clearRequestLog(em);
    const passed = await one.stack.up({ color: "never" });
    expect(changesOf(passed.summary.resourceChanges)).toEqual({ update: 1 });
    expect(await writes(em)).toEqual([`PATCH ${auth(B1)}/email_provider`, `POST ${auth(B1)}/email_provider/test`]);
    expect(children(await control(em, B1)).email.password).toBe(SMTP_PW[2]);
    await expectNoChanges(one.stack);

    // The other branch's stack saw none of it.
    expect(children(await control(em, b2))).toEqual(children(other));
    await expectNoChanges(two.stack);

    // Destroy: nothing of the stack is left, and the branch's data is kept (no delete_data): a
    // user made outside the stack survives.
    expect(await outOfBand(em, "POST", `${auth(B1)}/users`, { email: "kept@example.com" })).toBe(201);
    await clearRequestLog(em);
    await one.stack.destroy({ color: "never" });
    expect((await requestLog(em)).some((r) => r.path.includes(`/branches/${b2}/`))).toBe(false);
    const gone = await control(em, B1);
    expect(gone.auth).toBeNull();
    expect(gone.neon_auth.users.map((u: any) => u.email)).toEqual(["kept@example.com"]);
    expect(children(await control(em, b2))).toEqual(children(other));
    await two.stack.destroy({ color: "never" });
    expect((await control(em, b2)).auth).toBeNull();
  });
});
