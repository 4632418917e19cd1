import * as path from "node:path";
import { it } from "vitest";
import { attempt, stackFor } from "./harness";
import { API_KEY, emulator } from "./neon";

it("shows", { timeout: 600_000 }, async () => {
  const em = await emulator({ seedProjects: ["p-first:br-main-p-first"] });
  const e2e = await stackFor({ program: path.join(__dirname, "programs", "first-hour"), config: { projectId: { value: "p-first" }, branchId: { value: "br-main-p-first" }, scenario: { value: "quick" } } });
  const show = (t: string, r: { code: number; out: string }) => process.stderr.write(`\n===== ${t} (${r.code})\n${r.out}\n`);
  try {
    show("missing key", await attempt(e2e, "preview"));
    await e2e.stack.setConfig("neon-auth:apiKey", { value: API_KEY, secret: true });
    e2e.env.NEON_API_URL = em.url;
    show("disagree", await attempt(e2e, "preview"));
    delete e2e.env.NEON_API_URL;
    await e2e.stack.setConfig("neon-auth:apiUrl", { value: em.url });
    await e2e.stack.setConfig("scenario", { value: "nested-typo" });
    show("typo", await attempt(e2e, "preview"));
    await e2e.stack.setConfig("scenario", { value: "origin" });
    show("origin", await attempt(e2e, "preview"));
    await e2e.stack.setConfig("scenario", { value: "three-branches" });
    await e2e.stack.setConfig("neon-auth:apiUrl", { value: "http://127.0.0.1:9/api/v2" });
    show("refused", await attempt(e2e, "up", "--yes"));
  } finally {
    await e2e.cleanup();
    await em.close();
  }
});
