/**
 * Control routes under /_emulator (loopback only, never rate limited nor faulted; no API key, but
 * secrets only for the control token or an API key; see sourceProblem in guards.ts), served by the
 * same router as the API.
 * They stand in for what happens outside the API. Here: the test tooling (health, reset, state,
 * request log, stats, faults); each generation adds its own (project/control.ts,
 * branch/control.ts), and the databases theirs (databaseRoutes.ts).
 */
import type { ControlRoute, EmulatorCore } from "./context";
import { checkFaultSettings, checkOneShot, parseFaultSpec, type OneShotFault } from "./faults";
import { HttpError, jsonObject } from "./http";
import { jwksView } from "./jwks";
import { branchView, operationView } from "./projects";
import { emptyState, iso, STATE_VERSION } from "./store";

/** One project in the state dump: what the hosting slice knows, then each generation's part. */
export interface ProjectDump extends Record<string, unknown> {
  id: string;
  name: string;
  owner: string;
  created_at: string;
  branches: ReturnType<typeof branchView>[];
  operations: ReturnType<typeof operationView>[];
}

/** The whole state as the control route `/state` shows it, each generation's parts included. */
export interface StateDump extends Record<string, unknown> {
  version: number;
  projects: ProjectDump[];
}

/** The whole state as JSON, secrets redacted unless asked for. Never contains an API key. */
export function stateDump(core: EmulatorCore, secrets: boolean): StateDump {
  const now = core.clock.now();
  const projects = Object.values(core.store.data.projects).map((p) => {
    const dump: ProjectDump = {
      id: p.id,
      name: p.name,
      owner: p.owner,
      created_at: iso(p.created_ms),
      branches: p.branches.map((b) => branchView(p, b, now)),
      operations: p.operations.map((op) => operationView(op, now)),
      ...(p.jwks?.length ? { jwks: p.jwks.map(jwksView) } : {}),
    };
    for (const g of core.generations) Object.assign(dump, g.projectDump?.(p, secrets));
    return dump;
  });
  const dump: StateDump = { version: STATE_VERSION, projects };
  for (const g of core.generations) Object.assign(dump, g.stateDump?.(core.store, secrets));
  return dump;
}

function badRequest(e: unknown): never {
  throw new HttpError(400, (e as Error).message);
}

const ok = { status: 200, body: { ok: true } };

export const controlRoutes: ControlRoute[] = [
  { method: "GET", template: "/health", control: () => ok },
  {
    method: "POST",
    template: "/reset",
    control: ({ core }) => {
      core.store.replace(emptyState());
      core.log.clear();
      core.faults.reset();
      core.limiter.reset();
      core.seed();
      return ok;
    },
  },
  {
    method: "GET",
    template: "/state",
    control: ({ core, query, secretsAllowed }) => {
      if (query.get("secrets") === "true" && !secretsAllowed) {
        throw new HttpError(
          401,
          "secrets: send Authorization: Bearer <control token> (printed when the emulator starts) or one of its API keys",
        );
      }
      return { status: 200, body: stateDump(core, query.get("secrets") === "true") };
    },
  },
  { method: "GET", template: "/requests", control: ({ core }) => ({ status: 200, body: { requests: core.log.list() } }) },
  { method: "DELETE", template: "/requests", control: ({ core }) => ({ status: 200, body: { cleared: core.log.clear() } }) },
  {
    method: "GET",
    template: "/stats",
    control: ({ core }) => ({
      status: 200,
      body: { ...core.log.stats(), faults: { ...core.faults.injected }, state_writes: core.store.writes },
    }),
  },
  { method: "GET", template: "/faults", control: ({ core }) => ({ status: 200, body: core.faults.snapshot() }) },
  {
    method: "PUT",
    template: "/faults",
    control: ({ core, body: reqBody }) => {
      const b = jsonObject(reqBody);
      let settings;
      let next: OneShotFault[] | undefined;
      try {
        settings = typeof b.spec === "string" ? parseFaultSpec(b.spec) : checkFaultSettings(b);
        if (b.next !== undefined) {
          if (!Array.isArray(b.next)) throw new Error("next: must be an array");
          next = b.next.map((f, i) => checkOneShot(f, i));
        }
      } catch (e) {
        badRequest(e);
      }
      core.faults.set(settings, next ?? []);
      return { status: 200, body: core.faults.snapshot() };
    },
  },
];
