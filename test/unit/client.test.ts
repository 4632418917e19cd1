import { inspect } from "node:util";
import { MockAgent, type Dispatcher } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock";
import {
  createClient,
  NeonApiError,
  NeonConfigError,
  NeonNetworkError,
  NeonResponseError,
  NeonTimeoutError,
  isNotFound,
  mayHaveActed,
  type ClientOptions,
  type NeonClient,
  type WriteEvent,
} from "../../src/client";
import { isRetryableStatus, networkMayHaveActed, parseRetryAfter, shouldRetry } from "../../src/client/retry";
import { forgetSecrets, redactText, redactValue } from "../../src/client/redact";

// Each test's fake secrets stay its own: the process remembers every secret it saw.
beforeEach(() => forgetSecrets());

const ORIGIN = "https://api.test";
const BASE = `${ORIGIN}/api/v2`;
const KEY = "napi_SECRETKEY_0123456789abcdef";

type Interceptable = ReturnType<MockAgent["get"]>;
type ReplyOpts = { path: string; method: string; body?: unknown; headers?: unknown };

interface Setup {
  agent: MockAgent;
  pool: Interceptable;
  clock: ManualClock;
  client: NeonClient;
  logs: string[];
  seen: { method: string; path: string; headers: Record<string, string>; body: string | undefined; at: number }[];
}

function headersOf(h: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(h)) {
    for (let i = 0; i < h.length; i += 2) out[String(h[i]).toLowerCase()] = String(h[i + 1]);
  } else if (h && typeof h === "object") {
    for (const [k, v] of Object.entries(h)) out[k.toLowerCase()] = String(v);
  }
  return out;
}

let s: Setup;

function setup(opts: Partial<ClientOptions> = {}): Setup {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(ORIGIN);
  const clock = new ManualClock();
  const logs: string[] = [];
  const client = createClient({
    apiKey: KEY,
    baseUrl: BASE,
    clock,
    dispatcher: agent as Dispatcher,
    random: () => 0.5,
    logger: { debug: (m) => logs.push(m) },
    pacing: false,
    ...opts,
  });
  return { agent, pool, clock, client, logs, seen: [] };
}

/** Intercepts one request and records it. */
function on(
  method: string,
  path: string,
  reply: (o: ReplyOpts) => { statusCode: number; data?: unknown; responseOptions?: { headers?: Record<string, string> } },
  times = 1,
) {
  s.pool
    .intercept({ path: `/api/v2${path}`, method })
    .reply((o: ReplyOpts) => {
      s.seen.push({
        method: o.method,
        path: o.path,
        headers: headersOf(o.headers),
        body: o.body === undefined || o.body === null ? undefined : String(o.body),
        at: s.clock.now(),
      });
      const r = reply(o);
      const data = r.data === undefined ? "" : typeof r.data === "string" ? r.data : JSON.stringify(r.data);
      return { statusCode: r.statusCode, data, responseOptions: r.responseOptions ?? {} };
    })
    .times(times);
}

function socketError(message = "other side closed"): Error {
  return Object.assign(new Error(message), { name: "SocketError", code: "UND_ERR_SOCKET" });
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await s.clock.run(p);
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}

beforeEach(() => {
  s = setup();
});
afterEach(async () => {
  await s.agent.close();
});

