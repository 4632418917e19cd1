/**
 * One owner per object. In one stack, two declarations of one object (two spellings of one
 * origin, the email server twice) fail at preview naming both resources, before any request. In
 * two stacks, the second to declare a domain or the email server of the first's branch fails
 * naming the object and `adopt`, and the first's objects stay as they were (SMTP password
 * included), also after the second stack is destroyed.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, stackFor, type E2eStack } from "./harness";
import { branchSnapshot, clearRequestLog, emulator, neonConfig, projectConfig, requestLog } from "./neon";
import { atEmulator, REMOTE } from "./remote";

const PROGRAM = path.join(__dirname, "programs", "one-owner");
const P = "p-owner";
const B = `br-main-${P}`;
const NOT_OURS = "already exists and was not made by this stack";

function config(em: EmulatorHandle, o: { domains?: string[]; smtpHosts?: string[]; lookup?: boolean; smtpPassword: string }) {
  return {
    ...neonConfig(em),
    ...projectConfig(P, B, { smtpPassword: o.smtpPassword }),
    domains: { value: JSON.stringify(o.domains ?? []) },
    smtpHosts: { value: JSON.stringify(o.smtpHosts ?? []) },
    lookup: { value: String(o.lookup ?? false) },
  };
}

/** A top-level resource's URN in this file's program. */
const urnOf = (e2e: E2eStack, kind: string, name: string) => `urn:pulumi:${e2e.stack.name}::one-owner::pulumi-nodejs:dynamic/neon-auth:${kind}::${name}`;

async function failing(run: () => Promise<unknown>): Promise<string> {
  return run().then(
    () => {
      throw new Error("succeeded");
    },
    (e: Error) => e.message,
  );
}

/**
 * The branch's whole auth record, secrets included: what "untouched" is measured on (in remote
 * mode, what the API shows of it).
 */
async function branchRecord(em: EmulatorHandle): Promise<string> {
  if (REMOTE) return JSON.stringify(await branchSnapshot(em, P, B));
  return (await fetch(`${em.controlUrl}/projects/${P}/branches/${B}/auth?secrets=true`)).text();
}

describe("one owner per object", () => {
  it("two declarations of one object in one stack fail at preview, naming both, with no request", { timeout: 600_000 }, async () => {
    const em = await emulator({ seedProjects: [`${P}:${B}`], rateLimit: "off" });
    const e2e = await stackFor({
      program: PROGRAM,
      config: config(em, { domains: ["https://app.example.com", "https://APP.example.com:443/"], smtpPassword: "smtp-pw-dup-5e1b" }),
    });
    try {
      await clearRequestLog(em);
      const domains = await failing(() => e2e.stack.preview({ color: "never" }));
      expect(domains).toContain(
        `RedirectDomain ${urnOf(e2e, "RedirectDomain", "domain-0")} and RedirectDomain ${urnOf(e2e, "RedirectDomain", "domain-1")} declare one origin (domain): both would manage one object at Neon, ` +
          "and removing either would delete it under the other. Declare it once.",
      );
      // Never the value: it may be a secret.
      expect(domains).not.toContain("APP.example.com");

      await e2e.stack.setAllConfig(config(em, { domains: ["https://app.example.com"], smtpHosts: ["smtp.a.example", "smtp.b.example"], smtpPassword: "smtp-pw-dup-5e1b" }));
      const email = await failing(() => e2e.stack.preview({ color: "never" }));
      expect(email).toContain(`EmailServer ${urnOf(e2e, "EmailServer", "email-0")} and EmailServer ${urnOf(e2e, "EmailServer", "email-1")} declare the email server of one integration (the same place)`);
      expect(email).not.toContain("smtp-pw-dup-5e1b");
      expect(await requestLog(em)).toEqual([]);

      // Declared once, it goes through.
      await e2e.stack.setAllConfig(config(em, { domains: ["https://APP.example.com:443/"], smtpHosts: ["smtp.a.example"], smtpPassword: "smtp-pw-dup-5e1b" }));
      const up = await e2e.stack.up({ color: "never" });
      expect(changesOf(up.summary.resourceChanges)).toEqual({ create: 4 });
      await expectNoChanges(e2e.stack);
    } finally {
      await e2e.cleanup();
      await em.close();
    }
  });

  it("a second stack declaring the first's domain and email server fails, and the first's stay as they were", { timeout: 600_000 }, async () => {
    const em = await emulator({ seedProjects: [`${P}:${B}`], rateLimit: "off" });
    let first: E2eStack | undefined;
    let second: E2eStack | undefined;
    try {
      first = await stackFor({ program: PROGRAM, stackName: "first", config: config(em, { domains: ["https://app.example.com"], smtpHosts: ["smtp.first.example"], smtpPassword: "smtp-pw-first-2c7a" }) });
      const up = await first.stack.up({ color: "never" });
      expect(changesOf(up.summary.resourceChanges)).toEqual({ create: 4 });
      const before = await branchRecord(em);
      await atEmulator(() => expect(JSON.parse(before).auth.email_provider).toMatchObject({ host: "smtp.first.example", password: "smtp-pw-first-2c7a" }));

      second = await stackFor({
        program: PROGRAM,
        stackName: "second",
        config: config(em, { lookup: true, domains: ["https://app.example.com"], smtpHosts: ["smtp.second.example"], smtpPassword: "smtp-pw-second-8d4f" }),
      });
      const err = await failing(() => second!.stack.up({ color: "never" }));
      expect(err).toContain(`RedirectDomain https://app.example.com of branch ${B} of project ${P} ${NOT_OURS}`);
      expect(err).toMatch(new RegExp(`EmailServer [^\\n]*${NOT_OURS}`));
      expect(err).not.toContain("smtp-pw-second-8d4f");
      expect(await branchRecord(em)).toBe(before);

      // The first stack's no-change preview and refresh, once the second's failed up and its destroy are both behind it.
      const destroyed = await second.stack.destroy({ color: "never" });
      expect(changesOf(destroyed.summary.resourceChanges)).toEqual({ delete: 1, discard: 1 }); // the stack; the looked-up NeonAuth is only forgotten
      expect(await branchRecord(em)).toBe(before);
      await expectNoChanges(first.stack);
    } finally {
      await second?.cleanup();
      await first?.cleanup();
      await em.close();
    }
  });
});
