/**
 * The repository's GitHub workflows pass actionlint (built once from the Go module proxy into the
 * tool cache, as the Pulumi CLI is): a workflow that only runs on a schedule or a tag would
 * otherwise show its mistakes there first.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, it } from "vitest";
import { cacheDir, repo } from "../../scripts/workspace.mts";

const VERSION = "v1.7.12";

function actionlint(): string {
  const bin = path.join(cacheDir(), `actionlint-${VERSION}`);
  const exe = path.join(bin, "actionlint");
  if (!fs.existsSync(exe)) {
    execFileSync("go", ["install", `github.com/rhysd/actionlint/cmd/actionlint@${VERSION}`], {
      env: { ...process.env, GOBIN: bin, GOFLAGS: "-mod=mod" },
      stdio: ["ignore", "ignore", "inherit"],
    });
  }
  return exe;
}

it("every workflow under .github/workflows passes actionlint", () => {
  const dir = path.join(repo, ".github", "workflows");
  const files = fs.readdirSync(dir).filter((f) => f.endsWith(".yml")).sort();
  expect(files).toEqual(["acceptance.yml", "release.yml"]);
  // actionlint exits non-zero and prints each finding; an empty output is the pass.
  const out = execFileSync(actionlint(), ["-no-color", ...files.map((f) => path.join(dir, f))], { encoding: "utf8" });
  expect(out).toBe("");
}, 600_000);
