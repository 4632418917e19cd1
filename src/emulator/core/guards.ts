/**
 * Who may be served: where a request comes from (Host, Origin, Sec-Fetch-Site, loopback peer),
 * what a control write must carry, and who may read secrets. See "Guards" in README.md.
 */
import type * as http from "node:http";
import type { Socket } from "node:net";
import { isLoopbackHost } from "../../schemas/fields";
import type { EmulatorCore } from "./context";
import { HttpError } from "./http";

/**
 * Why a request must not be served, from where it comes: a Host other than a loopback name with
 * this emulator's port (a DNS-rebound page names its own host), an Origin other than the
 * emulator's own (a page of another site, or a sandboxed one with `null`), or a browser's
 * `Sec-Fetch-Site` saying another site sent it. Undefined when it may be served.
 */
export function sourceProblem(core: EmulatorCore, req: http.IncomingMessage): string | undefined {
  const host = (req.headers.host ?? "").toLowerCase();
  if (!hostAllowed(core, host)) {
    return `Host must be a loopback name with this emulator's port (such as 127.0.0.1:${core.port}); requests for other hosts are refused`;
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origin.toLowerCase() !== `http://${host}`) {
    return "requests from web pages of other origins are refused";
  }
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none") {
    return "requests a browser sends on behalf of another site are refused";
  }
  return undefined;
}

function hostAllowed(core: EmulatorCore, host: string): boolean {
  if (host === "") return false;
  if (core.allowedHosts.has(host)) return true;
  let url: URL;
  try {
    url = new URL(`http://${host}`);
  } catch {
    return false;
  }
  if (url.username || url.password || url.pathname !== "/" || `${url.host}` !== host) return false;
  const port = url.port === "" ? 80 : Number(url.port);
  return port === core.port && isLoopbackHost(url.hostname);
}

/** Control writes carry JSON, which a cross-site form or a "simple" request cannot send. */
export function requireJson(req: http.IncomingMessage): void {
  const ct = String(req.headers["content-type"] ?? "").toLowerCase().split(";")[0]!.trim();
  if (ct !== "application/json") {
    throw new HttpError(415, "content-type: control writes must be sent as application/json");
  }
}

export function bearerOf(req: http.IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  return auth === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1];
}

/** Secrets are served to the holder of the control token or of an API key, to nobody else. */
export function mayReadSecrets(core: EmulatorCore, req: http.IncomingMessage): boolean {
  const bearer = bearerOf(req);
  return bearer !== undefined && (bearer === core.controlToken || core.keys.has(bearer));
}

export function isLoopback(socket: Socket): boolean {
  const a = socket.remoteAddress ?? "";
  return a === "127.0.0.1" || a === "::1" || a === "::ffff:127.0.0.1" || a.startsWith("127.");
}
