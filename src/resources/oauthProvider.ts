import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { isConflict, isNotFound } from "../client";
import { oauthClientId, oauthClientSecret, oauthProviderId, projectId, type OAuthProvider as ApiOAuthProvider } from "../schemas";
import { afterWrite, api, sharedList } from "./context";
import { createConverging } from "./converge";
import { checkInputs, lookupArgs, parsedInputs, compact, diffFields, joinId, MODULE, providerOf, splitId, type Handler, type Props } from "./kit";
import { childInputs, despiteIntegration, explainMissingIntegration, identityRule, integrationIdentity, parentOf, type IntegrationIdentity, type ParentIntegration } from "./parent";

const KIND = "OAuthProvider";

/** @internal Runtime input rules; kept out of the published types (zod is not a public type). */
export const oauthProviderInputs = z
  .strictObject({
    projectId,
    integration: integrationIdentity,
    providerId: oauthProviderId,
    clientId: oauthClientId.optional(),
    clientSecret: oauthClientSecret.optional(),
    adopt: z.boolean().default(false),
  })
  .superRefine((v, ctx) => {
    if ((v.clientId === undefined) !== (v.clientSecret === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [v.clientId === undefined ? "clientId" : "clientSecret"],
        message: "must be set together with the other credential (both for your own OAuth app, neither for Neon's shared keys)",
      });
    }
  }, despiteIntegration);
type Inputs = z.infer<typeof oauthProviderInputs>;

export interface OAuthProviderArgs {
  /** The AuthIntegration the provider belongs to; the provider is created after it and replaced with it. */
  integration: ParentIntegration;
  /** `google`, `github` or `microsoft`. Changing it replaces the provider. */
  providerId: pulumi.Input<"google" | "github" | "microsoft">;
  /** Your OAuth app's client id; leave both credentials out to use Neon's shared keys. */
  clientId?: pulumi.Input<string>;
  /** Your OAuth app's client secret (kept secret in state). */
  clientSecret?: pulumi.Input<string>;
  /** Take over a provider of this id that already exists instead of failing. Default false. */
  adopt?: pulumi.Input<boolean>;
}

function outputsOf(inputs: Inputs, provider: Pick<ApiOAuthProvider, "type">): Props {
  return compact({ ...inputs, type: provider.type });
}

async function findProvider(project: string, id: string) {
  const list = await sharedList(project, "oauth_providers", () => api().listOAuthProviders(project));
  return list.find((p) => p.id === id);
}

/** Sets the wanted credentials on a provider that exists (adoption, lost answer). */
async function converge(inputs: Inputs, existing: { type: string }): Promise<Props> {
  if (inputs.clientId === undefined) {
    if (existing.type !== "shared") {
      throw new Error(
        `${KIND} ${inputs.providerId}: project ${inputs.projectId} has it with its own credentials, ` +
          "and the API cannot switch a provider back to shared keys in place; delete it first or declare its credentials",
      );
    }
    return outputsOf(inputs, existing);
  }
  const updated = await api().updateOAuthProvider(inputs.projectId, inputs.providerId, {
    client_id: inputs.clientId,
    client_secret: inputs.clientSecret,
  });
  return outputsOf(inputs, updated);
}

