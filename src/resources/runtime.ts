/**
 * Entry point of the dynamic-provider process: the serialized provider methods
 * (providers/dynamic.ts) load this module by package name and dispatch to the handler of their
 * resource kind.
 */
import { assertNodeVersion } from "../nodeVersion";
// First, before the rest loads: on an old Node our dependencies fail without saying why.
assertNodeVersion("pulumi-neon-auth");
import { collectSecrets, redactText, rememberSecrets } from "../client";
import type { Handler, Kind, Props } from "./kit";
import { integrationHandler } from "./authIntegration";
import { sdkKeysHandler } from "./authSdkKeys";
import { ownershipTransferHandler } from "./authOwnershipTransfer";
import { userHandler } from "./authUser";
import { oauthProviderHandler } from "./oauthProvider";
import { redirectDomainHandler } from "./redirectDomain";
import { emailServerHandler } from "./emailServer";
import { neonAuthHandler } from "./neonAuth";

import { settingsReady } from "./context";
import { forResource } from "./waits";

export { configure } from "./context";

const handlers: Record<Kind, Handler> = {
  AuthIntegration: integrationHandler,
  AuthSdkKeys: sdkKeysHandler,
  AuthOwnershipTransfer: ownershipTransferHandler,
  AuthUser: userHandler,
  OAuthProvider: oauthProviderHandler,
  RedirectDomain: redirectDomainHandler,
  EmailServer: emailServerHandler,
  NeonAuth: neonAuthHandler,
};

const guardedHandlers = new Map<Kind, Handler>();

export function handler(kind: Kind): Handler {
  const h = handlers[kind];
  if (!h) throw new Error(`pulumi-neon-auth has no resource kind ${kind}; is the installed package older than the stack?`);
  // Every call, check included, first needs settings that make sense: so preview already says
  // what is missing, for each resource, without sending anything.
  settingsReady();
  let g = guardedHandlers.get(kind);
  if (!g) guardedHandlers.set(kind, (g = guarded(kind, h)));
  return g;
}

/** How a wait line names the resource: its kind and what tells it apart (never a secret). */
function label(kind: Kind, props: Props | undefined, id?: string): string {
  const domain = props?.domain;
  if (typeof domain === "string") return `${kind} ${domain}`;
  if (id !== undefined && id !== "") return `${kind} ${id}`;
  const where = [props?.projectId, props?.branchId].filter((v): v is string => typeof v === "string");
  return where.length > 0 ? `${kind} on ${where.join("/")}` : kind;
}

/**
 * Every secret a provider method sees (inputs, old outputs, new outputs) is remembered for the
 * rest of the process, and every error it throws or failure it reports is scrubbed of all of
 * them: an error about one resource may quote a secret that belongs to another, or one that
 * was never sent in that request (an old client secret echoed by the API).
 */
function guarded(kind: Kind, h: Handler): Handler {
  const wrap =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      for (const a of args) rememberSecrets(secretsIn(a));
      try {
        const result = await fn(...args);
        rememberSecrets(secretsIn(result));
        return result;
      } catch (e) {
        throw scrub(e);
      }
    };
  const check = wrap(h.check.bind(h));
  const create = wrap(h.create.bind(h));
  const read = wrap(h.read.bind(h));
  const update = wrap(h.update.bind(h));
  const del = wrap(h.delete.bind(h));
  return {
    check: async (olds, news) => {
      const r = await check(olds, news);
      return r.failures ? { ...r, failures: r.failures.map((f) => ({ ...f, reason: redactText(f.reason) })) } : r;
    },
    diff: wrap(h.diff.bind(h)),
    create: (inputs) => forResource(label(kind, inputs), () => create(inputs)),
    read: (id, props) => forResource(label(kind, props, id), () => read(id, props)),
    update: (id, olds, news) => forResource(label(kind, news, id), () => update(id, olds, news)),
    delete: (id, props) => forResource(label(kind, props, id), () => del(id, props)),
  };
}

/** Secret values in props or a provider result; a transfer's `url` carries a one-time code. */
function secretsIn(value: unknown): string[] {
  const found = collectSecrets(value);
  const props = value as { url?: unknown; outs?: { url?: unknown }; props?: { url?: unknown } } | undefined;
  for (const url of [props?.url, props?.outs?.url, props?.props?.url]) if (typeof url === "string") found.push(url);
  return found;
}

function scrub(e: unknown): unknown {
  if (!(e instanceof Error)) return new Error(redactText(String(e)));
  e.message = redactText(e.message);
  if (e.stack) e.stack = redactText(e.stack);
  return e;
}