describe("requests", () => {
  it("sends GET with bearer, accept, user agent and a request id, and parses the list", async () => {
    on("GET", "/projects/p-1/auth/domains", () => ({
      statusCode: 200,
      data: { domains: [{ domain: "https://a.example.com", auth_provider: "stack", extra: 1 }] },
    }));
    const r = await s.clock.run(s.client.listDomains("p-1"));
    expect(r).toEqual([{ domain: "https://a.example.com", auth_provider: "stack" }]);
    expect(s.seen).toHaveLength(1);
    const h = s.seen[0]!.headers;
    expect(h.authorization).toBe(`Bearer ${KEY}`);
    expect(h.accept).toBe("application/json");
    expect(h["user-agent"]).toMatch(/^pulumi-neon-auth\/\d+\.\d+\.\d+ \(node /);
    expect(h["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(h["content-type"]).toBeUndefined();
    expect(s.seen[0]!.body).toBeUndefined();
  });

  it("sends POST bodies as parsed by the strict request schema (defaults applied)", async () => {
    const keys = {
      auth_provider: "stack",
      auth_provider_project_id: "ap-1",
      pub_client_key: "pck_1",
      secret_server_key: "ssk_1",
      jwks_url: "https://x/jwks",
      schema_name: "neon_auth",
      table_name: "users_sync",
    };
    on("POST", "/projects/auth/create", () => ({ statusCode: 201, data: keys }));
    const r = await s.clock.run(s.client.createIntegration({ auth_provider: "stack", project_id: "p-1", branch_id: "br-1" }));
    expect(r).toEqual(keys);
    expect(s.seen[0]!.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(s.seen[0]!.body!)).toEqual({
      auth_provider: "stack",
      project_id: "p-1",
      branch_id: "br-1",
      database_name: "neondb",
      role_name: "neondb_owner",
    });
  });

  it("uses the exact paths of the endpoint table and encodes path segments", async () => {
    on("POST", "/projects/auth/user", () => ({ statusCode: 201, data: { id: "u-1" } }));
    on("DELETE", "/projects/p-1/auth/users/a%2Fb%20c", () => ({ statusCode: 204 }));
    on("DELETE", "/projects/p-1/auth/integration/stack", () => ({ statusCode: 200 }));
    on("POST", "/projects/auth/keys", () => ({
      statusCode: 201,
      data: { auth_provider: "stack", auth_provider_project_id: "a", pub_client_key: "p", secret_server_key: "s", jwks_url: "j", schema_name: "n", table_name: "t" },
    }));
    on("POST", "/projects/auth/transfer_ownership", () => ({ statusCode: 200, data: { url: "https://x/?code=1" } }));
    expect(await s.clock.run(s.client.createUser({ project_id: "p-1", auth_provider: "stack", email: "a@b.co", name: "A" }))).toEqual({ id: "u-1" });
    await s.clock.run(s.client.deleteUser("p-1", "a/b c"));
    await s.clock.run(s.client.deleteIntegration("p-1", "stack"));
    await s.clock.run(s.client.generateSdkKeys({ project_id: "p-1", auth_provider: "stack" }));
    expect(await s.clock.run(s.client.transferOwnership({ project_id: "p-1", auth_provider: "stack" }))).toEqual({ url: "https://x/?code=1" });
    expect(s.seen.map((x) => `${x.method} ${x.path}`)).toEqual([
      "POST /api/v2/projects/auth/user",
      "DELETE /api/v2/projects/p-1/auth/users/a%2Fb%20c",
      "DELETE /api/v2/projects/p-1/auth/integration/stack",
      "POST /api/v2/projects/auth/keys",
      "POST /api/v2/projects/auth/transfer_ownership",
    ]);
    expect(JSON.parse(s.seen[0]!.body!)).toEqual({ project_id: "p-1", auth_provider: "stack", email: "a@b.co", name: "A" });
  });

  it("accepts empty bodies on 200/201/204 and any 2xx for void endpoints", async () => {
    on("POST", "/projects/p-1/auth/domains", () => ({ statusCode: 201 }));
    on("DELETE", "/projects/p-1/auth/domains", () => ({ statusCode: 200 }));
    on("DELETE", "/projects/p-1/auth/oauth_providers/google", () => ({ statusCode: 200, data: {} }));
    on("DELETE", "/projects/p-1/auth/oauth_providers/github", () => ({ statusCode: 204 }));
    await s.clock.run(s.client.addDomain("p-1", { domain: "https://app.example.com", auth_provider: "stack" }));
    await s.clock.run(s.client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: "https://app.example.com" }] }));
    await s.clock.run(s.client.deleteOAuthProvider("p-1", "google"));
    await s.clock.run(s.client.deleteOAuthProvider("p-1", "github"));
    expect(JSON.parse(s.seen[0]!.body!)).toEqual({ domain: "https://app.example.com", auth_provider: "stack" });
    expect(s.seen[1]!.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(s.seen[1]!.body!)).toEqual({ auth_provider: "stack", domains: [{ domain: "https://app.example.com" }] });
  });

  it("OAuth providers and email server round trip", async () => {
    on("GET", "/projects/p-1/auth/oauth_providers", () => ({ statusCode: 200, data: { providers: [{ id: "google", type: "shared" }] } }));
    on("POST", "/projects/p-1/auth/oauth_providers", () => ({ statusCode: 200, data: { id: "github", type: "standard", client_id: "ci", client_secret: "cs" } }));
    on("PATCH", "/projects/p-1/auth/oauth_providers/github", () => ({ statusCode: 200, data: { id: "github", type: "standard", client_id: "ci2", client_secret: "cs2" } }));
    on("GET", "/projects/p-1/auth/email_server", () => ({ statusCode: 200, data: { type: "shared" } }));
    const std = { type: "standard", host: "smtp.x", port: 587, username: "u", password: "pw-secret", sender_email: "a@b.co", sender_name: "A" } as const;
    on("PATCH", "/projects/p-1/auth/email_server", () => ({ statusCode: 200, data: std }));
    expect(await s.clock.run(s.client.listOAuthProviders("p-1"))).toEqual([{ id: "google", type: "shared" }]);
    expect(await s.clock.run(s.client.addOAuthProvider("p-1", { id: "github", client_id: "ci", client_secret: "cs" }))).toEqual({
      id: "github",
      type: "standard",
      client_id: "ci",
      client_secret: "cs",
    });
    expect((await s.clock.run(s.client.updateOAuthProvider("p-1", "github", { client_id: "ci2", client_secret: "cs2" }))).client_id).toBe("ci2");
    expect(await s.clock.run(s.client.getEmailServer("p-1"))).toEqual({ type: "shared" });
    expect(await s.clock.run(s.client.updateEmailServer("p-1", std))).toEqual(std);
    expect(JSON.parse(s.seen[4]!.body!)).toEqual(std);
  });

  it("rejects an invalid request body before sending, naming the field", async () => {
    const e = await rejection(s.client.createUser({ project_id: "p-1", auth_provider: "stack", email: "not-an-email" }));
    expect(e).toBeInstanceOf(NeonConfigError);
    expect((e as Error).message).toBe("invalid request for POST /projects/auth/user: email: must be a valid email address");
    const e2 = await rejection(s.client.listDomains("P_1!"));
    expect((e2 as Error).message).toBe("invalid project id: must match ^[a-z0-9-]{1,60}$ (lowercase letters, digits and '-', 1 to 60 characters)");
    expect(s.seen).toHaveLength(0);
  });

  it("a missing or empty API key fails at creation", () => {
    expect(() => createClient({ apiKey: "" })).toThrow(NeonConfigError);
    expect(() => createClient({ apiKey: "  " })).toThrow("the Neon API key (apiKey) is missing or blank");
    expect(() => createClient({} as ClientOptions)).toThrow(NeonConfigError);
  });
});

