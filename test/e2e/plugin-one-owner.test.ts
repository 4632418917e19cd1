/**
 * One owner per object on the provider plugin, as on the classes (one-owner.test.ts): in one YAML
 * program, two spellings of one origin, and the email server twice, fail at preview naming both
 * resources, with no request to the API. The plugin sees every Check of a deployment, so it can,
 * once the integration the two name is known. In the preview of a brand-new stack it is not known
 * yet (the children name it by the NeonAuth's `ref` output): the same Check refuses the second at
 * `up`, before its request, as the README says.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, expectNoChanges, pluginStack, type E2eStack } from "./harness";
import { branchSnapshot, clearRequestLog, emulator, neonConfig, projectConfig, requestLog, yamlDomain } from "./neon";

const P = "p-owner-yaml";
const B = `br-main-${P}`;

const DOMAINS = yamlDomain("app", "https://app.example.com") + yamlDomain("app-again", "HTTPS://App.Example.com:443/") + "\n";
const EMAIL = `
  mail:
    type: neon-auth:index:EmailServer
    properties:
      integration: \${auth.ref}
      type: shared
  mail-again:
    type: neon-auth:index:EmailServer
    properties:
      integration: \${auth.ref}
      type: shared
`;

// Whichever of the two the engine checks first is named first, each by its URN.
const both = (kind: string, a: string, b: string, what: string) => {
  const urn = (name: string) => `urn:pulumi:[^:]+::[^:]+::neon-auth:index:${kind}::${name}`;
  return new RegExp(`${kind} ${urn(`(${a}|${b})`)} and ${kind} ${urn(`(${b}|${a})`)} declare ${what.replace(/[()]/g, "\\$&")}: both would manage one object at Neon, and removing either would delete it under the other\\. Declare it once\\.`);
};

/**
 * One stack on one emulator: the brand-new stack's case first; the stack it leaves (its NeonAuth
 * made, nothing else) is where the integration is known for the second.
 */
describe("one owner per object on the plugin", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;
  let program: string;
  let base: string;

  beforeAll(async () => {
    em = await emulator({ seedProjects: [`${P}:${B}`], rateLimit: "off" });
    e2e = await pluginStack({ program: path.join(__dirname, "programs", "one-owner-yaml"), config: { ...neonConfig(em), ...projectConfig(P, B) } }, "yaml");
    program = path.join(e2e.dir, "Pulumi.yaml");
    base = fs.readFileSync(program, "utf8");
  });

  afterAll(async () => {
    await e2e?.cleanup();
    await em?.close();
  });

  it("in a brand-new stack, two spellings of one origin pass preview (their integration is not made yet) and the second is refused at up, before its request", { timeout: 300_000 }, async () => {
    fs.writeFileSync(program, base + DOMAINS);
    expect(changesOf((await e2e.stack.preview({ color: "never" })).changeSummary)).toEqual({ create: 4 });
    const up = await e2e.stack.up({ color: "never" }).then(
      () => "succeeded",
      (e: Error) => e.message,
    );
    expect(up).toMatch(both("RedirectDomain", "app", "app-again", "one origin (domain)"));
    // The engine may have started the first one's create before it checked the second: one POST at most.
    const posts = (await requestLog(em)).filter((r) => r.method === "POST" && r.path.endsWith("/auth/domains"));
    expect(posts.length).toBeLessThanOrEqual(1);
    expect((await branchSnapshot(em, P, B)).domains).toEqual(posts.length === 1 ? ["https://app.example.com"] : []);
    fs.writeFileSync(program, base);
    expect(changesOf((await e2e.stack.up({ color: "never" })).summary.resourceChanges)).toEqual(posts.length === 1 ? { delete: 1 } : {});
    expect((await branchSnapshot(em, P, B)).domains).toEqual([]);
    await expectNoChanges(e2e.stack, 2);
  });

  it("two resources naming one origin, or the email server twice, fail at preview naming both, with no request", { timeout: 300_000 }, async () => {
    const preview = (resources: string) => {
      fs.writeFileSync(program, base + resources);
      return e2e.stack.preview({ color: "never" }).then(
        () => "succeeded",
        (e: Error) => e.message,
      );
    };
    // The stack above holds its NeonAuth (2 with the stack itself): the integration is known.
    await clearRequestLog(em);
    const domains = await preview(DOMAINS);
    expect(domains).toMatch(both("RedirectDomain", "app", "app-again", "one origin (domain)"));
    const email = await preview(EMAIL);
    expect(email).toMatch(both("EmailServer", "mail", "mail-again", "the email server of one integration (the same place)"));
    expect(await requestLog(em)).toEqual([]);
    fs.writeFileSync(program, base);
    expect((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges).toEqual({ delete: 2 });
  });
});
