import { MockAgent, type Dispatcher } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock";
import { createClient, NeonOperationError, type NeonClient } from "../../src/client";

const ORIGIN = "https://api.test";
let agent: MockAgent;
let clock: ManualClock;
let client: NeonClient;
let polls: number[];

function op(status: string, extra: Record<string, unknown> = {}) {
  return {
    id: "op-1",
    project_id: "p-1",
    branch_id: "br-1",
    action: "create_timeline",
    status,
    failures_count: 0,
    created_at: "2025-01-01T00:00:00Z",
    updated_at: "2025-01-01T00:00:00Z",
    total_duration_ms: 0,
    ...extra,
  };
}

function operationReplies(statuses: Array<[string, Record<string, unknown>?]>, persistLast = false) {
  const pool = agent.get(ORIGIN);
  statuses.forEach(([status, extra], i) => {
    const scope = pool.intercept({ path: "/api/v2/projects/p-1/operations/op-1", method: "GET" }).reply(() => {
      polls.push(clock.now());
      return { statusCode: 200, data: JSON.stringify({ operation: op(status, extra) }) };
    });
    if (persistLast && i === statuses.length - 1) scope.persist();
  });
}

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  clock = new ManualClock();
  polls = [];
  client = createClient({ apiKey: "k-ops", baseUrl: `${ORIGIN}/api/v2`, clock, dispatcher: agent as Dispatcher, pacing: false, random: () => 0.5 });
});
afterEach(async () => {
  await agent.close();
});

describe("operations", () => {
  it("createProject waits until its operations are finished, polling with backoff", async () => {
    const body = {
      project: { id: "p-1", name: "demo" },
      branch: { id: "br-1", name: "main", default: true },
      operations: [op("running")],
    };
    let sent: unknown;
    agent
      .get(ORIGIN)
      .intercept({ path: "/api/v2/projects", method: "POST" })
      .reply((o: { body?: unknown }) => {
        sent = JSON.parse(String(o.body));
        return { statusCode: 201, data: JSON.stringify(body) };
      });
    operationReplies([["scheduling"], ["running"], ["finished"]]);
    const t0 = clock.now();
    const r = await clock.run(client.createProject({ name: "demo" }));
    expect(sent).toEqual({ project: { name: "demo" } });
    expect(r.project).toEqual({ id: "p-1", name: "demo" });
    expect(r.branch).toEqual({ id: "br-1", name: "main", default: true });
    expect(polls.map((t) => t - t0)).toEqual([250, 750, 1750]);
  });

  it("operations already terminal need no poll", async () => {
    await clock.run(client.waitForOperations([op("finished"), op("skipped"), op("cancelled")]));
    expect(polls).toEqual([]);
  });

  it("an operation ending in error fails with its id, action and status", async () => {
    operationReplies([["running"], ["error", { error: "compute failed to start" }]]);
    const p = client.waitForOperations([op("running")]);
    await expect(clock.run(p)).rejects.toThrow(
      new NeonOperationError({ operationId: "op-1", projectId: "p-1", action: "create_timeline", status: "error", timedOut: false, detail: "compute failed to start" }),
    );
    const e = await clock.run(client.waitForOperations([op("failed")])).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NeonOperationError);
    expect((e as Error).message).toBe("operation op-1 (create_timeline) on project p-1 ended with status failed");
  });

  it("the wait is bounded", async () => {
    operationReplies([["running"]], true);
    const t0 = clock.now();
    const e = (await clock.run(client.waitForOperations([op("running")], { timeoutMs: 3_000 })).catch((x: unknown) => x)) as NeonOperationError;
    expect(e).toBeInstanceOf(NeonOperationError);
    expect(e.message).toBe("operation op-1 (create_timeline) on project p-1 still running after waiting 3000 ms");
    expect(e).toMatchObject({ operationId: "op-1", action: "create_timeline", status: "running", timedOut: true });
    expect(clock.now() - t0).toBe(3_000);
    expect(polls.map((t) => t - t0)).toEqual([250, 750, 1750]);
  });
});