describe("errors", () => {
  it("formats an API error exactly, with Neon's message and the server's request id", async () => {
    on("GET", "/projects/p-1/auth/integrations", () => ({
      statusCode: 401,
      data: { code: "", message: "invalid API key" },
      responseOptions: { headers: { "x-neon-ret-request-id": "3f2c-aa" } },
    }));
    const e = (await rejection(s.client.listIntegrations("p-1"))) as NeonApiError;
    expect(e).toBeInstanceOf(NeonApiError);
    expect(e.message).toBe("401 from GET /projects/p-1/auth/integrations: invalid API key (request id 3f2c-aa)");
    expect(e).toMatchObject({ status: 401, code: "", neonMessage: "invalid API key", requestId: "3f2c-aa", method: "GET", path: "/projects/p-1/auth/integrations", attempts: 1, retryable: false, mayHaveActed: false });
  });

  it("falls back to the status text and the body's request id; 404 is detectable", async () => {
    on("GET", "/projects/p-2/auth/domains", () => ({ statusCode: 404, data: { code: "NOT_FOUND", message: "", request_id: "rid-9" } }));
    const e = (await rejection(s.client.listDomains("p-2"))) as NeonApiError;
    expect(e.message).toBe("404 from GET /projects/p-2/auth/domains: Not Found (request id rid-9)");
    expect(e.code).toBe("NOT_FOUND");
    expect(isNotFound(e)).toBe(true);
  });

  it("uses our X-Request-ID when the server gives none, and ignores a non-JSON error body", async () => {
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 409, data: "<html>conflict</html>" }));
    const e = (await rejection(s.client.listDomains("p-1"))) as NeonApiError;
    expect(e.message).toBe(`409 from GET /projects/p-1/auth/domains: Conflict (request id ${s.seen[0]!.headers["x-request-id"]})`);
  });

  it("never leaks the API key or body secrets into messages, causes or logs", async () => {
    const pw = "pw-VERY-SECRET";
    on("PATCH", "/projects/p-1/auth/email_server", () => ({
      statusCode: 400,
      data: { code: "BAD", message: `password ${pw} rejected for key ${KEY}; header Bearer ${KEY}` },
    }));
    on("POST", "/projects/p-1/auth/oauth_providers", () => {
      throw socketError(`socket closed while sending client_secret cs-TOPSECRET and ${KEY}`);
    });
    const e = (await rejection(
      s.client.updateEmailServer("p-1", { type: "standard", host: "h", port: 25, username: "u", password: pw, sender_email: "a@b.co", sender_name: "n" }),
    )) as NeonApiError;
    expect(e.message).toBe("400 from PATCH /projects/p-1/auth/email_server: password [redacted] rejected for key [redacted]; header Bearer [redacted] (request id " + s.seen[0]!.headers["x-request-id"] + ")");
    const e2 = (await rejection(s.client.addOAuthProvider("p-1", { id: "google", client_id: "ci", client_secret: "cs-TOPSECRET" }))) as NeonNetworkError;
    expect(e2).toBeInstanceOf(NeonNetworkError);
    const everything = [e.message, e2.message, String((e2.cause as Error).message), inspect(e, { depth: 5 }), inspect(e2, { depth: 5 }), ...s.logs].join("\n");
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain(pw);
    expect(everything).not.toContain("cs-TOPSECRET");
    expect(s.logs.length).toBeGreaterThan(0);
  });

  it("a response that fails its schema names the field path and the endpoint", async () => {
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 200, data: { domains: [{ domain: "https://a.b" }, { domain: 5, auth_provider: "stack" }] } }));
    const e = (await rejection(s.client.listDomains("p-1"))) as NeonResponseError;
    expect(e).toBeInstanceOf(NeonResponseError);
    expect(e.issues).toEqual(["domains.0.auth_provider: Invalid input: expected string, received undefined", "domains.1.domain: Invalid input: expected string, received number"]);
    expect(e.message).toBe(
      `unexpected response from GET /projects/p-1/auth/domains (status 200): ${e.issues.join("; ")} (request id ${s.seen[0]!.headers["x-request-id"]})`,
    );
  });

  it("an empty or non-JSON body where a body is expected is a response error", async () => {
    on("POST", "/projects/auth/user", () => ({ statusCode: 201 }));
    on("GET", "/projects/p-1/auth/email_server", () => ({ statusCode: 200, data: "oops" }));
    const e = (await rejection(s.client.createUser({ project_id: "p-1", auth_provider: "stack", email: "a@b.co" }))) as NeonResponseError;
    expect(e.issues).toEqual(["(root): empty body, expected a JSON object"]);
    expect(e.mayHaveActed).toBe(true);
    const e2 = (await rejection(s.client.getEmailServer("p-1"))) as NeonResponseError;
    expect(e2.issues).toEqual(["(root): body is not valid JSON"]);
  });
});

