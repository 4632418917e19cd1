/**
 * What a Pulumi program pays for `import "pulumi-neon-auth"`. The program only declares resources;
 * requests are sent from the dynamic-provider process. So loading the package must not load the
 * HTTP stack: every `pulumi preview` and `pulumi up` would pay for it before its first request.
 * Runs the built package (`make test` builds dist/ first) in a fresh Node process.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const repo = path.resolve(__dirname, "../..");
const entry = path.join(repo, "dist", "index.js");

/** Loads the package in a new process, runs `then` there, and lists the packages in require.cache. */
function loadedPackages(then = ""): string[] {
  const script = `
    const pkg = require(${JSON.stringify(entry)});
    ${then}
    const names = new Set();
    for (const file of Object.keys(require.cache)) {
      const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(file.slice(file.lastIndexOf("node_modules/")));
      if (m) names.add(m[1]);
    }
    process.stdout.write(JSON.stringify([...names].sort()));
  `;
  return JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd: repo, encoding: "utf8" }));
}

describe("loading the package", () => {
  it("is built (make test builds dist/ before the tests)", () => {
    expect(fs.existsSync(entry)).toBe(true);
  });

  it("loads no HTTP client when a program only declares resources", () => {
    const loaded = loadedPackages();
    expect(loaded).not.toContain("undici");
    // What it does load: the SDK the resource classes extend, and zod for the input schemas.
    expect(loaded).toContain("@pulumi/pulumi");
    expect(loaded).toContain("zod");
  });

  it("loads undici once a client is created", () => {
    const client = JSON.stringify(path.join(repo, "dist", "client", "index.js"));
    const loaded = loadedPackages(`require(${client}).createClient({ apiKey: "k-test", baseUrl: "http://127.0.0.1:9/api/v2" });`);
    expect(loaded).toContain("undici");
  });
});
