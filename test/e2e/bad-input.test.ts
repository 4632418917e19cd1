/**
 * Invalid inputs fail at preview through the real engine, with a message that names the field and
 * the rule, never the value, and without a single request to the API. Every case of
 * test/bad-inputs.ts goes through the check of both faces in test/unit/bad-input.test.ts; the
 * engine previews a sample (the groups the table marks `engine`) for what only it shows: how a
 * failure reaches the user (`resource 'case-0' has a problem: <reason>`, no value echoed beside
 * it) and that nothing reaches the API on the way. Borderline forms accepted on purpose go through
 * `up`, on the same stack.
 */
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { argsOf, B, CASES, GROUPS, MISSING, NEVER_SHOWN, P, SMTP } from "../bad-inputs";
import { changesOf, useEmulatorStack, type E2eStack } from "./harness";
import { clearRequestLog, neonConfig, requestLog } from "./neon";
import { atEmulator } from "./remote";

const PROGRAM = path.join(__dirname, "programs", "many-resources");
const SAMPLE = GROUPS.flatMap((g, gi) => (g.engine === undefined ? [] : [gi]));

let em: EmulatorHandle;
let e2e: E2eStack;

useEmulatorStack({
  emulator: { seedProjects: [P] },
  stack: (em) => ({ program: PROGRAM, stackName: "bad-input", config: neonConfig(em) }),
  ready: (s) => ({ em, e2e } = s),
});

describe("bad input is refused at preview", () => {
  const messages = new Map<number, string>();

  beforeAll(async () => {
    await clearRequestLog(em);
    for (const gi of SAMPLE) {
      const g = GROUPS[gi]!;
      await e2e.stack.setConfig("cases", { value: JSON.stringify([{ kind: g.kind, args: argsOf(g) }]) });
      const err = await e2e.stack.preview({ color: "never" }).then(
        () => undefined,
        (e: Error) => e,
      );
      messages.set(gi, err === undefined ? "(preview succeeded)" : String(err.message));
    }
  });

  it("previews a secret, a misspelt input, control characters, a child and a NeonAuth setting", () => {
    expect(SAMPLE.map((gi) => `${GROUPS[gi]!.kind}: ${GROUPS[gi]!.engine}`)).toEqual([
      "AuthIntegration: CR/LF in a database name, misspelt inputs",
      "EmailServer: SMTP header injection, a secret, a misspelt input",
      "OAuthProvider: a child; a secret with CR/LF",
      "AuthUser: terminal escapes",
      "NeonAuth: a setting, secret as a whole, with CR/LF",
    ]);
  });

  it.each(
    CASES.filter((c) => SAMPLE.includes(c.gi)).map((c) => [c.kind, c.field, JSON.stringify(c.value === MISSING ? "(missing)" : c.value)?.slice(0, 60), c] as const),
  )("%s %s %s is refused, naming the field and the rule", (kind, field, _shown, c) => {
    expect(messages.get(c.gi)!).toContain(`${kind} ${field} ${c.rule}`);
  });

  it("says which resource has a problem, never shows a secret or a raw value", () => {
    // The engine prints an input's value ("property x value {...}") only when a failure names a
    // property; none does, so it says "resource 'case-0' has a problem: <our reason>".
    for (const [gi, message] of messages) expect(message, GROUPS[gi]!.kind).toMatch(/resource 'case-0' has a problem: /);
    const all = [...messages.values()].join("\n");
    expect(all).not.toMatch(/property \S+ value \{/);
    expect(NEVER_SHOWN.filter((s) => all.includes(s))).toEqual([]);
  });

  it("sent no request to the API for any of them", async () => {
    expect((await requestLog(em)).filter((r) => r.path.startsWith("/api/v2"))).toEqual([]);
  });
});

/**
 * Borderline forms accepted on purpose: what a program may write (case, default ports, trailing
 * slash, surrounding spaces in names, ports as strings, loopback http origins for local
 * development), stored in canonical form so that later previews and refreshes stay quiet.
 */
describe("borderline forms are accepted and made canonical", () => {
  const accepted = [
    { kind: "AuthIntegration", args: { projectId: P, branchId: B, databaseName: "app_db-1", roleName: "app_owner" } },
    { kind: "RedirectDomain", args: { domain: "http://[::1]:3000" } },
    { kind: "RedirectDomain", args: { domain: "http://localhost:5173/" } },
    { kind: "RedirectDomain", args: { domain: "http://127.0.0.1:8080" } },
    { kind: "RedirectDomain", args: { domain: "HTTPS://App.Example.COM:443/" } },
    { kind: "RedirectDomain", args: { domain: "https://xn--bcher-kva.example" } },
    { kind: "RedirectDomain", args: { domain: "https://[2001:DB8:0:0::1]:8443" } },
    { kind: "RedirectDomain", args: { domain: "https://203.0.113.7" } },
    { kind: "EmailServer", args: { ...SMTP, projectId: undefined, host: "SMTP.Example.COM", port: "2525", username: "  apikey  ", senderName: " Example Auth " } },
    { kind: "AuthUser", args: { email: " Ada@Example.com ", name: "  Ada Lovelace  " } },
  ];

  beforeAll(async () => {
    await e2e.stack.setAllConfig({ cases: { value: JSON.stringify(accepted) }, chain: { value: "true" } });
  });

  it("up creates them in canonical form; a second preview and a refresh change nothing", async () => {
    const up = await e2e.stack.up({ color: "never" });
    expect(changesOf(up.summary.resourceChanges)).toEqual({ create: accepted.length + 1 });
    await atEmulator(() => {
      const state = em.state() as any;
      const i = state.projects.find((p: any) => p.id === P).integrations[0];
      expect(i.domains.map((d: any) => d.domain).sort()).toEqual(
        ["http://[::1]:3000", "http://localhost:5173", "http://127.0.0.1:8080", "https://app.example.com", "https://xn--bcher-kva.example", "https://[2001:db8::1]:8443", "https://203.0.113.7"].sort(),
      );
      expect([i.db_name, i.role_name]).toEqual(["app_db-1", "app_owner"]);
      expect(i.email_server).toEqual({ type: "standard", host: "smtp.example.com", port: 2525, username: "apikey", password: "[redacted]", sender_email: "auth@example.com", sender_name: "Example Auth" });
      expect(i.users.map((u: any) => [u.email, u.name])).toEqual([["ada@example.com", "Ada Lovelace"]]);
    });

    const preview = await e2e.stack.preview({ color: "never" });
    expect(changesOf(preview.changeSummary)).toEqual({});
    const refresh = await e2e.stack.refresh({ color: "never" });
    expect(changesOf(refresh.summary.resourceChanges)).toEqual({});
  });
});