describe("answers that say less, or in pages (issue 48)", () => {
  const d = (n: number) => ({ domain: `https://d${n}.example.com`, auth_provider: "stack" });

  it("follows every cursor a list names, at the top level or inside pagination, until a page names none", async () => {
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 200, data: { domains: [d(1)], pagination: { cursor: "c2", has_more: true } } }));
    on("GET", "/projects/p-1/auth/domains?cursor=c2", () => ({ statusCode: 200, data: { domains: [d(2)], pagination: { next: "c3" } } }));
    on("GET", "/projects/p-1/auth/domains?cursor=c3", () => ({ statusCode: 200, data: { domains: [d(3)], next_cursor: "c4" } }));
    // Neon's `Pagination`: the cursor comes back on the last page too, which is empty.
    on("GET", "/projects/p-1/auth/domains?cursor=c4", () => ({ statusCode: 200, data: { domains: [], pagination: { cursor: "c5" } } }));
    expect(await s.clock.run(s.client.listDomains("p-1"))).toEqual([d(1), d(2), d(3)]);
    expect(s.seen.map((r) => r.path)).toEqual(["c2", "c3", "c4"].reduce((a, c) => [...a, `/api/v2/projects/p-1/auth/domains?cursor=${c}`], ["/api/v2/projects/p-1/auth/domains"]));
  });

  it("stops where has_more is false, and refuses a list that pages forever or says more without a cursor", async () => {
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 200, data: { domains: [d(1)], has_more: false, pagination: { cursor: "c2" } } }));
    expect(await s.clock.run(s.client.listDomains("p-1"))).toEqual([d(1)]);
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 200, data: { domains: [d(1)], pagination: { cursor: "c1" } } }));
    on("GET", "/projects/p-1/auth/domains?cursor=c1", () => ({ statusCode: 200, data: { domains: [d(1)], pagination: { cursor: "c1" } } }));
    const e = (await rejection(s.client.listDomains("p-1"))) as NeonResponseError;
    expect(e.issues).toEqual(["domains: the pages never end (a cursor came back twice, or over 1000 pages); the package refuses to take a partial list as complete"]);
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 200, data: { domains: [d(1)], pagination: { has_more: true } } }));
    const e2 = (await rejection(s.client.listDomains("p-1"))) as NeonResponseError;
    expect(e2.issues).toEqual(["(root): Neon answered part of the list (has_more) without a cursor for the next page; the package refuses to take a partial list as complete"]);
  });

  it("reads null as not set, in any answer", async () => {
    on("GET", "/projects/p-1/branches/br-1/auth/plugins", () => ({ statusCode: 200, data: { phone_number: null, magic_link: null, oauth_providers: null, allow_localhost: true } }));
    expect(await s.clock.run(s.client.branchAuth.getBranchPlugins({ project_id: "p-1", branch_id: "br-1" }))).toEqual({ oauth_providers: [], allow_localhost: true });
    on("GET", "/projects/p-1/auth/integrations", () => ({ statusCode: 200, data: { data: [{ auth_provider: "stack", auth_provider_project_id: "ap-1", branch_id: "br-1", created_at: "2026-01-01T00:00:00Z", jwks_url: null }] } }));
    expect(await s.clock.run(s.client.listIntegrations("p-1"))).toEqual([{ auth_provider: "stack", auth_provider_project_id: "ap-1", branch_id: "br-1", created_at: "2026-01-01T00:00:00Z" }]);
  });
});

