/**
 * The messages of a user's first hour (issue 42, point 7), each with its exact text, from the two
 * ways a program meets the package: a TypeScript program run with the type check skipped (as the
 * README suggests for pipelines, so a typo reaches the provider) on the dynamic resources, and a
 * YAML program on the plugin. Read from the CLI's output, as the user reads it: a configuration
 * error once under its resource with no stack trace; a misspelt field inside a setting named by
 * its path with the field meant; a bare host name as a trusted domain answered with the origin
 * meant; an API that refuses connections met once per run, naming the URL, the setting it came
 * from and what to do; a wait after a 423 or a 429 saying which attempt follows. Each face shares
 * one stack and one emulator; everything but the refused connection and the waits is a preview.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { attempt, changesOf, expectNoChanges, pluginStack, stackFor, type E2eStack } from "./harness";
import { API_KEY, emulator, yamlDomain } from "./neon";
import { emulatorOnlyIt } from "./remote";

const P = "p-first";
const B = "br-main-p-first";
const BRANCHES = ["br-one", "br-two", "br-three"];
// Nothing listens on port 0: every connection to it is refused.
const REFUSING = "http://127.0.0.1:0/api/v2";

/** The branch's NeonAuth in the YAML scenarios. */
const AUTH = `
  auth:
    type: neon-auth:index:NeonAuth
    properties:
      projectId: ${P}
      branchId: ${B}`;

/** The YAML face's program for each scenario (the TypeScript face's are in programs/first-hour/index.ts). */
const YAML: Record<string, string> = {
  quick: AUTH + yamlDomain("app", "https://app.example.com"),
  "nested-typo": `${AUTH}
      magicLink:
        enabled: true
        expiresin: 30`,
  origin: AUTH + yamlDomain("app", "app.example.com"),
  children: `${AUTH}${yamlDomain("app", "https://app.example.com")}
  google:
    type: neon-auth:index:OAuthProvider
    properties:
      integration: \${auth.ref}
      providerId: google`,
  "three-branches": BRANCHES.map(
    (b) => `
  ${b}:
    type: neon-auth:index:NeonAuth
    properties:
      projectId: ${P}
      branchId: ${b}`,
  ).join(""),
};

/**
 * The lines under "Diagnostics:", trimmed, up to the summary, without colour and without the
 * engine's warnings about a plugin found on PATH (how the tests install it; not this package's words).
 */
