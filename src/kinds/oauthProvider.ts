import { z } from "zod";
import { isNotFound, NeonApiError } from "../client";
import { OAUTH_PROVIDER_IDS, oauthClientId, oauthClientSecret, oneOf, type OAuthProvider as ApiOAuthProvider } from "../schemas";
import { BRANCH_OAUTH_PROVIDER_IDS, BRANCH_SHARED_OAUTH_PROVIDER_IDS } from "../schemas/branchAuth";
import { token } from "../schemas/fields";
import type { Context } from "../provider/context";
import { createOwned } from "../provider/converge";
import { inputRules, compact, type Handler, type KindDeclaration, type NaturalKey, type Props } from "../provider/kit";
import { CREATE_TIME_SWITCH, input, inputsOf, output } from "../provider/declaration";
import { childId, generationOf, placeOf, splitChildId, type Scope } from "../provider/generation";
import { placed, type Placed } from "../provider/place";
import { childPlace, childFields, deleteUnlessHidden, despiteIntegration, explainMissingIntegration, generationRules, parentOf } from "../provider/parent";
import { placeholder } from "../provider/placeholders";
import { callbackUrl } from "../provider/authUrls";

const KIND = "OAuthProvider";
const BRANCH_ONLY_IDS = BRANCH_OAUTH_PROVIDER_IDS.filter((id) => !(OAUTH_PROVIDER_IDS as readonly string[]).includes(id));

/** @internal Runtime input rules; kept out of the published types (zod is not a public type). */
export const oauthProviderInputs = z
  .strictObject({
    ...childPlace,
    providerId: input(z.enum(BRANCH_OAUTH_PROVIDER_IDS, { message: `${oneOf(OAUTH_PROVIDER_IDS)} (or ${BRANCH_ONLY_IDS.map((i) => `"${i}"`).join(", ")} on a NeonAuth)` }), {
      values: { AuthIntegration: OAUTH_PROVIDER_IDS, NeonAuth: BRANCH_OAUTH_PROVIDER_IDS },
      doc: {
        AuthIntegration: `${OAUTH_PROVIDER_IDS.map((i) => `\`${i}\``).join(", ")}. Changing it replaces the provider.`,
        NeonAuth: `${BRANCH_OAUTH_PROVIDER_IDS.map((i) => `\`${i}\``).join(", ")}. Changing it replaces the provider. Neon shares keys for ${BRANCH_SHARED_OAUTH_PROVIDER_IDS.join(", ")} only: the others need \`clientId\` and \`clientSecret\`.`,
      },
      outputDoc: "The provider: `vercel` on a NeonAuth only.",
      shown: `${OAUTH_PROVIDER_IDS.map((i) => `\`"${i}"\``).join(" | ")}; also ${BRANCH_ONLY_IDS.map((i) => `\`"${i}"\``).join(", ")} on a \`NeonAuth\``,
      replaces: true,
    }),
    clientId: input(oauthClientId.optional(), {
      doc: "Your OAuth app's client id; leave both credentials out to use Neon's shared keys.",
      outputDoc: "Your OAuth app's client id; empty for Neon's shared keys (and after a lookup: Neon does not return it).",
      shown: "string",
      requiredWhen: "with `clientSecret`",
      replacesWhenRemoved: true,
      change: "in place; leaving both credentials out (Neon's shared keys) replaces",
    }),
    clientSecret: input(oauthClientSecret.optional(), {
      doc: "Your OAuth app's client secret (kept secret in state, never read back: a new one is an update).",
      shown: "string",
      requiredWhen: "with `clientId`",
      replacesWhenRemoved: true,
      change: "in place (a rotation is a `PATCH`)",
    }),
    microsoftTenantId: input(token(256).optional(), {
      only: "NeonAuth",
      doc: "The Entra ID tenant for `microsoft` (default: any tenant). Write-only: Neon never returns it, so it is compared with what the program last set, never with the service.",
      outputDoc: "The Microsoft tenant as last set (NeonAuth; Neon never returns it).",
      shown: 'token 1–256; with `providerId: "microsoft"`',
      absent: "any tenant",
      // Dropping the tenant cannot be sent in place (PATCH keeps what it is not given).
      replacesWhenRemoved: true,
      change: "in place; removing it replaces",
    }),
    adopt: input(z.boolean().default(false), {
      ...CREATE_TIME_SWITCH,
      doc: "Take over a provider of this id that already exists instead of failing. Default false.",
      outputDoc: "Whether an existing provider was (or may be) taken over at creation.",
    }),
  })
  .superRefine((v, ctx) => {
    generationRules(v, ctx, ["microsoftTenantId"]);
    const generation = generationOf(placed(v));
    const offered = generation.oauthProviderIds.includes(v.providerId);
    if (!offered) {
      ctx.addIssue({ code: "custom", path: ["providerId"], message: `is "${v.providerId}", which only a NeonAuth integration (the branch-scoped API) offers` });
    }
    if (v.microsoftTenantId !== undefined && v.providerId !== "microsoft") {
      ctx.addIssue({ code: "custom", path: ["microsoftTenantId"], message: 'is accepted only for providerId "microsoft"' });
    }
    if (offered && v.clientId === undefined && v.clientSecret === undefined && !generation.sharedOAuthProviderIds.includes(v.providerId)) {
      ctx.addIssue({
        code: "custom",
        path: ["clientId"],
        message: `is required for providerId "${v.providerId}": Neon has shared credentials for ${generation.sharedOAuthProviderIds.join(", ")} only; set clientId and clientSecret of your own OAuth app`,
      });
    }
    if ((v.clientId === undefined) !== (v.clientSecret === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [v.clientId === undefined ? "clientId" : "clientSecret"],
        message: "must be set together with the other credential (both for your own OAuth app, neither for Neon's shared keys)",
      });
    }
  }, despiteIntegration);
