/**
 * Invalid inputs fail at preview, through the real engine's check, with a message that names
 * the field and the rule, never the value, and without a single request to the API.
 *
 * The engine stops a preview at the first resource whose check fails, so each preview carries
 * one resource with as many bad fields as it has (each field a case of its own), and a few
 * stacks run previews side by side. Borderline forms accepted on purpose go through `up`.
 */
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, stackFor, useEmulatorStack, type E2eStack } from "./harness";
import { clearRequestLog, neonConfig, requestLog } from "./neon";
import { argsOf, B, CASES, GROUPS, MISSING, NEVER_SHOWN, P, SMTP } from "../bad-inputs";

const PROGRAM = path.join(__dirname, "programs", "many-resources");

const STACKS = 3;

describe("bad input is refused at preview", () => {
  let em: EmulatorHandle;
  const stacks: E2eStack[] = [];
  const messages = new Map<number, string>();

  useEmulatorStack({ emulator: { seedProjects: [P] }, ready: (s) => (em = s.em) });

  beforeAll(async () => {
    for (let i = 0; i < STACKS; i++) {
      stacks.push(await stackFor({ program: PROGRAM, stackName: `bad-${i}`, config: neonConfig(em) }));
    }
    await clearRequestLog(em);
    let next = 0;
    await Promise.all(
      stacks.map(async (e2e) => {
        while (next < GROUPS.length) {
          const gi = next++;
          const g = GROUPS[gi]!;
          await e2e.stack.setConfig("cases", { value: JSON.stringify([{ kind: g.kind, args: argsOf(g) }]) });
          const err = await e2e.stack.preview({ color: "never" }).then(
            () => undefined,
            (e: Error) => e,
          );
          messages.set(gi, err === undefined ? "(preview succeeded)" : String(err.message));
        }
      }),
    );
  }, 1_200_000);

  // Runs before the fixture's teardown closes the emulator (after-hooks run last-registered first).
  afterAll(async () => {
    for (const s of stacks) await s.cleanup();
  });

  it(`tries at least 100 bad inputs across all eight resources (${CASES.length} in ${GROUPS.length} previews)`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(100);
    expect(new Set(CASES.map((c) => c.kind))).toEqual(
      new Set(["AuthIntegration", "AuthSdkKeys", "AuthOwnershipTransfer", "AuthUser", "OAuthProvider", "RedirectDomain", "EmailServer", "NeonAuth"]),
    );
  });

  it.each(CASES.map((c) => [c.kind, c.field, JSON.stringify(c.value === MISSING ? "(missing)" : c.value)?.slice(0, 60), c] as const))(
    "%s %s %s is refused, naming the field and the rule",
    (kind, field, _shown, c) => {
      const message = messages.get(c.gi)!;
      expect(message).toContain(`${kind} ${field} ${c.rule}`);
    },
  );

  it("never shows a secret or a raw value in any message", () => {
    const all = [...messages.values()].join("\n");
    expect(NEVER_SHOWN.filter((s) => all.includes(s))).toEqual([]);
    // The engine prints an input's value ("property x value {...}") only when a failure names a
    // property; none does, so it says "resource 'case-0' has a problem: <our reason>".
    expect(all).not.toMatch(/property \S+ value \{/);
    expect(all).toMatch(/resource 'case-0' has a problem: /);
  });

  it("sent no request to the API for any of them", async () => {
    const apiRequests = (await requestLog(em)).filter((r) => r.path.startsWith("/api/v2"));
    expect(apiRequests).toEqual([]);
    const refused = CASES.filter((c) => messages.get(c.gi)!.includes(`${c.kind} ${c.field} ${c.rule}`)).length;
    process.stdout.write(`bad-input figures: ${JSON.stringify({ tried: CASES.length, refused, previews: GROUPS.length, requests: apiRequests.length })}\n`);
  });
});

/**
 * Borderline forms accepted on purpose: what a program may write (case, default ports, trailing
 * slash, surrounding spaces in names, ports as strings, loopback http origins for local
 * development), stored in canonical form so that later previews and refreshes stay quiet.
 */
describe("borderline forms are accepted and made canonical", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;
  const accepted = [
    { kind: "AuthIntegration", args: { projectId: P, branchId: B, databaseName: "app_db-1", roleName: "app_owner" } },
    { kind: "RedirectDomain", args: { projectId: P, domain: "http://[::1]:3000" } },
    { kind: "RedirectDomain", args: { projectId: P, domain: "http://localhost:5173/" } },
    { kind: "RedirectDomain", args: { projectId: P, domain: "http://127.0.0.1:8080" } },
    { kind: "RedirectDomain", args: { projectId: P, domain: "HTTPS://App.Example.COM:443/" } },
    { kind: "RedirectDomain", args: { projectId: P, domain: "https://xn--bcher-kva.example" } },
    { kind: "RedirectDomain", args: { projectId: P, domain: "https://[2001:DB8:0:0::1]:8443" } },
    { kind: "RedirectDomain", args: { projectId: P, domain: "https://203.0.113.7" } },
    { kind: "EmailServer", args: { ...SMTP, host: "SMTP.Example.COM", port: "2525", username: "  apikey  ", senderName: " Example Auth " } },
    { kind: "AuthUser", args: { projectId: P, email: " Ada@Example.com ", name: "  Ada Lovelace  " } },
  ];

  useEmulatorStack({
    emulator: { seedProjects: [P] },
    stack: (em) => ({ program: PROGRAM, stackName: "borderline", config: neonConfig(em) }),
    ready: (s) => ({ em, e2e } = s),
  });

  beforeAll(async () => {
    await e2e.stack.setAllConfig({ cases: { value: JSON.stringify(accepted) }, chain: { value: "true" } });
  });

  it("up creates them in canonical form; a second preview and a refresh change nothing", async () => {
    const up = await e2e.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ create: accepted.length + 1 });
    const state = em.state() as any;
    const i = state.projects.find((p: any) => p.id === P).integrations[0];
    expect(i.domains.map((d: any) => d.domain).sort()).toEqual(
      ["http://[::1]:3000", "http://localhost:5173", "http://127.0.0.1:8080", "https://app.example.com", "https://xn--bcher-kva.example", "https://[2001:db8::1]:8443", "https://203.0.113.7"].sort(),
    );
    expect([i.db_name, i.role_name]).toEqual(["app_db-1", "app_owner"]);
    expect(i.email_server).toEqual({ type: "standard", host: "smtp.example.com", port: 2525, username: "apikey", password: "[redacted]", sender_email: "auth@example.com", sender_name: "Example Auth" });
    expect(i.users.map((u: any) => [u.email, u.name])).toEqual([["ada@example.com", "Ada Lovelace"]]);

    const preview = await e2e.stack.preview({ color: "never" });
    expect(changesOf(preview.changeSummary)).toEqual({});
    const refresh = await e2e.stack.refresh({ color: "never" });
    expect(changesOf(refresh.summary.resourceChanges)).toEqual({});
  });
});
