/**
 * No secret value anywhere a user or a CI log would show it: the API key, the SDK keys
 * (publishable client key and secret server key), the OAuth client secret, the SMTP password
 * and the ownership-transfer URL with its one-time code. Looked for in `pulumi stack export`
 * (the CLI's, which is what people share; the Automation API's exportStack decrypts by design),
 * in the CLI output of `up --diff` and `preview --diff`, in the engine events of `--debug` runs
 * (less @pulumi/pulumi's own RPC-response debug lines, which print outputs in plaintext), in
 * provider errors (a 409 and a 401), and in the emulator's request log. The engine's `-v=9` log
 * is captured and what it holds is reported, not asserted: it is plaintext by Pulumi's design.
 */
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { capture, expectNoSecretAnywhere } from "./census";
import { programOnProject, useEmulatorStack, type E2eStack } from "./harness";
import { API_KEY, outOfBand } from "./neon";
import { emulatorOnlyIt } from "./remote";

const P = "p-secrets";
const CLIENT_SECRET = "gh-secret-s3cr3t-a71c";
const CLIENT_SECRET_2 = "gh-secret-s3cr3t-b82d";
const OTHER_CLIENT_SECRET = "gh-secret-outside-c93e";
const SMTP_PASSWORD = "smtp-pw-s3cr3t-d04f";
const WRONG_KEY = "wrong-key-s3cr3t-e15a";

const captured = capture();
const { seen, LOUD, debugSeen, DEBUG, failing } = captured;
/** The engine's verbose log (-v=9 --logtostderr --logflow) of one preview, kept apart. */
const verbose: string[] = [];
const VERBOSE = {
  ...LOUD,
  debug: true,
  logVerbosity: 9,
  logToStdErr: true,
  logFlow: true,
  onOutput: (s: string) => verbose.push(s),
  onError: (s: string) => verbose.push(s),
};

describe("secrets stay secret", () => {
  let em: EmulatorHandle;
  let e2e: E2eStack;

  const cli = (...args: string[]) => e2e.cli(...args);

  useEmulatorStack({
    ...programOnProject("all-kinds", P, { secrets: { clientSecret: CLIENT_SECRET, smtpPassword: SMTP_PASSWORD }, emulator: { rateLimit: "off" } }),
    ready: (s) => ({ em, e2e } = s),
  });

  it("up, an update and a preview with --diff and debug logs; a 409 and a 401 from the provider", { timeout: 300_000 }, async () => {
    const up = await e2e.stack.up(LOUD);
    seen.push(up.stdout, up.stderr);
    expect(up.summary.result).toBe("succeeded");
    // The transfer URL is a secret output, and carries the one-time code.
    expect(up.outputs.transferUrl).toMatchObject({ secret: true });

    // An in-place update of every secret-carrying input (diffs print secret fields).
    await e2e.stack.setAllConfig({ clientSecret: { value: CLIENT_SECRET_2, secret: true }, smtpPort: { value: "2525" }, rotation: { value: "r2" } });
    const preview = await e2e.stack.preview(DEBUG);
    debugSeen.push(preview.stdout, preview.stderr);
    const update = await e2e.stack.up(DEBUG);
    debugSeen.push(update.stdout, update.stderr);
    const loud = await e2e.stack.preview(VERBOSE);
    verbose.push(loud.stdout, loud.stderr);

    // A 409: the provider removed from the stack, made again outside it with other
    // credentials, then declared again (its create POST carries the client secret).
    await e2e.stack.setConfig("without", { value: JSON.stringify(["oauth"]) });
    seen.push((await e2e.stack.up(LOUD)).stdout);
    expect(
      await outOfBand(em, "POST", `/projects/${P}/auth/oauth_providers`, {
        id: "github",
        client_id: "outside-id",
        client_secret: OTHER_CLIENT_SECRET,
      }),
    ).toBe(200);
    await e2e.stack.setConfig("without", { value: "[]" });
    const conflict = await failing(() => e2e.stack.up(LOUD));
    expect(conflict).toContain("OAuthProvider github of project p-secrets already exists and was not made by this stack");

    // A 401: a wrong key, on a change whose PATCH carries the SMTP password.
    await e2e.stack.setAllConfig({ without: { value: JSON.stringify(["oauth"]) }, "neon-auth:apiKey": { value: WRONG_KEY, secret: true }, smtpPort: { value: "465" } });
    const refused = await failing(() => e2e.stack.up(LOUD));
    expect(refused).toContain("401 from PATCH /projects/p-secrets/auth/email_server: authentication failed: unknown API key");
    await e2e.stack.setAllConfig({ "neon-auth:apiKey": { value: API_KEY, secret: true }, smtpPort: { value: "2525" } });
  });

  emulatorOnlyIt("the keys and transfer codes as the emulator stored them")("none of them is in the CLI's stack export, the outputs, any output or log, or the request log", { timeout: 120_000 }, async () => {
    const state = (await em.state({ secrets: true })) as any;
    const integration = state.projects.find((p: any) => p.id === P).integrations[0];
    const sdkKeys = integration.keys.flatMap((k: any) => [k.pub_client_key, k.secret_server_key]);
    const codes = state.transfers.map((t: any) => t.code);
    expect(sdkKeys.length).toBeGreaterThanOrEqual(6); // the integration's and two rotations
    expect(codes.length).toBe(1);
    const secrets: [string, string][] = [
      ["API key", API_KEY],
      ["wrong API key", WRONG_KEY],
      ["OAuth client secret", CLIENT_SECRET],
      ["rotated OAuth client secret", CLIENT_SECRET_2],
      ["outside OAuth client secret", OTHER_CLIENT_SECRET],
      ["SMTP password", SMTP_PASSWORD],
      ...sdkKeys.map((k: string) => [`SDK key ${k.slice(0, 4)}…`, k] as [string, string]),
      ...codes.map((c: string) => ["transfer code", c] as [string, string]),
    ];

    const places = await expectNoSecretAnywhere({ cli, controlUrl: em.controlUrl, captured, errors: "a 409, a 401" }, secrets);
    // The secrets are really in the state, encrypted: the export has ciphertexts for them.
    expect(cli("stack", "export")).toContain("1b47061264138c4ac30d75fd1eb44270");
    // The engine's -v=9 log is not for sharing: it holds inputs, outputs and config in
    // plaintext. Reported, not asserted (see the README).
    const inVerbose = secrets.filter(([, v]) => verbose.join("\n").includes(v)).map(([w]) => w);
    const inSdkDebug = secrets.filter(([, v]) => debugSeen.join("\n").includes(v)).map(([w]) => w);
    console.log(
      `secrets figures: ${JSON.stringify({ secrets: secrets.length, places: places.length, bytesSearched: places.reduce((n, [, t]) => n + t.length, 0), found: 0, inSdkDebugLines: inSdkDebug, inVerboseLog: inVerbose, verboseBytes: verbose.join("").length })}`,
    );
  });
});
