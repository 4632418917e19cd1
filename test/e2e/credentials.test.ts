/**
 * Credentials and isolation: a missing key stops the run at its first check; a wrong key and a
 * key of another account each give one clear error per resource, with no retry storm (the request log shows at most one request
 * per failing resource: 401 and 404 are not retried), and nothing of the other account changes.
 *
 * The program declares the integration and its six children; the children take the integration
 * as an input, so only the integration is tried: one error, at most one request.
 */
import { execFile } from "node:child_process";
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, pluginStack, programOnProject, stackFor, useEmulatorStack, type E2eStack } from "./harness";
import { API_KEY, branchBytes, clearRequestLog, emulator, outOfBand, projectConfig, requestLog, snapshot } from "./neon";
import { emulatorOnly, emulatorOnlyIt, REMOTE } from "./remote";

const PROGRAM = path.join(__dirname, "programs", "all-kinds");
const OTHER_KEY = "e2e-other-account-key-77c1";
const P = "p-owner";
const B = "br-main-p-owner";
const KINDS = ["AuthIntegration"];

describe("credentials and isolation", () => {
  let em: EmulatorHandle;

  /**
   * Everything the owner's project holds, secrets included, for before/after comparison; in remote
   * mode, where no control route shows it, what the public API shows.
   */
  async function ownerState(): Promise<string> {
    if (REMOTE) return JSON.stringify(await snapshot(em, P));
    const state = (await em.state({ secrets: true })) as any;
    return JSON.stringify(state.projects.find((p: any) => p.id === P));
  }

  useEmulatorStack({
    // Two accounts: the first key owns the seeded project.
    emulator: { apiKeys: [API_KEY, OTHER_KEY], seedProjects: [`${P}:${B}`], rateLimit: "off" },
    prepare: async (em) => {
      // The owner's auth setup, made outside any stack.
      expect(
        await outOfBand(em, "POST", "/projects/auth/create", { auth_provider: "stack", project_id: P, branch_id: B, database_name: "neondb", role_name: "neondb_owner" }),
      ).toBe(201);
      expect(await outOfBand(em, "POST", `/projects/${P}/auth/domains`, { domain: "https://owner.example.com", auth_provider: "stack" })).toBe(201);
      expect(await outOfBand(em, "POST", "/projects/auth/user", { project_id: P, auth_provider: "stack", email: "owner@example.com" })).toBe(201);
    },
    ready: (s) => (em = s.em),
  });

  /** `up` of the seven resources with the given key settings; returns the failures by resource kind. */
  async function upWith(config: Record<string, { value: string; secret?: boolean }>, env: Record<string, string> = {}) {
    const e2e: E2eStack = await stackFor({
      program: PROGRAM,
      config: {
        "neon-auth:apiUrl": { value: em.url },
        projectId: { value: P },
        clientSecret: { value: "gh-secret-cred-1d", secret: true },
        smtpPassword: { value: "smtp-pw-cred-2e", secret: true },
        ...config,
      },
      env,
    });
    const failures = new Map<string, string>();
    const onEvent = (e: EngineEvent) => {
      const d = e.diagnosticEvent;
      if (d?.severity === "error" && d.urn && !d.urn.includes("::pulumi:pulumi:Stack::")) {
        failures.set(d.urn.split("::")[2]!.split(":").pop()!, d.message.trim());
      }
    };
    try {
      const before = await ownerState();
      await clearRequestLog(em);
      const err = await e2e.stack.up({ color: "never", continueOnError: true, onEvent }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err, "up must fail").toBeInstanceOf(Error);
      const log = (await requestLog(em)).filter((r: any) => r.path.startsWith("/api/v2"));
      // Nothing of the owner's changed, secrets and key sets included.
      expect(await ownerState()).toBe(before);
      // No stack state was written for any of them.
      const exported = await e2e.stack.exportStack();
      expect((exported.deployment.resources ?? []).filter((r: any) => r.type.startsWith("pulumi-nodejs:"))).toEqual([]);
      return { failures, log };
    } finally {
      await e2e.cleanup();
    }
  }

  it("no key at all: the first check stops the run with one clear error, no request", { timeout: 120_000 }, async () => {
    // Neither neon-auth:apiKey nor NEON_API_KEY (set empty so that a developer's own does not leak in).
    // A failed check is fatal to the engine's planning, so the run stops at the first resource.
    const { failures, log } = await upWith({}, { NEON_API_KEY: "" });
    expect(failures.size).toBe(1);
    expect(KINDS).toContain([...failures.keys()][0]);
    for (const message of failures.values()) {
      expect(message).toBe(
        "no Neon API key is configured: run `pulumi config set --secret neon-auth:apiKey <key>` or set the NEON_API_KEY environment variable",
      );
    }
    expect(log).toEqual([]);
  });

  it("a wrong key: one 401 per resource, not retried", { timeout: 120_000 }, async () => {
    const { failures, log } = await upWith({ "neon-auth:apiKey": { value: "wrong-key-9f2b", secret: true } });
    expect([...failures.keys()].sort()).toEqual([...KINDS].sort());
    for (const message of failures.values()) {
      expect(message).toMatch(/^401 from \S+ \S+: authentication failed: unknown API key \(request id [^)]+\); the API key is neon-auth:apiKey of this stack's configuration \(/);
      expect(message).not.toContain("wrong-key-9f2b");
    }
    expect(log.map((r: any) => r.status)).toEqual(Array(KINDS.length).fill(401));
  });

  emulatorOnlyIt("two accounts, each with its own key, at one API")("another account's key: one 404 per resource, not retried, the owner's project untouched", { timeout: 120_000 }, async () => {
    const ownerSnapshot = await snapshot(em, P);
    // The other account cannot even see the project.
    const { users: _viaControlRoute, ...seenByOther } = await snapshot(em, P, OTHER_KEY);
    expect(seenByOther).toEqual({ integrations: [], providers: [], domains: [], email: undefined });

    const { failures, log } = await upWith({ "neon-auth:apiKey": { value: OTHER_KEY, secret: true } });
    expect([...failures.keys()].sort()).toEqual([...KINDS].sort());
    for (const message of failures.values()) {
      expect(message).toMatch(/^404 from \S+ \S+: .*p-owner.* \(request id [^)]+\); Neon API at \S+ \(base URL from neon-auth:apiUrl\)$/);
      expect(message).not.toContain(OTHER_KEY);
    }
    expect(log).toHaveLength(KINDS.length);
    expect(log.every((r: any) => r.status === 404)).toBe(true);
    expect(await snapshot(em, P)).toEqual(ownerSnapshot);
  });
});

