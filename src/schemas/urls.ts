/**
 * Field rules for what is written as a URL: ports, origins (redirect and trusted domains) and
 * webhook URLs. Part of the one set of field rules (fields.ts).
 */
import { isIPv4, isIPv6 } from "node:net";
import { parse as parseDomain } from "tldts";
import { z } from "zod";
import { CONTROL, hostProblem, INVISIBLE_LAYOUT, isLoopbackHost, RULES, secretField } from "./fields";

// ---- ports and origins -----------------------------------------------------------------------

const PORT_RULE = "must be a whole number between 1 and 65535";

/** A port on the wire: a JSON number. */
export const port = z
  .number({ message: "must be a number" })
  .int({ message: "must be a whole number" })
  .min(1, { message: "must be between 1 and 65535" })
  .max(65535, { message: "must be between 1 and 65535" });

/** A port as a program gives it: a number, or its decimal string (config values are strings). */
export const portInput = z
  .unknown()
  .transform((v, ctx) => {
    if (typeof v !== "string") return v;
    if (/^[1-9]\d{0,4}$/.test(v)) return Number(v);
    ctx.addIssue({ code: "custom", message: PORT_RULE });
    return z.NEVER;
  })
  .pipe(port)
  // Published as what it is (the plugin's schema, its SDKs), not as the `unknown` it starts from.
  .meta({ type: "integer" });

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };
const ORIGIN_FORM = "must be an origin of the form https://host[:port], with no path, query, fragment or credentials";

/**
 * An origin in canonical form (`https://host[:port]`: lower case, no default port, no trailing
 * slash), or the reason it is not one. `http:` is taken for loopback hosts only: a browser sent
 * back to plain http elsewhere would carry its sign-in code in clear.
 */
export function canonicalOrigin(value: string, opts: { exact?: boolean; wildcard?: boolean } = {}): { origin: string } | { problem: string } {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)(\/*)([?#].*)?$/is.exec(opts.exact ? value : value.trim());
  if (!m) return { problem: withSuggestion(value, opts) };
  if (opts.exact && m[3] !== "") return { problem: "must have no path, not even a trailing slash" };
  const scheme = `${m[1]!.toLowerCase()}:`;
  const authority = m[2]!;
  if (m[4] !== undefined) return { problem: "must not have a query or fragment" };
  if (scheme !== "https:" && scheme !== "http:") return { problem: "must use https (or http for a loopback host)" };
  if (authority.includes("@")) return { problem: "must not carry credentials (user@host)" };
  const hp = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(authority);
  if (!hp) return { problem: /:.*\*/.test(authority) ? "port must not be a wildcard" : ORIGIN_FORM };
  let host = hp[1]!.toLowerCase();
  const portText = hp[2];
  if (host.startsWith("[")) {
    const inner = host.slice(1, -1);
    if (!isIPv6(inner)) return { problem: "must hold a valid IPv6 address between the brackets" };
    host = new URL(`http://[${inner}]`).hostname;
  } else {
    const problem = opts.wildcard && host.includes("*") ? wildcardProblem(host) : hostProblem(host);
    if (problem) return { problem: `host ${problem}` };
  }
  let portPart = "";
  if (portText !== undefined) {
    if (!/^[1-9]\d{0,4}$/.test(portText) || Number(portText) > 65535) {
      return { problem: "port must be a number between 1 and 65535 without leading zeros" };
    }
    if (portText !== DEFAULT_PORTS[scheme]) portPart = `:${portText}`;
  }
  if (scheme === "http:" && !isLoopbackHost(host)) return { problem: "must use https (http is accepted for loopback hosts only)" };
  return { origin: `${scheme}//${host}${portPart}` };
}

/**
 * The origin rule, with the origin meant when the value is a bare host name (`app.example.com`,
 * `localhost:3000`): the scheme is what is most often left out. Only a dotted name or localhost is
 * echoed, never a single word: the value could be a secret pasted into the wrong field, and a key
 * or password is one word, not a domain name.
 */