describe("retry policy", () => {
  it.each([429, 423, 503, 500, 502])("GET retried after %i", async (status) => {
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: status, data: { code: "", message: "busy" } }));
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 200, data: { domains: [] } }));
    expect(await s.clock.run(s.client.listDomains("p-1"))).toEqual([]);
    expect(s.seen).toHaveLength(2);
    // Full jitter with random()=0.5: half of the 250 ms base.
    expect(s.seen[1]!.at - s.seen[0]!.at).toBe(125);
    expect(s.seen[1]!.headers["x-request-id"]).toBe(s.seen[0]!.headers["x-request-id"]);
  });

  it.each([429, 423, 503])("POST replayed after %i (the server has not acted)", async (status) => {
    on("POST", "/projects/auth/user", () => ({ statusCode: status, data: { code: "", message: "later" } }));
    on("POST", "/projects/auth/user", () => ({ statusCode: 201, data: { id: "u-1" } }));
    expect(await s.clock.run(s.client.createUser({ project_id: "p-1", auth_provider: "stack", email: "a@b.co" }))).toEqual({ id: "u-1" });
    expect(s.seen).toHaveLength(2);
  });

  it("POST not replayed after a 500: the server may have acted", async () => {
    on("POST", "/projects/auth/user", () => ({ statusCode: 500, data: { code: "", message: "internal error" } }));
    const e = (await rejection(s.client.createUser({ project_id: "p-1", auth_provider: "stack", email: "a@b.co" }))) as NeonApiError;
    expect(s.seen).toHaveLength(1);
    expect(e).toMatchObject({ status: 500, retryable: true, mayHaveActed: true, attempts: 1 });
    expect(mayHaveActed(e)).toBe(true);
    expect(e.message).toBe(`500 from POST /projects/auth/user: internal error (request id ${s.seen[0]!.headers["x-request-id"]})`);
  });

  it("POST replayed after a connection error before the request was sent", async () => {
    s.pool.intercept({ path: "/api/v2/projects/p-1/auth/domains", method: "POST" }).replyWithError(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }));
    s.pool.intercept({ path: "/api/v2/projects/p-1/auth/domains", method: "POST" }).replyWithError(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }));
    on("POST", "/projects/p-1/auth/domains", () => ({ statusCode: 201 }));
    await s.clock.run(s.client.addDomain("p-1", { domain: "https://a.example.com", auth_provider: "stack" }));
    expect(s.seen).toHaveLength(1);
    expect(s.logs.filter((l) => l.includes("before the request was sent"))).toHaveLength(2);
  });

  it("POST whose response was lost after sending is not replayed: NeonNetworkError with mayHaveActed", async () => {
    on("POST", "/projects/p-1/auth/domains", () => {
      throw socketError();
    });
    on("POST", "/projects/p-1/auth/domains", () => ({ statusCode: 201 })); // must stay unused
    const e = (await rejection(s.client.addDomain("p-1", { domain: "https://a.example.com", auth_provider: "stack" }))) as NeonNetworkError;
    expect(e).toBeInstanceOf(NeonNetworkError);
    expect(e).toMatchObject({ mayHaveActed: true, attempts: 1, errorCode: "UND_ERR_SOCKET", method: "POST", path: "/projects/p-1/auth/domains" });
    expect(e.message).toBe(
      `network error on POST /projects/p-1/auth/domains: UND_ERR_SOCKET: other side closed; the request may have reached the server, read back before retrying (request id ${s.seen[0]!.headers["x-request-id"]})`,
    );
    expect(s.seen).toHaveLength(1);
    expect(s.agent.pendingInterceptors()).toHaveLength(1);
  });

  it("PATCH and DELETE are replayed after a lost response", async () => {
    const prov = { id: "github", type: "standard", client_id: "c", client_secret: "s" };
    on("PATCH", "/projects/p-1/auth/oauth_providers/github", () => {
      throw socketError();
    });
    on("PATCH", "/projects/p-1/auth/oauth_providers/github", () => ({ statusCode: 200, data: prov }));
    on("DELETE", "/projects/p-1/auth/domains", () => {
      throw socketError();
    });
    on("DELETE", "/projects/p-1/auth/domains", () => ({ statusCode: 200 }));
    on("DELETE", "/projects/p-1/auth/users/u-1", () => {
      throw socketError();
    });
    on("DELETE", "/projects/p-1/auth/users/u-1", () => ({ statusCode: 404, data: { code: "", message: "user not found" } }));
    expect(await s.clock.run(s.client.updateOAuthProvider("p-1", "github", { client_id: "c", client_secret: "s" }))).toEqual(prov);
    await s.clock.run(s.client.deleteDomains("p-1", { auth_provider: "stack", domains: [{ domain: "https://a.b" }] }));
    const e = (await rejection(s.client.deleteUser("p-1", "u-1"))) as NeonApiError;
    expect(isNotFound(e)).toBe(true);
    expect(e.attempts).toBe(2);
    expect(e.message).toBe(`404 from DELETE /projects/p-1/auth/users/u-1: user not found (request id ${s.seen[5]!.headers["x-request-id"]}); gave up after 2 attempts`);
    expect(s.seen.map((x) => x.method)).toEqual(["PATCH", "PATCH", "DELETE", "DELETE", "DELETE", "DELETE"]);
  });

  it("gives up after maxAttempts with the count in the message", async () => {
    s = setup({ maxAttempts: 3 });
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 503, data: { code: "", message: "unavailable" } }), 3);
    const e = (await rejection(s.client.listDomains("p-1"))) as NeonApiError;
    expect(e.message).toBe(`503 from GET /projects/p-1/auth/domains: unavailable (request id ${s.seen[0]!.headers["x-request-id"]}); gave up after 3 attempts`);
    expect(s.seen.map((x) => x.at - s.seen[0]!.at)).toEqual([0, 125, 125 + 250]);
  });

  it("backoff grows exponentially with full jitter up to the cap", async () => {
    s = setup({ maxAttempts: 9, random: () => 0.999999 });
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 500 }), 8);
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 200, data: { domains: [] } }));
    await s.clock.run(s.client.listDomains("p-1"));
    const gaps = s.seen.slice(1).map((x, i) => x.at - s.seen[i]!.at);
    expect(gaps).toEqual([249, 499, 999, 1999, 3999, 7999, 9999, 9999]);
  });

  it("honours Retry-After in seconds and as an HTTP date, bounded to 30 s", async () => {
    const date = new Date(s.clock.now() + 5_000).toUTCString();
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 429, responseOptions: { headers: { "retry-after": "3" } } }));
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 503, responseOptions: { headers: { "retry-after": "3600" } } }));
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 503, responseOptions: { headers: { "retry-after": date } } }));
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 503, responseOptions: { headers: { "retry-after": "nonsense" } } }));
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 200, data: { domains: [] } }));
    await s.clock.run(s.client.listDomains("p-1"));
    const gaps = s.seen.slice(1).map((x, i) => x.at - s.seen[i]!.at);
    // 3 s; 3600 s clamped to 30 s; the date (5 s after the start, ~33 s ago) clamps to 0; unparseable → backoff of
    // the 3rd counted attempt (the 429 counts against the rate budget, not the attempts): 0.5*1000.
    expect(gaps).toEqual([3_000, 30_000, 0, 500]);
  });

  it("stops at the overall deadline while waiting between attempts", async () => {
    s = setup({ deadlineMs: 5_000, maxAttempts: 100 });
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 503, data: { code: "", message: "service unavailable, try again" } }), 100);
    const start = s.clock.now();
    const e = (await rejection(s.client.listDomains("p-1"))) as NeonTimeoutError;
    expect(e).toBeInstanceOf(NeonTimeoutError);
    expect(s.clock.now() - start).toBeLessThanOrEqual(5_000);
    const n = s.seen.length;
    expect(e.attempts).toBe(n);
    expect(e.message).toBe(
      `deadline of 5000 ms exceeded for GET /projects/p-1/auth/domains after ${n} attempts (request id ${s.seen[0]!.headers["x-request-id"]}); last error: 503 from GET /projects/p-1/auth/domains: service unavailable, try again (request id ${s.seen[0]!.headers["x-request-id"]}); gave up after ${n} attempts`,
    );
    expect(e.cause).toBeInstanceOf(NeonApiError);
  });

  it("aborts an attempt in flight at the deadline", async () => {
    s = setup({ deadlineMs: 2_000 });
    s.pool.intercept({ path: "/api/v2/projects/p-1/auth/domains", method: "GET" }).reply(() => new Promise<never>(() => undefined));
    const start = s.clock.now();
    const e = (await rejection(s.client.listDomains("p-1"))) as NeonTimeoutError;
    expect(e).toBeInstanceOf(NeonTimeoutError);
    expect(s.clock.now() - start).toBe(2_000);
    expect(e.message).toMatch(/^deadline of 2000 ms exceeded for GET \/projects\/p-1\/auth\/domains after 1 attempt \(request id [0-9a-f-]{36}\)$/);
  });

  it("logs every attempt at debug level", async () => {
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 503 }));
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 200, data: { domains: [] } }));
    await s.clock.run(s.client.listDomains("p-1"));
    const id = s.seen[0]!.headers["x-request-id"];
    expect(s.logs).toEqual([
      `GET /projects/p-1/auth/domains attempt 1/10 (request id ${id}): 503 in 0 ms`,
      "retrying in 125 ms",
      `GET /projects/p-1/auth/domains attempt 2/10 (request id ${id}): 200 in 0 ms`,
    ]);
  });
});