/**
 * A destroy with another account's key: every delete answers 404, which must not pass for "already
 * gone". Each child checks that the project answers; it does not, so each fails, and the state keeps
 * everything for a destroy with the right key. The key comes from NEON_API_KEY (and the URL from
 * NEON_API_URL), as in a pipeline:
 * `destroy` does not run the program, so a key in the stack's config is the one recorded at the
 * last `up`, while the environment's is the one of this run.
 */
emulatorOnly("two accounts, each with its own key, at one API")("destroy with another account's key — the classes", () => {
  const D = "p-dest";
  let em: EmulatorHandle;
  let e2e: E2eStack;
  // Key sets and transfers send no delete request, but prove the project visible like the rest.
  const CHILDREN = ["AuthOwnershipTransfer", "AuthSdkKeys", "AuthUser", "EmailServer", "OAuthProvider", "RedirectDomain"];
  const WRITING = ["AuthUser", "EmailServer", "OAuthProvider", "RedirectDomain"];

  useEmulatorStack({
    emulator: { apiKeys: [API_KEY, OTHER_KEY], seedProjects: [`${D}:br-main-${D}`], rateLimit: "off" },
    stack: (em) => ({
      program: PROGRAM,
      config: {
        projectId: { value: D },
        branchId: { value: `br-main-${D}` },
        clientSecret: { value: "gh-secret-dest-3f", secret: true },
        smtpPassword: { value: "smtp-pw-dest-4a", secret: true },
      },
      env: { NEON_API_KEY: API_KEY, NEON_API_URL: em.url },
    }),
    ready: (s) => ({ em, e2e } = s),
  });

  const kindsInState = async () =>
    ((await e2e.stack.exportStack()).deployment.resources ?? [])
      .filter((r: any) => r.type.startsWith("pulumi-nodejs:"))
      .map((r: any) => r.urn.split("::").pop())
      .sort();

  it("fails with one clear error per child, deletes nothing, keeps the state; the owner's key then destroys", { timeout: 300_000 }, async () => {
    const up = await e2e.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toEqual({ create: 8 });
    const before = await snapshot(em, D);
    expect(before.domains).toEqual(["https://app.example.com"]);
    const inState = await kindsInState();
    expect(inState).toEqual(["auth", "domain", "email", "github", "keys", "transfer", "user"]);

    e2e.stack.workspace.envVars.NEON_API_KEY = OTHER_KEY;
    const failures = new Map<string, string>();
    try {
      await clearRequestLog(em);
      const err = await e2e.stack
        .destroy({
          color: "never",
          onEvent: (e: EngineEvent) => {
            const d = e.diagnosticEvent;
            if (d?.severity === "error" && d.urn && !d.urn.includes("::pulumi:pulumi:Stack::")) failures.set(d.urn.split("::")[2]!.split(":").pop()!, d.message.trim());
          },
        })
        .then(
          () => undefined,
          (e: Error) => e,
        );
      expect(err, "destroy must fail").toBeInstanceOf(Error);
      expect([...failures.keys()].sort()).toEqual(CHILDREN);
      for (const [kind, message] of failures) {
        expect(message).toMatch(
          new RegExp(`^${kind}: delete cannot tell whether project ${D} still exists: it answers 404 Not Found to this API key .*Nothing was removed from the stack's state\\.`),
        );
        expect(message).not.toContain(OTHER_KEY);
      }
      // Each child's delete (404), then a look at the project (404), shared by the children whose
      // delete failed at the same time (the batched domain delete fails later): nothing else.
      const log = (await requestLog(em)).filter((r: any) => r.path.startsWith("/api/v2"));
      expect(log.every((r: any) => r.status === 404)).toBe(true);
      const looks = log.filter((r: any) => r.method === "GET").map((r: any) => r.path);
      expect(new Set(looks)).toEqual(new Set([`/api/v2/projects/${D}/auth/integrations`]));
      expect(looks.length).toBeLessThanOrEqual(CHILDREN.length);
      expect(log.filter((r: any) => r.method !== "GET")).toHaveLength(WRITING.length);
      expect(await kindsInState()).toEqual(inState);
      expect(await snapshot(em, D)).toEqual(before);
    } finally {
      e2e.stack.workspace.envVars.NEON_API_KEY = API_KEY;
    }
    await expectNoChanges(e2e.stack);
    const destroy = await e2e.stack.destroy({ color: "never" });
    expect(destroy.summary.resourceChanges).toEqual({ delete: 8 });
    expect(await snapshot(em, D)).toEqual({ integrations: [], providers: [], domains: [], email: undefined, users: [] });
  });
});

