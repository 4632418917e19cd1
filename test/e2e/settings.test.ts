/**
 * Where the key and URL come from, and failing fast when they are wrong, through the engine:
 * a missing key fails `preview` naming both settings with no request; `neon:apiKey` (the
 * Registry neon provider's own key) serves as a fallback; `neon:apiUrl` of 0.1.0 is refused with
 * the rename; a URL from another place than the key is refused; a wrong or unreachable base URL
 * is named with the setting it came from; an old Node says which Node is needed.
 */
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import type { ConfigMap, EngineEvent } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import type { EmulatorHandle } from "../../src/emulator";
import { changesOf, stackFor, useEmulatorStack } from "./harness";
import { API_KEY, clearRequestLog, emulator, outOfBand, requestLog } from "./neon";

const PROGRAM = path.join(__dirname, "programs", "one-resource");
const P = "p-settings";
// The one resource of these stacks: the project's integration, made outside them and adopted.
const SUBJECT = {
  kind: { value: "AuthIntegration" },
  args: { value: JSON.stringify({ projectId: P, branchId: `br-main-${P}`, adopt: true }) },
};
/** Keeps a developer's own environment out of these runs. */
const CLEAN_ENV = { NEON_API_KEY: "", NEON_API_URL: "" };

describe("settings: where the key and URL come from", () => {
  let em: EmulatorHandle;

  useEmulatorStack({
    emulator: { seedProjects: [`${P}:br-main-${P}`], rateLimit: "off" },
    prepare: async (em) => {
      // Made outside the stacks of this file, which adopt it.
      const created = await outOfBand(em, "POST", "/projects/auth/create", {
        auth_provider: "stack",
        project_id: P,
        branch_id: `br-main-${P}`,
        database_name: "neondb",
        role_name: "neondb_owner",
      });
      expect(created).toBe(201);
    },
    ready: (s) => (em = s.em),
  });

  /** A preview (or up) that must fail; returns the resource's error messages and the API requests made. */
  async function failing(op: "preview" | "up", config: ConfigMap, env: Record<string, string> = {}) {
    const e2e = await stackFor({ program: PROGRAM, config: { ...SUBJECT, ...config }, env: { ...CLEAN_ENV, ...env } });
    const errors: string[] = [];
    const onEvent = (e: EngineEvent) => {
      const d = e.diagnosticEvent;
      if (d?.severity === "error" && d.urn?.includes("AuthIntegration")) errors.push(d.message.trim());
    };
    try {
      await clearRequestLog(em);
      const err = await e2e.stack[op]({ color: "never", onEvent }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err, `${op} must fail`).toBeInstanceOf(Error);
      const requests = (await requestLog(em)).filter((r) => r.path.startsWith("/api/v2"));
      return { errors, requests };
    } finally {
      await e2e.cleanup();
    }
  }

  it("no key anywhere: preview fails naming both settings, and sends nothing", { timeout: 120_000 }, async () => {
    const { errors, requests } = await failing("preview", { "neon-auth:apiUrl": { value: em.url } });
    expect(errors).toEqual([
      "no Neon API key is configured: run `pulumi config set --secret neon-auth:apiKey <key>` or set the NEON_API_KEY environment variable",
    ]);
    expect(requests).toEqual([]);
  });

  it("neon:apiUrl of 0.1.0 is refused at preview with the rename", { timeout: 120_000 }, async () => {
    const { errors, requests } = await failing("preview", {
      "neon:apiUrl": { value: em.url },
      "neon-auth:apiKey": { value: API_KEY, secret: true },
    });
    expect(errors).toEqual([
      "neon:apiUrl is no longer read: that namespace belongs to the Pulumi Registry's neon provider. " +
        "Rename it: `pulumi config rm neon:apiUrl` and `pulumi config set neon-auth:apiUrl <url>`",
    ]);
    expect(requests).toEqual([]);
  });

  it("a key in stack config is never sent to a URL from the environment", { timeout: 120_000 }, async () => {
    const { errors, requests } = await failing(
      "preview",
      { "neon-auth:apiKey": { value: API_KEY, secret: true } },
      { NEON_API_URL: em.url },
    );
    expect(errors).toEqual([
      "the Neon API key comes from neon-auth:apiKey but the API URL from NEON_API_URL; a key is only sent to a URL set " +
        "in the same place. Set neon-auth:apiUrl as well (or instead), or take the key from NEON_API_KEY",
    ]);
    expect(errors.join("")).not.toContain(API_KEY);
    expect(requests).toEqual([]);
  });

  it("a wrong base URL: the 404 names the URL and the setting it came from", { timeout: 120_000 }, async () => {
    const wrong = em.url.replace(/\/api\/v2$/, "/api/v9");
    const { errors, requests } = await failing("up", {
      "neon-auth:apiUrl": { value: wrong },
      "neon-auth:apiKey": { value: API_KEY, secret: true },
    });
    expect(errors).toHaveLength(1);
    // The create's first request: the read of what exists before it (ownership, converge.ts).
    expect(errors[0]).toMatch(/^404 from GET \/projects\/[a-z0-9-]+\/auth\/integrations: .*\(request id [^)]+\)/);
    expect(errors[0]!.endsWith(`; Neon API at ${wrong} (base URL from neon-auth:apiUrl)`)).toBe(true);
    expect(requests).toEqual([]); // nothing reached the API's own routes
  });

  it("an unreachable base URL: a few quick attempts, the URL and setting named, no request id", { timeout: 120_000 }, async () => {
    const closed = await closedPort();
    const url = `http://127.0.0.1:${closed}/api/v2`;
    const { errors } = await failing("up", { "neon-auth:apiUrl": { value: url }, "neon-auth:apiKey": { value: API_KEY, secret: true } });
    expect(errors).toHaveLength(1);
    // The first error of a run that cannot connect says it all (first-hour.test.ts has every resource's).
    expect(errors[0]).toMatch(
      new RegExp(
        `^cannot connect to the Neon API at ${escape(url)} \\(the base URL from neon-auth:apiUrl\\): the connection was refused ` +
          `\\(ECONNREFUSED, 3 attempts of GET /projects/[a-z0-9-]+/auth/integrations\\); nothing listens there: start the emulator ` +
          `\\(\`npx neon-auth-emulator --port ${closed}\`\\) or correct neon-auth:apiUrl\\. The other resources of this run that need the API refer to this error$`,
      ),
    );
    expect(errors[0]).not.toContain("request id");
  });

  it("neon:apiKey serves as a fallback beside neon-auth:apiUrl: up, no changes, destroy", { timeout: 180_000 }, async () => {
    const e2e = await stackFor({
      program: PROGRAM,
      config: { ...SUBJECT, "neon:apiKey": { value: API_KEY, secret: true }, "neon-auth:apiUrl": { value: em.url } },
      env: CLEAN_ENV,
    });
    try {
      const up = await e2e.stack.up({ color: "never" });
      expect(up.summary.resourceChanges).toEqual({ create: 2 });
      const list = (await (await fetch(`${em.url}/projects/${P}/auth/integrations`, { headers: { authorization: `Bearer ${API_KEY}` } })).json()) as any;
      expect(list.data.map((i: any) => [i.auth_provider, i.branch_id])).toEqual([["stack", `br-main-${P}`]]);
      expect(changesOf((await e2e.stack.preview({ color: "never" })).changeSummary)).toEqual({});
      expect(changesOf((await e2e.stack.refresh({ color: "never" })).summary.resourceChanges)).toEqual({});
      await e2e.stack.destroy({ color: "never" });
    } finally {
      await e2e.cleanup();
    }
  });
});