type Inputs = Placed<z.infer<typeof oauthProviderInputs>>;

const INPUTS = inputsOf(oauthProviderInputs);

const calls = (ctx: Context, s: Scope) => generationOf(s).calls(ctx, s).oauthProviders;

/** What PATCH and POST carry of the credentials; the tenant only where it is set. */
function credentials(inputs: Inputs): Props {
  return compact({ client_id: inputs.clientId, client_secret: inputs.clientSecret, microsoft_tenant_id: inputs.microsoftTenantId });
}

/** Neon shares no keys for this provider: say what to declare instead of the bare 400. */
function explainUnshareable(inputs: Inputs, err: unknown): unknown {
  if (!(err instanceof NeonApiError) || err.status !== 400 || !/INVALID_SHARED_OAUTH_PROVIDER/.test(`${err.code ?? ""} ${err.message}`)) return err;
  return new Error(
    `${KIND} ${inputs.providerId}: Neon has no shared keys for this provider (INVALID_SHARED_OAUTH_PROVIDER); ` +
      `set clientId and clientSecret of your own OAuth app. (${err.message})`,
  );
}

function outputsOf(inputs: Inputs, provider: Pick<ApiOAuthProvider, "type">, baseUrl?: string): Props {
  return compact({ ...inputs, type: provider.type, callbackUrl: callbackUrl(baseUrl, inputs.providerId) });
}

async function findProvider(ctx: Context, s: Scope, id: string) {
  return (await calls(ctx, s).list()).find((p) => p.id === id);
}

/**
 * Sets the wanted credentials on a provider that exists (adoption, lost answer, Neon's default).
 * The API cannot drop credentials in place, so one taken over with credentials that the program
 * declares on shared keys is removed and added back: it is this stack's now, and the program says
 * shared (a preview branch that inherited production's own Google app, say).
 */
async function converge(ctx: Context, inputs: Inputs, existing: { type: string }): Promise<{ type: string }> {
  if (inputs.clientId === undefined) {
    if (existing.type === "shared") return existing;
    await calls(ctx, inputs).remove(inputs.providerId);
    return calls(ctx, inputs).add({ id: inputs.providerId });
  }
  return calls(ctx, inputs).update(inputs.providerId, credentials(inputs));
}

/** What names the object of this kind; also its id. */
const OBJECT: NaturalKey = { fields: ["providerId"], what: "one OAuth provider", key: (i) => i.providerId && childId(i as Scope, i.providerId) };