function diagnostics(out: string): string[] {
  // An `up`'s own preview may have a section too: the update's is the last.
  const from = out.lastIndexOf("\nDiagnostics:\n");
  const to = out.indexOf("\nResources:\n", from);
  const lines = out
    .slice(from + "\nDiagnostics:\n".length, to)
    .replace(/\u001b\[[0-9;]*m/g, "")
    .split("\n")
    .filter((l) => l.trim() !== "" && !/^\s*warning: using pulumi-\S+ from \$PATH/.test(l));
  // A header (two spaces in) left with nothing under it goes too.
  return lines.filter((l, i) => !(/^  \S/.test(l) && (i + 1 === lines.length || /^  \S/.test(lines[i + 1]!)))).map((l) => l.trim());
}

let em: EmulatorHandle;
beforeAll(async () => {
  em = await emulator({ seedProjects: [`${P}:${B}`] });
});
afterAll(async () => {
  await em?.close();
});

describe.each(["typescript", "yaml"] as const)("the first hour's messages: a %s program", (face) => {
  let e2e: E2eStack;
  /** The resource type as the CLI names it. */
  const type = (kind: string) => (face === "typescript" ? `pulumi-nodejs:dynamic/neon-auth:${kind}` : `neon-auth:index:${kind}`);
  const scenario = async (name: string) => {
    if (face === "typescript") await e2e.stack.setConfig("scenario", { value: name });
    else fs.writeFileSync(path.join(e2e.dir, "Pulumi.yaml"), `name: first-hour-yaml\nruntime: yaml\nresources:${YAML[name]}\n`);
  };
  /** A configuration error: once under the resource (its row and Diagnostics), no stack trace, nothing under the stack. */
  const configError = async (message: string) => {
    const { code, out } = await attempt(e2e, "preview");
    expect(code).toBe(1);
    expect(diagnostics(out)).toEqual([`${type("NeonAuth")} (auth):`, `error: ${message}`]);
    expect(out.split(message).length - 1).toBe(2);
    expect(out).not.toMatch(/^\s+at /m);
    expect(out).not.toContain("NeonConfigError");
  };
  /** A check failure at preview, as the engine words it. */
  const checkError = async (kind: string, name: string, reason: string) => {
    const { code, out } = await attempt(e2e, "preview");
    expect(code).toBe(1);
    expect(diagnostics(out)).toEqual([`${type(kind)} (${name}):`, `error: ${type(kind)} resource '${name}' has a problem: ${reason}`]);
  };

  beforeAll(async () => {
    e2e =
      face === "typescript"
        ? await stackFor({ program: path.join(__dirname, "programs", "first-hour"), config: { projectId: { value: P }, branchId: { value: B } } })
        : await pluginStack({ program: path.join(__dirname, "programs", "first-hour-yaml") }, "yaml");
    await scenario("quick");
  });
  afterAll(async () => {
    await e2e?.cleanup();
  });

  it("no API key: one line under the resource, naming this package's settings", async () => {
    await configError("no Neon API key is configured: run `pulumi config set --secret neon-auth:apiKey <key>` or set the NEON_API_KEY environment variable");
  });

  it("a key and a URL from different places: one line, naming both settings", async () => {
    await e2e.stack.setConfig("neon-auth:apiKey", { value: API_KEY, secret: true });
    e2e.env.NEON_API_URL = em.url;
    try {
      await configError(
        "the Neon API key comes from neon-auth:apiKey but the API URL from NEON_API_URL; a key is only sent to a URL set in the same place. " +
          "Set neon-auth:apiUrl as well (or instead), or take the key from NEON_API_KEY",
      );
    } finally {
      delete e2e.env.NEON_API_URL;
    }
    await e2e.stack.setConfig("neon-auth:apiUrl", { value: em.url });
  });

  it("a misspelt field inside a setting: named by its path, with the field meant", async () => {
    await scenario("nested-typo");
    if (face === "typescript") {
      await checkError("NeonAuth", "auth", "NeonAuth magicLink.expiresin is not a field of magicLink (did you mean magicLink.expiresIn?); its fields: enabled, expiresIn, disableSignUp");
      return;
    }
    // Pulumi YAML checks the program against the plugin's schema before any resource reaches the
    // plugin: its own words, naming the setting's type and its fields.
    const { code, out } = await attempt(e2e, "preview");
    expect(code).toBe(1);
    expect(diagnostics(out)).toEqual([
      "pulumi:pulumi:Stack (first-hour-yaml-e2e):",
      "Error: Property expiresin does not exist on 'neon-auth:index:NeonAuthMagicLink'",
      "on Pulumi.yaml line 10:",
      "10:         enabled: true",
      "11:         expiresin: 30",
      "Cannot assign '{projectId: string, branchId: string, magicLink: {enabled: boolean, expiresin: number}}' to 'neon-auth:index:NeonAuth':",
      "magicLink: Cannot assign '{enabled: boolean, expiresin: number}' to 'neon-auth:index:NeonAuthMagicLink':",
      "Existing properties are: expiresIn, enabled, disableSignUp",
    ]);
  });

  it("a bare host name as a trusted domain: answered with the origin meant", async () => {
    await scenario("origin");
    await checkError(
      "RedirectDomain",
      "app",
      "RedirectDomain domain must be an origin of the form https://host[:port], with no path, query, fragment or credentials: did you mean https://app.example.com?",
    );
  });

  it("an API that refuses connections: one error per run with the URL, its setting and a hint; the others refer to it", async () => {
    await scenario("three-branches");
    await e2e.stack.setConfig("neon-auth:apiUrl", { value: REFUSING });
    try {
      const { code, out } = await attempt(e2e, "up", "--yes");
      expect(code).toBe(1);
      const errors = diagnostics(out).filter((l) => l.startsWith("error: ") && l !== "error: update failed");
      const full = errors.filter((l) => !l.endsWith(")") && !l.includes(" either: "));
      expect(full).toHaveLength(1);
      const first = BRANCHES.find((b) => full[0]!.includes(`/branches/${b}/auth`))!;
      expect(full[0]).toBe(
        `error: cannot connect to the Neon API at ${REFUSING} (the base URL from neon-auth:apiUrl): the connection was refused ` +
          `(ECONNREFUSED, 3 attempts of GET /projects/${P}/branches/${first}/auth); nothing listens there: start the emulator ` +
          "(`npx neon-auth-emulator --port 0`) or correct neon-auth:apiUrl. The other resources of this run that need the API refer to this error",
      );
      expect(errors.filter((l) => l !== full[0]).sort()).toEqual(
        BRANCHES.filter((b) => b !== first).map(() => `error: cannot connect to the Neon API at ${REFUSING} either: see the error of NeonAuth on ${P}/${first}`),
      );
    } finally {
      await e2e.stack.setConfig("neon-auth:apiUrl", { value: em.url });
    }
  });

  /**
   * One stack for both: its up meets a lock and a 429 injected by the emulator; then the emulator
   * stops, and every command after meets a refused connection, until it starts again.
   */
  emulatorOnlyIt("an emulator of its own with a lock and a 429 injected, stopped and started again at its port, with its state file")("waits after a 423 and a 429 say when the retry goes and which attempt it is; an API that stops answering: refresh, preview, up and destroy each print its error once; every other resource names the one that did; then no changes", async () => {
    const stateFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "first-hour-")), "emulator.json");
    let own = await outsideEphemeral((port) => emulator({ port, seedProjects: [`${P}:${B}`], stateFile }));
    const url = `${own.url.replace(/\/+$/, "")}`;
    const port = new URL(url).port;
    try {
      await scenario("children");
      await e2e.stack.setAllConfig({ "neon-auth:apiKey": { value: API_KEY, secret: true }, "neon-auth:apiUrl": { value: own.url } });
      const auth = `/projects/${P}/branches/${B}/auth`;
      own.injectFaults(
        { kind: "lock", method: "GET", path: auth },
        { kind: "lock", method: "GET", path: auth },
        { kind: "error", status: 429, method: "GET", path: auth },
        { kind: "error", status: 429, method: "GET", path: auth },
      );
      const up = await attempt(e2e, "up", "--yes");
      expect(up.code, up.out).toBe(0);
      // The three resources; the Stack is there since the refused up above.
      expect(up.out).toMatch(/^ {4}\+ 3 created\n {4}1 unchanged$/m);
      // The dynamic resources log through the Node SDK, which marks its lines as the runtime's; the
      // plugin's go straight to the engine's log, which shows an info line bare.
      const info = face === "typescript" ? "info: [runtime] " : "";
      // At most one line per kind of wait every 2 s: the first 423 (attempt 1) and the first 429 (attempt 3).
      expect(diagnostics(up.out).filter((l) => l.includes("neon-auth: NeonAuth")).map((l) => l.replace(/retrying in \d+\.\d s/, "retrying in N s").replace(/it may wait [^;]*? more/, "it may wait … more"))).toEqual([
        `${info}neon-auth: NeonAuth on ${P}/${B} waits: the project is locked by another operation (423), retrying in N s (attempt 2 of 11); it may wait … more (neon-auth:lockTimeoutSeconds)`,
        `${info}neon-auth: NeonAuth on ${P}/${B} waits after a 429 from Neon (rate limit: the account's budget is spent, other stacks or tools use it too), retrying in N s (attempt 4 of 13); it may wait … more (neon-auth:rateLimitTimeoutSeconds)`,
      ]);
      await own.close();
      // The labels the engine's rows do not give: each resource as the package names it.
      const labels = [`NeonAuth ${P}/${B}`, "RedirectDomain https://app.example.com", `OAuthProvider ${P}/${B}/google`];
      for (const command of [["refresh", "--yes"], ["preview", "--refresh"], ["up", "--yes", "--refresh"], ["destroy", "--yes"]]) {
        const { code, out } = await attempt(e2e, ...command);
        expect(code, out).not.toBe(0);
        const errors = diagnostics(out).filter((l) => l.includes("cannot connect"));
        const full = errors.filter((l) => !l.includes(" either: "));
        expect(full, `${command[0]}: ${out}`).toHaveLength(1);
        const [, what] = / attempts? of ([A-Z]+ \S+)\);/.exec(full[0]!) ?? [];
        expect(full[0]!.slice(full[0]!.indexOf("cannot connect"))).toBe(
          `cannot connect to the Neon API at ${url} (the base URL from neon-auth:apiUrl): the connection was refused ` +
            `(ECONNREFUSED, 3 attempts of ${what}); nothing listens there: start the emulator ` +
            `(\`npx neon-auth-emulator --port ${port}\`) or correct neon-auth:apiUrl. The other resources of this run that need the API refer to this error`,
        );
        const others = errors.filter((l) => l !== full[0]).map((l) => l.slice(l.indexOf("cannot connect")));
        expect(others.length, `${command[0]}: ${out}`).toBeGreaterThan(0);
        const first = /see the error of (.*)$/.exec(others[0]!)![1]!;
        expect(labels).toContain(first);
        expect(others).toEqual(others.map(() => `cannot connect to the Neon API at ${url} either: see the error of ${first}`));
      }
      own = await emulator({ port: Number(port), stateFile });
      await expectNoChanges(e2e.stack);
      expect(changesOf((await e2e.stack.destroy({ color: "never" })).summary.resourceChanges)).toEqual({ delete: 4 });
    } finally {
      await own.close().catch(() => undefined);
      await e2e.stack.setConfig("neon-auth:apiUrl", { value: em.url });
      fs.rmSync(path.dirname(stateFile), { recursive: true, force: true });
    }
  });
});

/**
 * Started on a port below the range the system hands out to every process that asks for any port
 * (32768 and up here): once it stops, no Pulumi plugin starting meanwhile can take its port and
 * answer in its place (it happened: gRPC's HTTP/2 where the API had been).
 */
async function outsideEphemeral<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await start(20_000 + Math.floor(Math.random() * 12_000));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE" || i === 20) throw e;
    }
  }
}
