import { randomUUID } from "node:crypto";
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { authProvider, keySet, projectId, type KeySet, triggerText } from "../schemas";
import { createOwned } from "./converge";
import { inputRules, parsedInputs, compact, splitId, type Handler, type Props, secretOutputs } from "./kit";
import { type ChildOutputs, type AuthProviderOutput, childRegistration, explainMissingIntegration, forgetUnlessHidden, identityRule, integrationIdentity, parentOf, type ProjectIntegration } from "./parent";

const KIND = "AuthSdkKeys";

/** @internal Runtime input rules; kept out of the published types (zod is not a public type). */
export const authSdkKeysInputs = z.strictObject({
  projectId,
  integration: integrationIdentity,
  authProvider: authProvider.default("stack"),
  rotationTrigger: triggerText.optional(),
});
type Inputs = z.infer<typeof authSdkKeysInputs>;

export interface AuthSdkKeysArgs {
  /** The AuthIntegration the keys are for; a new set is generated when it is replaced. */
  integration: ProjectIntegration;
  /** Any string; changing it generates a new key set (rotation). */
  rotationTrigger?: pulumi.Input<string>;
}

const fields = (olds: Props) =>
  [
    { name: "projectId", replaces: true },
    identityRule(olds),
    { name: "authProvider", replaces: true },
    { name: "rotationTrigger", replaces: true },
  ] as const;

function outputsOf(inputs: Inputs, keys: KeySet): Props {
  return compact({
    ...inputs,
    authProviderProjectId: keys.auth_provider_project_id,
    pubClientKey: keys.pub_client_key,
    secretServerKey: keys.secret_server_key,
    jwksUrl: keys.jwks_url,
    envVars: appEnv(keys),
  });
}

/** @internal The environment variables a Stack Auth app needs, from a key set. */
export function appEnv(keys: Pick<KeySet, "auth_provider_project_id" | "pub_client_key" | "secret_server_key">) {
  return {
    NEXT_PUBLIC_STACK_PROJECT_ID: keys.auth_provider_project_id,
    NEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY: keys.pub_client_key,
    STACK_SECRET_SERVER_KEY: keys.secret_server_key,
  };
}

/** @internal What the dynamic-provider process runs for this kind (runtime.ts). */
export const sdkKeysHandler: Handler = {
  ...inputRules(KIND, authSdkKeysInputs, fields),

  async create(props, ctx) {
    const inputs = parsedInputs(authSdkKeysInputs, props);
    const request = { project_id: inputs.projectId, auth_provider: inputs.authProvider };
    // A key set whose answer was lost is unusable (nobody saw it); asking again is harmless.
    let keys: KeySet;
    try {
      keys = (await createOwned({ create: () => ctx.client.generateSdkKeys(request) })).created!;
    } catch (err) {
      throw explainMissingIntegration(KIND, inputs.projectId, err);
    }
    const id = `${inputs.projectId}/${inputs.authProvider}/${randomUUID()}`;
    return { id, outs: outputsOf(inputs, keys) };
  },

  async read(id, props, ctx) {
    const [project, provider] = splitId(KIND, id, 3, "<projectId>/<authProvider>/<uuid>");
    // Keys live as long as their integration; the API cannot list or revoke key sets.
    const parent = await parentOf(ctx, KIND, { ...props, projectId: project, authProvider: provider });
    return parent ? { id, props: { ...props, integration: parent.identity } } : {};
  },

  async update(_id, olds, news) {
    // Only the integration's identity can change in place (state written before it was recorded).
    return { outs: { ...olds, integration: news.integration } };
  },

  async delete(id, _props, ctx) {
    // The API has no call to revoke a key set: forgetting it is all that can be done.
    const [projectId] = splitId(KIND, id, 3, "<projectId>/<authProvider>/<uuid>");
    await forgetUnlessHidden(ctx, KIND, { projectId });
  },
};

/**
 * A freshly generated SDK key set for an existing integration. Changing `rotationTrigger`
 * generates a new set (the old one is not revoked: the API cannot do that).
 *
 * @example
 * ```ts
 * const keys = new AuthSdkKeys("keys", { integration: auth, rotationTrigger: "2026-11" });
 * ```
 */
export class AuthSdkKeys extends pulumi.dynamic.Resource {
  /** The value whose change generated this key set. */
  declare readonly rotationTrigger: pulumi.Output<string | undefined>;
  /** The auth project's id at the provider (Stack Auth). */
  declare readonly authProviderProjectId: pulumi.Output<string>;
  /** Secret. */
  declare readonly pubClientKey: pulumi.Output<string>;
  /** Secret. */
  declare readonly secretServerKey: pulumi.Output<string>;
  /** Address of the auth project's JSON Web Key Set. */
  declare readonly jwksUrl: pulumi.Output<string>;
  /** The environment variables a Stack Auth app needs (secret). */
  declare readonly envVars: pulumi.Output<Record<string, string>>;

  constructor(name: string, args: AuthSdkKeysArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      ...childRegistration(KIND, name, authSdkKeysInputs, args, opts, {
        computed: ["authProviderProjectId", "pubClientKey", "secretServerKey", "jwksUrl", "envVars"],
        outputs: [...secretOutputs(keySet), "envVars"],
      }),
    );
  }
}

// The outputs every child shares, declared once (parent.ts).
export interface AuthSdkKeys extends ChildOutputs, AuthProviderOutput {}
