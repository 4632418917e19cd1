/**
 * The registry of kinds (src/resources/providers/index.ts) names every provider module that state
 * may require(), and every resource class the package exports, and nothing else.
 */
import { readdirSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import * as resources from "../../src/resources";
import { PROVIDERS } from "../../src/resources/providers";

const KINDS = [
  "AuthIntegration",
  "AuthOwnershipTransfer",
  "AuthSdkKeys",
  "AuthUser",
  "EmailServer",
  "NeonAuth",
  "OAuthClient",
  "OAuthProvider",
  "RedirectDomain",
];

describe("the registry of kinds", () => {
  it("lists one provider module per kind", () => {
    expect(Object.keys(PROVIDERS).sort()).toEqual(KINDS);
    const modules = readdirSync(path.join(__dirname, "../../src/resources/providers"))
      .map((f) => f.replace(/\.ts$/, ""))
      .filter((m) => m !== "index" && m !== "dynamic");
    expect(modules.sort()).toEqual(KINDS);
  });

  it("names exactly the resource classes the package exports", () => {
    const classes = Object.entries(resources).filter(([, v]) => typeof v === "function").map(([k]) => k);
    expect(classes.sort()).toEqual(KINDS);
  });
});