/**
 * The same on the plugin (a YAML program: a NeonAuth, a trusted domain, a GitHub provider): with
 * another account's key from the environment, an `up --continue-on-error` fails at the NeonAuth and
 * the engine skips what is declared in it; `refresh` and `destroy` fail naming the project they
 * cannot see, and the state and the branch keep everything; with the owner's key nothing changed.
 */
emulatorOnly("two accounts, each with its own key, at one API")("a wrong key forgets nothing — the plugin", () => {
  const W = "p-wrong-key-plugin";
  const WB = `br-main-${W}`;

  it("up with another account's key skips the children of the failed NeonAuth; refresh and destroy fail and keep every resource; the owner's key then sees no change and destroys", { timeout: 600_000 }, async () => {
    const em = await emulator({ apiKeys: [API_KEY, OTHER_KEY], seedProjects: [`${W}:${WB}`], rateLimit: "off" });
    const e2e = await pluginStack(
      { program: path.join(__dirname, "..", "..", "examples", "yaml"), config: projectConfig(W, WB, { githubClientSecret: "gh-secret-wrong-key-0e5d" }), env: { NEON_API_KEY: API_KEY, NEON_API_URL: em.url } },
      "yaml",
    );
    const inState = async () => ((await e2e.stack.exportStack()).deployment.resources ?? []).map((r: any) => `${r.urn.split("::").pop()} ${r.id ?? ""}`).sort();
    const failing = async (op: "up" | "refresh" | "destroy") => {
      const failures = new Map<string, string>();
      const onEvent = (e: EngineEvent) => {
        const d = e.diagnosticEvent;
        if (d?.severity === "error" && d.urn && !d.urn.includes("::pulumi:pulumi:Stack::")) failures.set(d.urn.split("::")[2]!.split(":").pop()!, d.message.trim());
      };
      // An up goes on past a failed resource, as a pipeline's `up --continue-on-error` does.
      const err = await (op === "up" ? e2e.stack.up({ color: "never", onEvent, continueOnError: true }) : e2e.stack[op]({ color: "never", onEvent })).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err, `${op} must fail`).toBeInstanceOf(Error);
      return failures;
    };
    try {
      // First with another account's key: the NeonAuth fails, and what is declared in it is skipped
      // by the engine for that failure, with no error or request of its own.
      e2e.stack.workspace.envVars.NEON_API_KEY = OTHER_KEY;
      await clearRequestLog(em);
      const unseen = await failing("up");
      expect([...unseen.keys()]).toEqual(["NeonAuth"]);
      expect(unseen.get("NeonAuth")).toMatch(new RegExp(`^404 from \\S+ \\S+: .*${W}`));
      expect(new Set((await requestLog(em)).filter((r: any) => r.path.startsWith("/api/v2")).map((r: any) => `${r.status} ${r.route}`))).toEqual(new Set(["404 /projects/{project_id}/branches/{branch_id}/auth"]));
      expect(((await e2e.stack.exportStack()).deployment.resources ?? []).filter((r: any) => r.type.startsWith("neon-auth:index:"))).toEqual([]);
      e2e.stack.workspace.envVars.NEON_API_KEY = API_KEY;

      // The failed up made the stack itself; everything else is made now.
      expect((await e2e.stack.up({ color: "never" })).summary.resourceChanges).toEqual({ create: 3, same: 1 });
      const resources = await inState();
      const branch = await branchBytes(em, W, WB);

      e2e.stack.workspace.envVars.NEON_API_KEY = OTHER_KEY;
      try {
        const refresh = await failing("refresh");
        expect(refresh.size).toBeGreaterThan(0);
        for (const message of refresh.values()) {
          expect(message).toMatch(new RegExp(`^(NeonAuth|RedirectDomain|OAuthProvider): refresh cannot tell whether project ${W} still exists: it answers 404 Not Found to this API key .*Nothing was removed from the stack's state\\.`));
          expect(message).not.toContain(OTHER_KEY);
        }
        expect(await inState()).toEqual(resources);

        // The children go first; each delete answers 404 and so does the project: nothing goes.
        const destroy = await failing("destroy");
        expect([...destroy.keys()].sort()).toEqual(["OAuthProvider", "RedirectDomain"]);
        for (const [kind, message] of destroy) {
          expect(message).toMatch(new RegExp(`^${kind}: delete cannot tell whether project ${W} still exists: it answers 404 Not Found to this API key .*Nothing was removed from the stack's state\\.`));
          expect(message).not.toContain(OTHER_KEY);
        }
        expect(await inState()).toEqual(resources);
        expect(await branchBytes(em, W, WB)).toBe(branch);
      } finally {
        e2e.stack.workspace.envVars.NEON_API_KEY = API_KEY;
      }
      await expectNoChanges(e2e.stack, 4);
      expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 4 });
      expect(await inState()).toEqual([]);
    } finally {
      await e2e.cleanup();
      await em.close();
    }
  });
});