function withSuggestion(value: string, opts: { wildcard?: boolean }): string {
  const bare = value.trim();
  if (!/^(localhost|(\*\.)?([a-z0-9-]+\.)+[a-z]{2,63}|(\d{1,3}\.){3}\d{1,3})(:\d{1,5})?\/?$/i.test(bare)) return ORIGIN_FORM;
  const host = bare.replace(/(:\d+)?\/?$/, "");
  const scheme = isLoopbackHost(host.toLowerCase()) ? "http" : "https";
  const meant = canonicalOrigin(`${scheme}://${bare}`, { ...opts, exact: false });
  return "origin" in meant ? `${ORIGIN_FORM}: did you mean ${meant.origin}?` : ORIGIN_FORM;
}

/**
 * Why `host` (lower case) is not a wildcard pattern Neon documents for trusted domains of a branch
 * (content/docs/auth/guides/configure-domains.md of neondatabase/website: `https://*.my-app-preview.vercel.app`
 * for preview deployments): `*` as the whole first label, over a name of at least two labels that
 * is not a public suffix (`*.vercel.app` or `*.co.uk` would trust every site anyone registers
 * there). Public suffixes come from the Public Suffix List, private section included (tldts).
 */
function wildcardProblem(host: string): string | undefined {
  if (host === "*") return "must not be a bare wildcard: name the domain it stands under (https://*.example.com)";
  if (!host.startsWith("*.")) return "may hold a wildcard only as its whole first label (https://*.example.com)";
  const rest = host.slice(2);
  if (rest.includes("*")) return "may hold one wildcard only, as its whole first label (https://*.example.com)";
  const problem = hostProblem(rest);
  if (problem) return problem;
  if (isIPv4(rest) || rest.split(".").length < 2) return "must have at least two labels after the wildcard (https://*.example.com)";
  if (parseDomain(rest, { allowPrivateDomains: true }).publicSuffix === rest) {
    return "must not put a wildcard over a public suffix (such as *.vercel.app or *.co.uk): name your own domain after the wildcard";
  }
  return undefined;
}

function originSchema(exact: boolean, wildcard = false) {
  return z.string().transform((v, ctx) => {
    const r = canonicalOrigin(v, { exact, wildcard });
    if ("problem" in r) {
      ctx.addIssue({ code: "custom", message: r.problem });
      return z.NEVER;
    }
    return r.origin;
  });
}

/** A redirect origin on the wire: no surrounding space or trailing slash; sent canonical. */
export const origin = originSchema(true);
/** A trusted domain of a branch on the wire: an origin, or one with a leading `*.` label (see wildcardProblem). */
export const trustedDomain = originSchema(true, true);
/** A trusted domain of a branch as a program gives it, made canonical. */
export const trustedDomainInput = originSchema(false, true);

// ---- webhook URLs ----------------------------------------------------------------------------

/**
 * Cap on a webhook URL. Neon documents none; 2048 characters is the limit many HTTP stacks, proxies
 * and CDNs keep in practice (RFC 9110 section 4.1 asks only for at least 8000 octets of request
 * line), far above any real endpoint with a token in its path or query.
 */
export const WEBHOOK_URL_MAX = 2048;

/** Why `value` is not a webhook URL; undefined when it is. */
export function webhookUrlProblem(value: string): string | undefined {
  // OTP codes and magic links travel in these events: in clear only to this machine.
  return urlProblem(value, { loopbackHttp: true });
}

/**
 * Why `value` is not an absolute https URL of at most `WEBHOOK_URL_MAX` characters (http too for a
 * loopback host when `loopbackHttp`); undefined when it is. Checked before parsing: a URL parser
 * drops CR, LF and TAB silently.
 */
export function urlProblem(value: string, opts: { loopbackHttp: boolean }): string | undefined {
  if (value.length > WEBHOOK_URL_MAX) return `must be at most ${WEBHOOK_URL_MAX} characters`;
  if (CONTROL.test(value)) return RULES.control;
  if (INVISIBLE_LAYOUT.test(value)) return RULES.layout;
  if (/\s/.test(value)) return "must not contain spaces";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute https:// URL";
  }
  if (url.protocol !== "https:" && (url.protocol !== "http:" || !opts.loopbackHttp)) return "must be an https:// URL";
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) return "must use https (http is accepted for loopback hosts only)";
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (!isIPv6(host)) {
    const problem = hostProblem(host);
    if (problem) return `host ${problem}`;
  }
  return undefined;
}

/** Where Neon sends auth events: a secret, as its path or query often carries a token. */
export const webhookUrl = secretField(
  z.string().superRefine((v, ctx) => {
    const problem = webhookUrlProblem(v);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }),
);

