/**
 * What the secret censuses (secrets.test.ts, secrets-neon-auth.test.ts) capture: the output of
 * operations run with --diff (what a CI log shows) and of --debug runs, and the errors of
 * operations that must fail; and the search of those places for secret values.
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { expect } from "vitest";

const SDK_RPC_RESPONSE = /^(RegisterResource|ReadResource|RegisterResourceOutputs|getResource Invoke) RPC finished/;

export function capture() {
  /** All output of the operations with --diff, provider errors included. */
  const seen: string[] = [];
  const LOUD = { color: "never" as const, diff: true, onOutput: (s: string) => seen.push(s), onError: (s: string) => seen.push(s) };
  /**
   * The output of --debug runs, kept apart and not searched: @pulumi/pulumi's own debug lines print
   * every resource's inputs and outputs in plaintext (README, Secrets). Their engine events are,
   * less the SDK's RPC response messages.
   */
  const debugSeen: string[] = [];
  const debugEvents: string[] = [];
  const DEBUG = {
    ...LOUD,
    debug: true,
    onOutput: (s: string) => debugSeen.push(s),
    onError: (s: string) => debugSeen.push(s),
    onEvent: (e: EngineEvent) => {
      if (!SDK_RPC_RESPONSE.test(e.diagnosticEvent?.message ?? "")) debugEvents.push(JSON.stringify(e));
    },
  };
  /** Runs an operation that must fail; keeps its whole output and error. */
  async function failing(op: () => Promise<unknown>): Promise<string> {
    const err = await op().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err, "operation must fail").toBeInstanceOf(Error);
    seen.push(String(err!.message), String((err as any).stdout ?? ""), String((err as any).stderr ?? ""));
    return String(err!.message);
  }
  return { seen, LOUD, debugSeen, debugEvents, DEBUG, failing };
}

/** `<what> in <where>` for every secret value found in a place. */
export function found(places: [string, string][], secrets: [string, string][]): string[] {
  const out: string[] = [];
  for (const [where, text] of places) for (const [what, value] of secrets) if (text.includes(value)) out.push(`${what} in ${where}`);
  return out;
}

/**
 * The census itself: every secret searched for in every place one could leak to (the exported
 * state, stack outputs and history, the CLI output of the --diff operations with the errors of the
 * failing ones, the engine events of --debug runs, the emulator's request log), after checking that
 * the --debug output really was captured. @pulumi/pulumi's own debug lines print each
 * RegisterResource/ReadResource response, that is every output in plaintext, secret or not
 * (runtime/resource.js): that is the SDK's, not ours, and the README says so; every other line
 * of the --debug output is searched. Asserts nothing is found; answers the places searched.
 */
export async function expectNoSecretAnywhere(
  run: { cli(...args: string[]): string; controlUrl: string; captured: ReturnType<typeof capture>; errors: string },
  secrets: [string, string][],
): Promise<[string, string][]> {
  const { seen, debugSeen, debugEvents } = run.captured;
  expect(debugSeen.join("").length).toBeGreaterThan(1_000);
  expect(debugEvents.some((e) => e.includes('"severity":"debug"'))).toBe(true);
  const places: [string, string][] = [
    ["pulumi stack export (state inputs and outputs)", run.cli("stack", "export")],
    ["pulumi stack output --json", run.cli("stack", "output", "--json")],
    ["pulumi stack history --json", run.cli("stack", "history", "--json")],
    [`CLI output with --diff, provider errors (${run.errors})`, seen.join("\n")],
    ["engine events of --debug runs, without the SDK's RPC response messages", debugEvents.join("\n")],
    ["emulator request log", await (await fetch(`${run.controlUrl}/requests`)).text()],
  ];
  expect(found(places, secrets)).toEqual([]);
  return places;
}
