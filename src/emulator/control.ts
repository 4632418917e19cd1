/**
 * Control routes under /_emulator (loopback only, never rate limited nor faulted; no API key, but
 * secrets only for the control token or an API key; see sourceProblem in server.ts), served by the
 * same router as the API.
 * They stand in for what happens outside the API: the browser step of an ownership transfer, a
 * look into the database's users_sync table, and test tooling (state, request log, faults).
 */
import { projectId as projectIdSchema } from "../schemas/common";
import { branchControlRoutes } from "./branchControl";
import { databaseControlRoutes } from "./databaseRoutes";
import { checkFaultSettings, checkOneShot, parseFaultSpec, type OneShotFault } from "./faults";
import { REDACTED } from "../client/redact";
import { HttpError, parseParam } from "./http";
import { confirmTransfer, integrationView, SCHEMA_NAME, TABLE_NAME } from "./integration";
import { branchView, operationView } from "./projects";
import type { ControlRoute, EmulatorCore } from "./core";
import { emptyState, iso, STATE_VERSION, type IntegrationRec } from "./store";
import { usersSyncRows } from "./users";

function redact(value: string, show: boolean): string {
  return show ? value : REDACTED;
}

function integrationDump(i: IntegrationRec, secrets: boolean) {
  return {
    ...integrationView(i),
    role_name: i.role_name,
    keys: i.keys.map((k) => ({
      pub_client_key: k.pub_client_key,
      secret_server_key: redact(k.secret_server_key, secrets),
      created_at: iso(k.created_ms),
    })),
    users: usersSyncRows(i),
    oauth_providers: i.oauth_providers.map((o) =>
      o.type === "standard"
        ? { id: o.id, type: o.type, client_id: o.client_id, client_secret: redact(o.client_secret ?? "", secrets) }
        : { id: o.id, type: o.type },
    ),
    domains: i.domains.map((domain) => ({ domain, auth_provider: i.auth_provider })),
    email_server:
      i.email_server.type === "standard"
        ? { ...i.email_server, password: redact(i.email_server.password, secrets) }
        : { type: "shared" },
  };
}

/** The whole state as JSON, secrets redacted unless asked for. Never contains an API key. */
export function stateDump(core: EmulatorCore, secrets: boolean) {
  const now = core.clock.now();
  return {
    version: STATE_VERSION,
    projects: Object.values(core.store.data.projects).map((p) => ({
      id: p.id,
      name: p.name,
      owner: p.owner,
      created_at: iso(p.created_ms),
      branches: p.branches.map((b) => branchView(p, b, now)),
      operations: p.operations.map((op) => operationView(op, now)),
      integrations: Object.values(p.integrations).map((i) => integrationDump(i, secrets)),
    })),
    transfers: Object.values(core.store.data.transfers).map((t) => ({
      code: redact(t.code, secrets),
      project_id: t.project_id,
      auth_provider: t.auth_provider,
      used: t.used,
      created_at: iso(t.created_ms),
    })),
  };
}

function body(v: unknown): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new HttpError(400, "body: must be a JSON object");
  return v as Record<string, unknown>;
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
      const b = body(reqBody);
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
  {
    method: "POST",
    template: "/transfers/confirm",
    control: ({ core, body: reqBody }) => {
      const b = body(reqBody);
      if (typeof b.code !== "string" || b.code === "") throw new HttpError(400, "code: is required");
      return { status: 200, body: confirmTransfer(core.store, b.code) };
    },
  },
  {
    method: "GET",
    template: "/projects/{project_id}/users_sync",
    control: ({ core, params }) => {
      const id = parseParam(projectIdSchema, "project_id", params.project_id);
      const p = core.store.data.projects[id];
      if (p === undefined) throw new HttpError(404, `project ${id} not found`);
      const i = p.integrations.stack;
      if (i === undefined) throw new HttpError(404, `relation "${SCHEMA_NAME}.${TABLE_NAME}" does not exist in project ${id}`);
      return { status: 200, body: { schema: SCHEMA_NAME, table: TABLE_NAME, rows: usersSyncRows(i) } };
    },
  },
  ...branchControlRoutes,
  ...databaseControlRoutes,
];