/** @internal What either face's provider process runs for this kind (provider/runtime.ts guards it). */
export const oauthProviderHandler: Handler<Inputs> = {
  ...inputRules(KIND, oauthProviderInputs, (olds, news) => childFields(olds, news, INPUTS), { deleteBeforeReplace: true }),

  async create(inputs, ctx) {
    const id = OBJECT.key(inputs)!;
    try {
      // Read before anything is written: a read failing after the write would lose the provider made.
      const baseUrl = await generationOf(inputs).baseUrl(ctx, inputs);
      // Found after a lost answer (ours), adopted on purpose, or Neon's own default: given the declared credentials.
      const made = await createOwned({
        create: () => calls(ctx, inputs).add({ id: inputs.providerId, ...credentials(inputs) }),
        find: () => findProvider(ctx, inputs, inputs.providerId),
        adopt: inputs.adopt,
        nobodys: generationOf(inputs).neonDefault,
        object: `${KIND} ${inputs.providerId} of ${placeOf(inputs)}`,
      });
      const live = made.created ?? (await converge(ctx, inputs, made.found));
      return { id, outs: outputsOf(inputs, live, baseUrl) };
    } catch (err) {
      throw explainUnshareable(inputs, explainMissingIntegration(KIND, inputs.projectId, err));
    }
  },

  async read(id, props, ctx) {
    const { key: providerId, ...where } = splitChildId(KIND, id, "<providerId>");
    // The project answered just now, so a 404 of the list means the integration went meanwhile.
    const parent = await parentOf(ctx, KIND, { ...props, ...where });
    if (!parent) return {};
    let found: { id: string; type: string; client_id?: string | undefined } | undefined;
    try {
      found = await findProvider(ctx, where, providerId);
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    if (!found) return {};
    // The project-level list shows the type only, the branch's the client id too: what Neon
    // returns is read back (a client id changed elsewhere is drift), the rest stays as last set.
    // A provider switched to shared keys elsewhere loses them here, so the next `up` sets them again.
    const standard = found.type === "standard";
    // Nothing recorded (an import by id): the secret is a placeholder for the program's configuration,
    // beside the client id Neon returns (the branch's list); where Neon returns none, neither is recorded.
    const imported = props.providerId === undefined;
    const secret = imported ? (found.client_id === undefined ? undefined : placeholder(`${providerId}ClientSecret`)) : props.clientSecret;
    const inputs = compact({
      ...where,
      integration: parent.identity,
      providerId,
      // Only beside a secret: the two go together (a client id alone would fail the check).
      clientId: standard ? (secret !== undefined ? (found.client_id ?? props.clientId) : props.clientId) : undefined,
      clientSecret: standard ? secret : undefined,
      // Never returned by Neon: kept as the program last set it.
      microsoftTenantId: standard ? props.microsoftTenantId : undefined,
      // Its rule's default when nothing was recorded (an import by id), as `check` gives it.
      adopt: props.adopt ?? false,
    });
    const url = callbackUrl((parent.record as { base_url?: string }).base_url, providerId);
    return { id, props: compact({ ...inputs, type: found.type, callbackUrl: url }), inputs };
  },

  async update(_id, olds, inputs, ctx) {
    // The integration's identity (state written before it was recorded) and `adopt` need no request.
    if (inputs.clientId === olds.clientId && inputs.clientSecret === olds.clientSecret && inputs.microsoftTenantId === olds.microsoftTenantId) {
      return { outs: { ...outputsOf(inputs, { type: olds.type }), ...compact({ callbackUrl: olds.callbackUrl }) } };
    }
    const updated = await calls(ctx, inputs).update(inputs.providerId, credentials(inputs));
    return { outs: { ...outputsOf(inputs, updated), ...compact({ callbackUrl: olds.callbackUrl }) } };
  },

  async delete(id, _props, ctx) {
    const { key: providerId, ...where } = splitChildId(KIND, id, "<providerId>");
    await deleteUnlessHidden(ctx, KIND, where, () => calls(ctx, where).remove(providerId));
  },
};

/** @internal The kind, declared once (provider/declaration.ts). */
export const oauthProviderKind: KindDeclaration = {
  kind: KIND,
  doc:
    "An OAuth sign-in provider. Without credentials it uses Neon's shared keys (`type: \"shared\"`,\n" +
    "fine for development); with `clientId` and `clientSecret` it uses your own app\n" +
    '(`type: "standard"`, recommended for production). Credential changes update in place;\n' +
    "a new `providerId` or dropping the credentials replaces it.\n" +
    "\n" +
    "@example\n" +
    "```ts\n" +
    "const cfg = new pulumi.Config();\n" +
    'new OAuthProvider("github", { integration: auth, providerId: "github",\n' +
    '  clientId: cfg.require("githubClientId"), clientSecret: cfg.requireSecret("githubClientSecret") });\n' +
    "```",
  parent: "either",
  withProvider: false,
  inputs: INPUTS,
  outputs: {
    type: output(z.enum(["shared", "standard"]), { doc: "`shared` (Neon's keys) or `standard` (your own)." }),
    callbackUrl: output(z.string().optional(), {
      doc: "On a NeonAuth: where the provider sends the user back, `{baseUrl}/callback/{providerId}`: the redirect URI your OAuth app lists. Unset on an AuthIntegration (Neon documents none for it).",
    }),
  },
  types: {
    OAuthProviderId: { values: BRANCH_OAUTH_PROVIDER_IDS, doc: "The sign-in providers Neon offers: `vercel` only on a NeonAuth (the branch-scoped API)." },
    OAuthProviderType: { values: ["shared", "standard"], doc: "`shared`: Neon's own OAuth app (development only); `standard`: your client id and secret." },
  },
  id: "`<projectId>/<providerId>`, e.g. `p-123/github`; on a `NeonAuth` `<projectId>/<branchId>/<providerId>`.",
  importable: true,
  schema: oauthProviderInputs,
  object: OBJECT,
  handler: oauthProviderHandler,
};

