import { describe, expect, it } from "vitest";
import { NeonConfigError } from "../../src/client";
import { resolveSettings } from "../../src/provider/settings";

const env = { NEON_API_KEY: "napi_settings_test_key" } as NodeJS.ProcessEnv;
const withConfig = (c: Record<string, string>) => resolveSettings((name) => c[name], env);

describe("the time budgets of a request, from stack config", () => {
  it("neon-auth:rateLimitTimeoutSeconds and neon-auth:lockTimeoutSeconds in ms; unset leaves the client's defaults", () => {
    const s = withConfig({ "neon-auth:rateLimitTimeoutSeconds": "1800", "neon-auth:lockTimeoutSeconds": "30.5" });
    expect(s.rateLimitTimeoutMs).toBe(1_800_000);
    expect(s.lockTimeoutMs).toBe(30_500);
    const d = withConfig({});
    expect("rateLimitTimeoutMs" in d).toBe(false);
    expect("lockTimeoutMs" in d).toBe(false);
  });

  it.each(["0", "-5", "ten", "Infinity"])("refuses %j, naming the setting", (v) => {
    expect(() => withConfig({ "neon-auth:rateLimitTimeoutSeconds": v })).toThrow(NeonConfigError);
    expect(() => withConfig({ "neon-auth:rateLimitTimeoutSeconds": v })).toThrow(
      `neon-auth:rateLimitTimeoutSeconds must be a positive number of seconds, got ${JSON.stringify(v)}`,
    );
  });
});