describe("a locked project (423) is waited for against a time budget", () => {
  const LOCKED = { code: "", message: "project already has running conflicting operations, scheduling of new ones is prohibited" };

  /** The project answers 423 until `lockedMs` after the first request, then 200. */
  function lockedFor(lockedMs: number): void {
    const until = s.clock.now() + lockedMs;
    on("POST", "/projects/p-1/auth/domains", () => (s.clock.now() < until ? { statusCode: 423, data: LOCKED } : { statusCode: 201 }), 1000);
  }
  const add = () => s.client.addDomain("p-1", { domain: "https://a.example.com", auth_provider: "stack" });

  it("waits out a 60 s lock with the defaults, however many attempts that takes", async () => {
    lockedFor(60_000);
    const start = s.clock.now();
    await s.clock.run(add());
    expect(s.seen.at(-1)!.at - start).toBeGreaterThanOrEqual(60_000);
    // More than the 10 attempts other failures get: answers 423 do not count.
    expect(s.seen.length).toBeGreaterThan(10);
    expect(s.seen.slice(0, -1).every((r) => r.at - start < 60_000)).toBe(true);
  });

  it("gives up at the default budget of 120 s, saying how long it waited and why", async () => {
    lockedFor(3_600_000);
    const start = s.clock.now();
    const e = (await rejection(add())) as NeonTimeoutError;
    expect(e).toBeInstanceOf(NeonTimeoutError);
    expect(s.clock.now() - start).toBe(120_000);
    expect(e.lockedForMs).toBe(120_000);
    // The last attempt goes out as the budget ends.
    expect(s.seen.at(-1)!.at - start).toBe(120_000);
    const id = s.seen[0]!.headers["x-request-id"];
    expect(e.message).toBe(
      "project locked: waited 120 s while Neon answered 423 (another operation is running on the project), up to the " +
        `lock budget of 120 s (neon-auth:lockTimeoutSeconds), for POST /projects/p-1/auth/domains; gave up after ${s.seen.length} ` +
        `attempts (request id ${id}); last error: 423 from POST /projects/p-1/auth/domains: ${LOCKED.message} (request id ${id}); ` +
        `gave up after ${s.seen.length} attempts`,
    );
  });

  it("follows a budget set per client, longer or shorter than the deadline of other failures", async () => {
    s = setup({ lockTimeoutMs: 300_000 });
    lockedFor(200_000);
    const start = s.clock.now();
    await s.clock.run(add());
    expect(s.seen.at(-1)!.at - start).toBeGreaterThanOrEqual(200_000);

    s = setup({ lockTimeoutMs: 5_000 });
    lockedFor(60_000);
    const e = (await rejection(add())) as NeonTimeoutError;
    expect(e.lockedForMs).toBe(5_000);
    expect(e.message).toMatch(/^project locked: waited 5 s while Neon answered 423 .* up to the lock budget of 5 s /);
  });
});