/** @internal What the dynamic-provider process runs for this kind (runtime.ts). */
export const oauthProviderHandler: Handler = {
  async check(_olds, news) {
    return checkInputs(KIND, oauthProviderInputs, news);
  },

  async diff(_id, olds, news) {
    const diff = diffFields(olds, news, [
      { name: "projectId", replaces: true },
      identityRule(olds),
      { name: "providerId", replaces: true },
      // Back to shared keys: the API has no way to drop credentials in place.
      { name: "clientId", replaces: news.clientId === undefined },
      { name: "clientSecret", replaces: news.clientSecret === undefined },
      { name: "adopt" },
    ], { deleteBeforeReplace: true });
    return diff;
  },

  async create(props) {
    const inputs = parsedInputs(oauthProviderInputs, props);
    const body = compact({ id: inputs.providerId, client_id: inputs.clientId, client_secret: inputs.clientSecret });
    const id = joinId(inputs.projectId, inputs.providerId);
    const find = () => {
      afterWrite(inputs.projectId);
      return findProvider(inputs.projectId, inputs.providerId);
    };
    try {
      // After a lost answer the provider is found by its id and given the wanted credentials.
      const made = await createConverging({ create: () => api().addOAuthProvider(inputs.projectId, body), find });
      afterWrite(inputs.projectId);
      return { id, outs: made.created ? outputsOf(inputs, made.created) : await converge(inputs, made.found!) };
    } catch (err) {
      if (!isConflict(err)) throw explainMissingIntegration(KIND, inputs.projectId, err);
      if (!inputs.adopt) {
        throw new Error(
          `${KIND} ${inputs.providerId}: project ${inputs.projectId} already has this provider ` +
            "(made outside this stack or by an interrupted run). Set `adopt: true` to take it over, or delete it first.",
        );
      }
      const existing = await find();
      if (!existing) throw err;
      return { id, outs: await converge(inputs, existing) };
    }
  },

  async read(id, props) {
    const [project, providerId] = splitId(KIND, id, 2, "<projectId>/<providerId>");
    // The project answered just now, so a 404 of the list means the integration went meanwhile.
    const parent = await parentOf(KIND, { ...props, projectId: project });
    if (!parent) return {};
    let found: { id: string; type: string } | undefined;
    try {
      found = await findProvider(project, providerId);
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    if (!found) return {};
    // The list shows the type only; credentials stay as last set. A provider switched to shared
    // keys elsewhere loses them here, so the next `up` sets them again.
    const standard = found.type === "standard";
    const inputs = compact({
      projectId: project,
      integration: parent.identity,
      providerId,
      clientId: standard ? props.clientId : undefined,
      clientSecret: standard ? props.clientSecret : undefined,
      adopt: props.adopt,
    });
    return { id, props: { ...inputs, type: found.type }, inputs };
  },

  async update(_id, olds, news) {
    const inputs = parsedInputs(oauthProviderInputs, news);
    // The integration's identity (state written before it was recorded) and `adopt` need no request.
    if (inputs.clientId === olds.clientId && inputs.clientSecret === olds.clientSecret) {
      return { outs: outputsOf(inputs, { type: olds.type }) };
    }
    const updated = await api().updateOAuthProvider(inputs.projectId, inputs.providerId, {
      client_id: inputs.clientId,
      client_secret: inputs.clientSecret,
    });
    afterWrite(inputs.projectId);
    return { outs: outputsOf(inputs, updated) };
  },

  async delete(id, props) {
    const [project, providerId] = splitId(KIND, id, 2, "<projectId>/<providerId>");
    try {
      await api().deleteOAuthProvider(project, providerId);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    afterWrite(props.projectId ?? project);
  },
};

/**
 * An OAuth sign-in provider. Without credentials it uses Neon's shared keys (`type: "shared"`,
 * fine for development); with `clientId` and `clientSecret` it uses your own app
 * (`type: "standard"`, recommended for production). Credential changes update in place;
 * a new `providerId` or dropping the credentials replaces it.
 *
 * @example
 * ```ts
 * const cfg = new pulumi.Config();
 * new OAuthProvider("github", { integration: auth, providerId: "github",
 *   clientId: cfg.require("githubClientId"), clientSecret: cfg.requireSecret("githubClientSecret") });
 * ```
 */
export class OAuthProvider extends pulumi.dynamic.Resource {
  /** The Neon project, from the integration. */
  declare readonly projectId: pulumi.Output<string>;
  /** The identity of the integration the provider was added to. */
  declare readonly integration: pulumi.Output<IntegrationIdentity>;
  /** `google`, `github` or `microsoft`. */
  declare readonly providerId: pulumi.Output<string>;
  /** Your OAuth app's client id; empty for Neon's shared keys (and after a lookup: Neon does not return it). */
  declare readonly clientId: pulumi.Output<string | undefined>;
  /** Secret. */
  declare readonly clientSecret: pulumi.Output<string | undefined>;
  /** Whether an existing provider was (or may be) taken over at creation. */
  declare readonly adopt: pulumi.Output<boolean>;
  /** `shared` (Neon's keys) or `standard` (your own). */
  declare readonly type: pulumi.Output<string>;

  constructor(name: string, args: OAuthProviderArgs, opts?: pulumi.CustomResourceOptions) {
    const clientSecret = args.clientSecret === undefined ? undefined : pulumi.secret(args.clientSecret);
    super(
      providerOf(KIND),
      name,
      { ...childInputs(args, false), clientSecret, type: undefined },
      { ...opts, additionalSecretOutputs: ["clientSecret", ...(opts?.additionalSecretOutputs ?? [])] },
      MODULE,
      KIND,
    );
  }

  /**
   * Looks up an existing OAuth provider by its id, `<projectId>/<providerId>`
   * (e.g. `p-123/github`), without managing it: the engine reads it on
   * every `up` and `refresh`, and `destroy` only forgets it.
   */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): OAuthProvider {
    return new OAuthProvider(name, lookupArgs<OAuthProviderArgs>(oauthProviderInputs), { ...opts, id });
  }
}
