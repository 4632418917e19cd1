import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { isConflict, isNotFound } from "../client";
import { authProvider, canonicalOrigin, originInput, projectId } from "../schemas";
import { afterWrite, api, sharedList } from "./context";
import { createConverging } from "./converge";
import { checkInputs, lookupArgs, parsedInputs, compact, diffFields, joinId, MODULE, providerOf, splitId, type Handler, type Props } from "./kit";
import { childInputs, explainMissingIntegration, identityRule, integrationIdentity, parentOf, type IntegrationIdentity, type ParentIntegration } from "./parent";

const KIND = "RedirectDomain";

/** `HTTPS://App.Example.com:443/` and `https://app.example.com` are one origin: compare them as one. */
function sameOrigin(listed: string, wanted: string): boolean {
  const r = canonicalOrigin(listed);
  return ("origin" in r ? r.origin : listed) === wanted;
}

/** @internal Runtime input rules; kept out of the published types (zod is not a public type). */
export const redirectDomainInputs = z.strictObject({
  projectId,
  integration: integrationIdentity,
  domain: originInput,
  authProvider: authProvider.default("stack"),
});

export interface RedirectDomainArgs {
  /** The AuthIntegration the domain belongs to; the domain is created after it and replaced with it. */
  integration: ParentIntegration;
  /** An origin users may be sent back to after sign-in: `https://app.example.com[:port]`, no path. */
  domain: pulumi.Input<string>;
}

const fields = (olds: Props) =>
  [
    { name: "projectId", replaces: true },
    identityRule(olds),
    { name: "domain", replaces: true },
    { name: "authProvider", replaces: true },
  ] as const;

async function isListed(project: string, origin: string): Promise<boolean> {
  const list = await sharedList(project, "domains", () => api().listDomains(project));
  return list.some((d) => sameOrigin(d.domain, origin));
}

/** @internal What the dynamic-provider process runs for this kind (runtime.ts). */
export const redirectDomainHandler: Handler = {
  async check(_olds, news) {
    return checkInputs(KIND, redirectDomainInputs, news);
  },

  async diff(_id, olds, news) {
    return diffFields(olds, news, fields(olds));
  },

  async create(props) {
    const inputs = parsedInputs(redirectDomainInputs, props);
    // A domain is nothing but its name: if it is listed after a lost answer or a conflict,
    // it is exactly what was asked for.
    const listed = async () => {
      afterWrite(inputs.projectId);
      return (await isListed(inputs.projectId, inputs.domain)) || undefined;
    };
    try {
      await createConverging({
        create: () => api().addDomain(inputs.projectId, { domain: inputs.domain, auth_provider: inputs.authProvider }),
        find: listed,
      });
    } catch (err) {
      if (!isConflict(err) || !(await listed())) throw explainMissingIntegration(KIND, inputs.projectId, err);
    }
    afterWrite(inputs.projectId);
    return { id: joinId(inputs.projectId, inputs.domain), outs: compact({ ...inputs }) };
  },

  async read(id, props) {
    const [project, origin] = splitId(KIND, id, 2, "<projectId>/<origin>");
    // The project answered just now, so a 404 of the list means the integration went meanwhile.
    const parent = await parentOf(KIND, { ...props, projectId: project });
    if (!parent) return {};
    try {
      if (!(await isListed(project, origin))) return {};
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    const inputs = compact({ projectId: project, integration: parent.identity, domain: origin, authProvider: props.authProvider ?? "stack" });
    return { id, props: inputs, inputs };
  },

  async update(_id, olds, news) {
    // Only the integration's identity can change in place (state written before it was recorded).
    return { outs: { ...olds, integration: news.integration } };
  },

  async delete(id, props) {
    const [project, origin] = splitId(KIND, id, 2, "<projectId>/<origin>");
    try {
      await api().deleteDomains(project, {
        auth_provider: props.authProvider ?? "stack",
        domains: [{ domain: origin }],
      });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    afterWrite(project);
  },
};

/**
 * One origin on the redirect-URI whitelist. Changing it replaces the entry. Id (for `get` and
 * `importFile`): `<projectId>/<origin>`, e.g. `p-123/https://app.example.com`.
 *
 * @example
 * ```ts
 * new RedirectDomain("app", { integration: auth, domain: "https://app.example.com" });
 * ```
 */
export class RedirectDomain extends pulumi.dynamic.Resource {
  /** The Neon project, from the integration. */
  declare readonly projectId: pulumi.Output<string>;
  /** The identity of the integration the domain was added to. */
  declare readonly integration: pulumi.Output<IntegrationIdentity>;
  /** The origin, in canonical form (lower case, default port dropped). */
  declare readonly domain: pulumi.Output<string>;
  /** The auth provider, from the integration. */
  declare readonly authProvider: pulumi.Output<string>;

  constructor(name: string, args: RedirectDomainArgs, opts?: pulumi.CustomResourceOptions) {
    super(providerOf(KIND), name, childInputs(args), opts, MODULE, KIND);
  }

  /**
   * Looks up an origin already on the whitelist by its id, `<projectId>/<origin>`
   * (e.g. `p-123/https://app.example.com`), without managing it: the engine reads it on
   * every `up` and `refresh`, and `destroy` only forgets it.
   */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): RedirectDomain {
    return new RedirectDomain(name, lookupArgs<RedirectDomainArgs>(redirectDomainInputs), { ...opts, id });
  }
}