describe("a client", () => {
  it("never exposes the key", () => {
    expect(JSON.stringify(s.client)).toBe(`{"baseUrl":"${BASE}"}`);
    expect(inspect(s.client, { depth: 10, showHidden: true })).not.toContain(KEY);
  });

  it("tells each write where it wrote when it settles: a create that answered, or anything else", async () => {
    const writes: WriteEvent[] = [];
    s = setup({ onWrite: (w) => writes.push(w) });
    on("GET", "/projects/p-1/auth/domains", () => ({ statusCode: 200, data: { domains: [] } }));
    on("POST", "/projects/p-1/auth/domains", () => ({ statusCode: 201 }));
    on("POST", "/projects/auth/create", () => ({ statusCode: 409, data: { code: "", message: "exists" } }));
    on("DELETE", "/projects/p-1/branches/br-1/auth/domains", () => ({ statusCode: 200 }));
    await s.clock.run(s.client.listDomains("p-1"));
    await s.clock.run(s.client.addDomain("p-1", { domain: "https://app.example.com", auth_provider: "stack" }));
    await rejection(s.client.createIntegration({ project_id: "p-1", branch_id: "br-1", auth_provider: "stack" }));
    await s.clock.run(s.client.branchAuth.deleteBranchDomains({ project_id: "p-1", branch_id: "br-1" }, { auth_provider: "better_auth", domains: [{ domain: "https://app.example.com" }] }));
    expect(writes).toEqual([
      { projectId: "p-1", branchId: undefined, created: true },
      { projectId: "p-1", branchId: undefined, created: false },
      { projectId: "p-1", branchId: "br-1", created: false },
    ]);
  });
});

