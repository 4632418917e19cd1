/**
 * Failures that cannot heal fail once, with one clear error naming the setting and never its
 * value; what comes back from a server is scrubbed and cleaned before it reaches a terminal.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClient, NeonApiError, NeonConfigError, NeonNetworkError } from "../../src/client";
import { forgetSecrets } from "../../src/client/redact";

const KEY = "hardening-key-5b8e1d";

/** A loopback server that answers every request with `reply` and counts requests and connections. */
async function server(reply: (req: http.IncomingMessage, res: http.ServerResponse) => void, tls?: { key: string; cert: string }) {
  const seen: string[] = [];
  let connections = 0;
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    seen.push(`${req.method} ${req.url}`);
    reply(req, res);
  };
  const s = tls ? https.createServer(tls, handler) : http.createServer(handler);
  s.on("connection", () => connections++);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${port}/api/v2`,
    seen,
    connections: () => connections,
    close: () => new Promise<void>((r) => s.close(() => r())),
  };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

async function failure(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error("expected a failure");
    },
    (e: Error) => e,
  );
}

beforeEach(() => forgetSecrets());

describe("an API key HTTP cannot carry", () => {
  it.each([
    ["CR/LF", `${KEY}\r\nX-Injected: 1`],
    ["NUL", `${KEY}\u0000tail`],
    ["inner space", `${KEY} tail`],
    ["non-ASCII", `${KEY}é`],
  ])("with %s fails once, before sending, naming the setting and never the value", async (_what, key) => {
    const s = await server(json(200, { domains: [] }));
    try {
      for (const make of [createClient]) {
        const e = await failure(
          (async () => make({ apiKey: key, baseUrl: s.url, pacing: false, settingNames: { apiKey: "neon-auth:apiKey" } }).listDomains("p-1"))(),
        );
        expect(e).toBeInstanceOf(NeonConfigError);
        expect(e.message).toBe(
          "the Neon API key (neon-auth:apiKey) holds characters that cannot be sent in an HTTP header (control characters such as CR, LF or NUL, " +
            "spaces, or non-ASCII letters); the value is not shown. Set it again, without them",
        );
        expect(e.message).not.toContain(KEY);
      }
      expect(s.seen).toEqual([]);
      expect(s.connections()).toBe(0);
    } finally {
      await s.close();
    }
  });
});

describe("a certificate the machine does not trust", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "neon-tls-"));
  let tls: { key: string; cert: string };

  beforeAll(() => {
    const key = path.join(dir, "key.pem");
    const cert = path.join(dir, "cert.pem");
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=127.0.0.1",
      "-addext", "subjectAltName=IP:127.0.0.1", "-days", "1", "-keyout", key, "-out", cert], { stdio: "ignore" });
    tls = { key: fs.readFileSync(key, "utf8"), cert: fs.readFileSync(cert, "utf8") };
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("self-signed: fails after one attempt, naming the origin and the setting, not retryable", async () => {
    const s = await server(json(200, { domains: [] }), tls);
    const client = createClient({ apiKey: KEY, baseUrl: s.url, pacing: false, settingNames: { baseUrl: "neon-auth:apiUrl" } });
    try {
      const e = (await failure(client.listDomains("p-1"))) as NeonNetworkError;
      expect(e).toBeInstanceOf(NeonNetworkError);
      expect([e.attempts, e.retryable, e.errorCode, e.mayHaveActed]).toEqual([1, false, "DEPTH_ZERO_SELF_SIGNED_CERT", false]);
      const origin = new URL(s.url).origin;
      // Node's own text (which may add a hint) sits between the code and our remedy.
      expect(e.message.startsWith("network error on GET /projects/p-1/auth/domains: DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate")).toBe(true);
      expect(e.message.endsWith(
        `; the TLS certificate of ${origin} was not accepted, and retrying cannot change that: check the neon-auth:apiUrl setting, ` +
          // Nothing was sent, so there is no request id anyone could look up.
          "or trust the certificate's authority with NODE_EXTRA_CA_CERTS",
      )).toBe(true);
      expect(e.message).not.toContain(KEY);
      expect(s.seen).toEqual([]);
      expect(s.connections()).toBe(1);
    } finally {
      await client.close();
      await s.close();
    }
  });
});

describe("the base URL", () => {
  it.each([
    ["http://console.example.com/api/v2", "baseUrl must use https: the API key would travel in clear to http://console.example.com. Plain http is accepted for loopback hosts only (127.0.0.0/8, localhost, [::1]), such as the local emulator"],
    ["http://10.0.0.5:8080/api/v2", "baseUrl must use https: the API key would travel in clear to http://10.0.0.5:8080. Plain http is accepted for loopback hosts only (127.0.0.0/8, localhost, [::1]), such as the local emulator"],
    ["napi_pasted_key_0123456789", "baseUrl is not a valid URL (the value is not shown, in case it is a secret); expected a URL such as https://console.neon.tech/api/v2"],
    ["https://user:napi_pw_0123456789@console.neon.tech/api/v2", "baseUrl must not carry credentials (user:password@host); the API key has a setting of its own"],
    ["ftp://console.neon.tech/api/v2", "baseUrl must be an https URL such as https://console.neon.tech/api/v2"],
  ])("%s is refused with one clear error", (baseUrl, message) => {
    expect(() => createClient({ apiKey: KEY, baseUrl, pacing: false })).toThrow(new NeonConfigError(message));
  });

  it.each(["http://127.0.0.1:4000/api/v2", "http://127.5.6.7/api/v2", "http://localhost:3000/api/v2", "http://[::1]:3000/api/v2", "https://console.neon.tech/api/v2"])(
    "%s is accepted (loopback, or https)",
    async (baseUrl) => {
      const c = createClient({ apiKey: KEY, baseUrl, pacing: false });
      expect(c.baseUrl).toBe(baseUrl);
      await c.close();
    },
  );
});

describe("what comes back from a server", () => {
  it("is scrubbed of every secret the process knows, whatever its length, even ones not sent in that request", async () => {
    const old = "old-client-secret-31f";
    const s = await server((req, res) => {
      if (req.method === "POST") return json(200, { id: "github", type: "standard", client_id: "cid", client_secret: old })(req, res);
      return json(400, { code: "x", message: `rejected: previous secret ${old}, password pw1, key ${KEY}` })(req, res);
    });
    const client = createClient({ apiKey: KEY, baseUrl: s.url, pacing: false });
    try {
      await client.addOAuthProvider("p-1", { id: "github", client_id: "cid", client_secret: old });
      const e = (await failure(
        client.updateEmailServer("p-1", { type: "standard", host: "smtp.example.com", port: 587, username: "u", password: "pw1", sender_email: "a@example.com", sender_name: "A" }),
      )) as NeonApiError;
      expect(e.neonMessage).toBe("rejected: previous secret [redacted], password [redacted], key [redacted]");
    } finally {
      await client.close();
      await s.close();
    }
  });

  it("loses control characters (ANSI escapes, newlines, bidi overrides) and over-long request ids", async () => {
    const s = await server(json(500, { code: "E\u001b[31mRR", message: "line one\r\nline two \u001b[2J\u202egnp.exe", request_id: "r".repeat(5000) }));
    const client = createClient({ apiKey: KEY, baseUrl: s.url, pacing: false, maxAttempts: 1 });
    try {
      const e = (await failure(client.listDomains("p-1"))) as NeonApiError;
      expect(e.code).toBe("E [31mRR");
      expect(e.neonMessage).toBe("line one line two [2J gnp.exe");
      expect(e.requestId).toBe("r".repeat(100));
      expect(e.message).toBe(`500 from GET /projects/p-1/auth/domains: line one line two [2J gnp.exe (request id ${"r".repeat(100)})`);
    } finally {
      await client.close();
      await s.close();
    }
  });
});

describe("path parameters", () => {
  it.each([".", "..", "", " ", "a\nb", "x".repeat(257)])("%j is refused before sending", async (id) => {
    const s = await server(json(204, {}));
    const client = createClient({ apiKey: KEY, baseUrl: s.url, pacing: false });
    try {
      const e = await failure(client.deleteUser("p-1", id));
      expect(e).toBeInstanceOf(NeonConfigError);
      expect(e.message).toMatch(/^userId (must be a non-empty string|must not be a dot segment \(\. or \.\.\)|must be at most 256 characters|must not contain control characters \(such as CR, LF, TAB, NUL or ESC\)); nothing was sent$/);
      const e2 = await failure(client.deleteOAuthProvider("p-1", id));
      expect(e2).toBeInstanceOf(NeonConfigError);
      expect(s.seen).toEqual([]);
    } finally {
      await client.close();
      await s.close();
    }
  });
});