describe("an old Node says which Node is needed", () => {
  /** The machine's own older Node (the system one here is 20). */
  const oldNode = ["/usr/bin/node", "/usr/local/bin/node"].find(
    (p) => fs.existsSync(p) && Number(execFileSync(p, ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" })) < 22,
  );
  const REQUIREMENT = /^pulumi-neon-auth needs Node\.js 22\.19\.0 or newer, but runs on Node\.js 2\d\.\d+\.\d+ \(\S+\)\. Put a newer node first on PATH/;

  it("there is an older Node on this machine to try with", () => {
    expect(oldNode, "no Node older than 22 found at /usr/bin/node or /usr/local/bin/node").toBeDefined();
  });

  it("the emulator's command", () => {
    const cli = path.join(__dirname, "..", "..", "dist", "emulator", "cli.js");
    const r = spawnSync(oldNode!, [cli, "--help"], { encoding: "utf8" });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.replace(/^neon-auth-emulator: /, "")).toMatch(REQUIREMENT);
  });

  it("a program and its provider, through the engine", { timeout: 120_000 }, async () => {
    const em = await emulator({ seedProjects: [`${P}:br-main-${P}`], rateLimit: "off" });
    const e2e = await stackFor({
      program: PROGRAM,
      config: { ...SUBJECT, "neon-auth:apiUrl": { value: em.url }, "neon-auth:apiKey": { value: API_KEY, secret: true } },
      env: { ...CLEAN_ENV, PATH: `${path.dirname(oldNode!)}:${process.env.PATH}` },
    });
    try {
      const err = await e2e.stack.preview({ color: "never" }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err).toBeInstanceOf(Error);
      const message = String((err as any).stderr ?? (err as Error).message);
      expect(message).toContain("failed with an unhandled exception:");
      expect(message.slice(message.indexOf("pulumi-neon-auth needs"))).toMatch(REQUIREMENT);
    } finally {
      await e2e.cleanup();
      await em.close();
    }
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