describe("policy functions", () => {
  it("shouldRetry: POST only where the server cannot have acted; other methods after any transient failure", () => {
    for (const status of [423, 429, 503]) expect(shouldRetry("POST", { kind: "status", status })).toBe(true);
    for (const status of [500, 502, 504]) expect(shouldRetry("POST", { kind: "status", status })).toBe(false);
    for (const status of [400, 401, 404, 409, 422]) {
      expect(isRetryableStatus(status)).toBe(false);
      expect(shouldRetry("GET", { kind: "status", status })).toBe(false);
    }
    for (const m of ["GET", "PATCH", "DELETE"] as const) {
      expect(shouldRetry(m, { kind: "status", status: 500 })).toBe(true);
      expect(shouldRetry(m, { kind: "network", mayHaveActed: true })).toBe(true);
    }
    expect(shouldRetry("POST", { kind: "network", mayHaveActed: false })).toBe(true);
    expect(shouldRetry("POST", { kind: "network", mayHaveActed: true })).toBe(false);
    expect(networkMayHaveActed("ECONNREFUSED", true)).toBe(false);
    expect(networkMayHaveActed("UND_ERR_CONNECT_TIMEOUT", false)).toBe(false);
    expect(networkMayHaveActed("UND_ERR_SOCKET", true)).toBe(true);
    expect(networkMayHaveActed("ECONNRESET", false)).toBe(false);
    expect(networkMayHaveActed("UND_ERR_HEADERS_TIMEOUT", true)).toBe(true);
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter("2", now, 30_000)).toBe(2_000);
    expect(parseRetryAfter("0.25", now, 30_000)).toBe(250);
    expect(parseRetryAfter("120", now, 30_000)).toBe(30_000);
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:07 GMT", now, 30_000)).toBe(7_000);
    expect(parseRetryAfter("Tue, 31 Dec 2024 23:59:00 GMT", now, 30_000)).toBe(0);
    expect(parseRetryAfter("soon", now, 30_000)).toBeUndefined();
    expect(parseRetryAfter(undefined, now, 30_000)).toBeUndefined();
  });

  it("redactValue and redactText hide secret fields and known secret strings", () => {
    expect(redactValue({ a: 1, password: "p", nested: [{ client_secret: "c", secret_server_key: "s", pub_client_key: "k", id: "x" }] })).toEqual({
      a: 1,
      password: "[redacted]",
      nested: [{ client_secret: "[redacted]", secret_server_key: "[redacted]", pub_client_key: "[redacted]", id: "x" }],
    });
    expect(redactText("key abcd1234 in Authorization: Bearer xyz", ["abcd1234"])).toBe("key [redacted] in Authorization: Bearer [redacted]");
  });
});