/**
 * A refused key says where it came from, once (under the engine's Diagnostics), with no stack trace: the stack's
 * `neon-auth:apiKey` (which `refresh` without `--run-program` takes as recorded by the last `up`),
 * or `NEON_API_KEY` from the environment. Run with the CLI as a user types it (asynchronously: the
 * emulator answers in this process).
 */
describe("a refused key names where it came from", () => {
  const R = "p-refused";
  let em: EmulatorHandle;
  let e2e: E2eStack;

  useEmulatorStack({
    ...programOnProject("all-kinds", R, {
      secrets: { clientSecret: "gh-secret-refused-5c", smtpPassword: "smtp-pw-refused-6d" },
      without: ["keys", "transfer", "user", "oauth", "email"],
      emulator: { rateLimit: "off" },
    }),
    ready: (s) => ({ em, e2e } = s),
  });

  /** The CLI's whole output (stdout and stderr) and its exit code. */
  function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; output: string }> {
    return new Promise((resolve) => {
      execFile("pulumi", [...args, "--cwd", e2e.dir, "--stack", e2e.stack.name, "--color", "never"], { env: { ...process.env, ...e2e.env, ...env } }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
      );
    });
  }

  /**
   * The refusals the output reports: the engine shows a resource's error on its progress line and
   * once more under "Diagnostics", which is where a user reads it; the provider prints nothing of
   * its own (the dynamic-provider host used to add the error with its stack trace).
   */
  function refusalsIn(output: string): string[] {
    const lines = output.split("\n").filter((l) => l.includes("401 from"));
    const diagnostics = output
      .slice(output.indexOf("\nDiagnostics:"))
      .split("\n")
      .filter((l) => l.includes("401 from"))
      .map((l) => l.trim().replace(/^error: (Preview failed: )?/, ""));
    // Each diagnostic once on a progress line and once under Diagnostics, nothing printed besides.
    // How many diagnostics is the engine's: a resource refreshed at that moment (the integration,
    // perhaps a child sharing its read) reports it, and the refresh's preview may add its own
    // "Preview failed:" copy. All of them are the one refusal.
    expect(lines.length, output).toBe(2 * diagnostics.length);
    expect(new Set(diagnostics).size, output).toBe(1);
    return [...new Set(diagnostics)];
  }

  const STACK_KEY =
    "the API key is neon-auth:apiKey of this stack's configuration (`pulumi refresh` and `pulumi destroy` use the value recorded by the last `pulumi up`, unless given --run-program)";

  it("refresh --run-program with a wrong neon-auth:apiKey, and refresh with a wrong NEON_API_KEY", { timeout: 600_000 }, async () => {
    expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual({ create: 3 });
    await e2e.stack.setConfig("neon-auth:apiKey", { value: "wrong-key-refused-8e1f", secret: true });

    // Without the program, refresh takes the key recorded by the last up: it still works.
    expect((await run(["refresh", "--yes"])).code).toBe(0);

    // With the program, the stack's (wrong) key: one refusal, reported once, no stack trace.
    await clearRequestLog(em);
    const refused = await run(["refresh", "--run-program", "--yes"]);
    expect(refused.code, refused.output).not.toBe(0);
    expect(refusalsIn(refused.output)).toEqual([
      expect.stringMatching(/^401 from GET \/projects\/p-refused\/auth\/integrations: authentication failed: unknown API key \(request id [^)]+\); /),
    ]);
    expect(refusalsIn(refused.output)[0]).toContain(STACK_KEY);
    expect(refused.output).not.toMatch(/^\s+at /m);
    expect(refused.output).not.toContain("wrong-key-refused-8e1f");
    // Refused requests only, none retried.
    expect(new Set((await requestLog(em)).filter((r: any) => r.path.startsWith("/api/v2")).map((r: any) => r.status))).toEqual(new Set([401]));

    // A key from the environment is this run's own, and named so.
    // (An up with the key in the environment first, so that the recorded configuration has none.)
    await e2e.stack.removeAllConfig(["neon-auth:apiKey", "neon-auth:apiUrl"]);
    expect((await run(["up", "--yes"], { NEON_API_KEY: API_KEY, NEON_API_URL: em.url })).code).toBe(0);
    const { code, output } = await run(["refresh", "--yes"], { NEON_API_KEY: "wrong-env-key-2b7c", NEON_API_URL: em.url });
    expect(code, output).not.toBe(0);
    const refusals = refusalsIn(output);
    expect(refusals, output).toHaveLength(1);
    expect(refusals[0]).toContain("the API key is NEON_API_KEY from the environment of this run");
    expect(output).not.toMatch(/^\s+at /m);
    expect(output).not.toContain("wrong-env-key-2b7c");

    // The right key from the environment from now on, as that up recorded none: no changes, then the teardown's destroy.
    Object.assign(e2e.stack.workspace.envVars, { NEON_API_KEY: API_KEY, NEON_API_URL: em.url });
    await expectNoChanges(e2e.stack);
  });
});
