import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { changesOf, stackFor } from "./harness";

describe("the real Pulumi engine", () => {
  it("runs a dynamic resource from disk: up, no-change preview and refresh, destroy", { timeout: 300_000 }, async () => {
    const e2e = await stackFor({
      program: path.join(__dirname, "programs", "engine-smoke"),
      config: { message: { value: "hi-there" } },
    });
    try {
      const up = await e2e.stack.up({ color: "never" });
      expect(up.summary.result).toBe("succeeded");
      expect(up.summary.resourceChanges).toEqual({ create: 2 });
      expect(up.outputs.message).toEqual({ value: "hi-there", secret: false });
      expect(up.outputs.length).toEqual({ value: 8, secret: false });
      expect(up.outputs.id).toEqual({ value: "echo-hi-there", secret: false });

      const preview = await e2e.stack.preview({ color: "never", expectNoChanges: true });
      expect(preview.changeSummary).toEqual({ same: 2 });

      const refresh = await e2e.stack.refresh({ color: "never", expectNoChanges: true });
      expect(refresh.summary.result).toBe("succeeded");
      expect(changesOf(refresh.summary.resourceChanges)).toEqual({});

      const destroy = await e2e.stack.destroy({ color: "never" });
      expect(destroy.summary.resourceChanges).toEqual({ delete: 2 });
    } finally {
      await e2e.cleanup();
    }
  });
});
