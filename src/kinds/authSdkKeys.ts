import { randomUUID } from "node:crypto";
import { z } from "zod";
import { authProvider, keySet, type KeySet, triggerText } from "../schemas";
import { createOwned } from "../provider/converge";
import { inputRules, compact, splitId, withWireSecrets, type Handler, type Kind, type KindDeclaration, type Props } from "../provider/kit";
import { input, inputsOf, output } from "../provider/declaration";
import { childFields, explainMissingIntegration, forgetUnlessHidden, parentOf } from "../provider/parent";
import { integrationInput, type Placed } from "../provider/place";

const KIND = "AuthSdkKeys";

/** @internal Runtime input rules; kept out of the published types (zod is not a public type). */
export const authSdkKeysInputs = z.strictObject({
  integration: integrationInput({ authProvider: authProvider.default("stack") }),
  rotationTrigger: input(triggerText.optional(), {
    doc: "Any string; changing it generates a new key set (rotation).",
    outputDoc: "The value whose change generated this key set.",
    replaces: true,
    change: "replaces: any new value generates a new key set (rotation)",
  }),
});
type Inputs = Placed<z.infer<typeof authSdkKeysInputs>>;

const INPUTS = inputsOf(authSdkKeysInputs);

/** @internal The outputs of a key set, on an AuthSdkKeys and on the AuthIntegration that made the first. */
export const KEY_SET_OUTPUTS = withWireSecrets(keySet, {
  authProviderProjectId: output(z.string(), { doc: "The auth project's id at the provider (Stack Auth)." }),
  pubClientKey: output(z.string(), { doc: "Publishable client key for the frontend SDK." }),
  secretServerKey: output(z.string(), { doc: "Secret server key for the backend SDK." }),
  jwksUrl: output(z.string(), { doc: "Address of the auth project's JSON Web Key Set, for verifying its tokens." }),
  envVars: output(z.record(z.string(), z.string()), {
    doc: "The environment variables a Stack Auth app needs: `NEXT_PUBLIC_STACK_PROJECT_ID`, `NEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY`, `STACK_SECRET_SERVER_KEY`.",
    secret: true,
  }),
});

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

/**
 * @internal
 * A one-time request of a project-level child (a key set, a transfer URL). One whose answer was
 * lost is unusable, as nobody saw it, so asking again is harmless.
 */
export async function askOnce<T>(kind: Kind, inputs: { projectId: string; authProvider: "stack" }, ask: (request: { project_id: string; auth_provider: "stack" }) => Promise<T>): Promise<T> {
  try {
    return (await createOwned({ create: () => ask({ project_id: inputs.projectId, auth_provider: inputs.authProvider }) })).created!;
  } catch (err) {
    throw explainMissingIntegration(kind, inputs.projectId, err);
  }
}

/** @internal The id of a one-time request: it names its integration, and is no lookup key. */
export function oneTimeId(inputs: { projectId: string; authProvider: string }): string {
  return `${inputs.projectId}/${inputs.authProvider}/${randomUUID()}`;
}

/** @internal What either face's provider process runs for this kind (provider/runtime.ts guards it). */
export const sdkKeysHandler: Handler<Inputs> = {
  ...inputRules(KIND, authSdkKeysInputs, (olds, news) => childFields(olds, news, INPUTS)),

  async create(inputs, ctx) {
    const keys = await askOnce(KIND, inputs, (request) => ctx.client.generateSdkKeys(request));
    return { id: oneTimeId(inputs), outs: outputsOf(inputs, keys) };
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

/** @internal The kind, declared once (provider/declaration.ts). */
export const authSdkKeysKind: KindDeclaration = {
  kind: KIND,
  doc:
    "A freshly generated SDK key set for an existing integration. Changing `rotationTrigger`\n" +
    "generates a new set (the old one is not revoked: the API cannot do that).\n" +
    "\n" +
    "@example\n" +
    "```ts\n" +
    'const keys = new AuthSdkKeys("keys", { integration: auth, rotationTrigger: "2026-11" });\n' +
    "```",
  get: false,
  keptByUpdate: ["authProviderProjectId"],
  parent: "AuthIntegration",
  inputs: INPUTS,
  outputs: KEY_SET_OUTPUTS,
  id: "`<projectId>/<authProvider>/<random uuid>` (made by the provider; not a lookup key).",
  importable: "the API cannot show a key set after it is generated; declare a new AuthSdkKeys instead",
  schema: authSdkKeysInputs,
  handler: sdkKeysHandler,
};

