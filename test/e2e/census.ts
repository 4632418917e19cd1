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
