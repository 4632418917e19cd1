/**
 * Credentials and isolation: a missing key stops the run at its first check; a wrong key and a
 * key of another account each give one clear error per resource, with no retry storm (the request log shows at most one request
 * per failing resource: 401 and 404 are not retried), and nothing of the other account changes.
 *
 * The program declares the integration and its six children; the children take the integration
 * as an input, so only the integration is tried: one error, at most one request.
 */
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { stackFor, useEmulatorStack, type E2eStack } from "./harness";
import { API_KEY, clearRequestLog, outOfBand, requestLog, snapshot } from "./neon";

const PROGRAM = path.join(__dirname, "programs", "all-kinds");
const OTHER_KEY = "e2e-other-account-key-77c1";
const P = "p-owner";
const B = "br-main-p-owner";
const KINDS = ["AuthIntegration"];

describe("credentials and isolation", () => {
  let em: EmulatorHandle;

  /** Everything the owner's project holds, secrets included, for before/after comparison. */
  async function ownerState(): Promise<string> {
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
      expect(message).toMatch(/^401 from \S+ \S+: authentication failed: unknown API key \(request id [^)]+\)$/);
      expect(message).not.toContain("wrong-key-9f2b");
    }
    expect(log.map((r: any) => r.status)).toEqual(Array(KINDS.length).fill(401));
  });

  it("another account's key: one 404 per resource, not retried, the owner's project untouched", { timeout: 120_000 }, async () => {
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
