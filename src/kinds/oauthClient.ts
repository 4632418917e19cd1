import { z } from "zod";
import { isNotFound } from "../client";
import { triggerText } from "../schemas";
import { createdOAuthClient, createOAuthClientRequest, OAUTH_CLIENT_TYPES, oauthClientType, type OAuthClient as WireClient } from "../schemas/branchAuth";
import { scopeKey, type Context } from "../provider/context";
import { createOwned } from "../provider/converge";
import { childId, placeOf, splitChildId, where, type Scope } from "../provider/generation";
import { inputRules, compact, halfMade, withWireSecrets, type Handler, type KindDeclaration, type NaturalKey, type Props } from "../provider/kit";
import { input, inputsOf, output } from "../provider/declaration";
import { sameValue } from "../provider/diff";
import { childPlace, childFields, deleteUnlessHidden, despiteIntegration, explainMissingIntegration, parentOf, restoredInPlace } from "../provider/parent";

import type { Placed } from "../provider/place";

const KIND = "OAuthClient";
const wire = createOAuthClientRequest.shape;

/** @internal Runtime input rules; kept out of the published types (zod is not a public type). */
export const oauthClientInputs = z
  .strictObject({
    ...childPlace,
    name: input(wire.name, {
      doc: "Display name, shown to users on the consent page; one client of a name per branch in a program.",
      outputDoc: "Display name, as Neon has it.",
      shown: "text 1–256, one client of a name per branch in a program",
    }),
    redirectUris: input(wire.redirect_uris, {
      doc: "Where the server may send users back: https, or http on a loopback host when the branch allows localhost.",
      outputDoc: "Redirect URIs, as Neon has them.",
      shown: "at least one URL: https, or http on a loopback host (the branch must allow localhost)",
      change: "in place (the list is replaced)",
    }),
    type: input(oauthClientType, {
      doc: "`confidential` (a server that keeps a client secret) or `public` (a browser, mobile or CLI app: no secret). Cannot change: a new value replaces the client (a new id, and a new secret).",
      outputDoc: "`confidential` or `public`.",
      shown: '`"confidential"` (has a secret) | `"public"` (a browser, mobile or CLI app)',
      replaces: true,
      change: "replaces (a new id and secret)",
    }),
    resources: input(wire.resources.default([]), {
      doc: "Protected resources the client may get tokens for; each must be on the OAuth server (its `resources` or `mcp.resource`). Default none.",
      outputDoc: "Protected resources the client is linked to.",
      shown: "URLs, each on the OAuth server (`oauthServer.resources` or `oauthServer.mcp.resource`)",
      change: "in place (the list is replaced)",
    }),
    skipConsent: input(z.boolean().default(false), {
      doc: "Users are not asked for consent for this client. Default false.",
      outputDoc: "Whether users skip the consent page for this client.",
    }),
    disabled: input(z.boolean().default(false), {
      doc: "The client may not be used (it stays registered). Default false.",
      outputDoc: "Whether the client is disabled.",
    }),
    rotationTrigger: input(triggerText.optional(), {
      doc: "Any string; changing it rotates a confidential client's secret in place (the old one stops working at once).",
      outputDoc: "The value whose change rotated the secret last.",
      shown: "any string; not on a `public` client",
      change: "in place: a new secret",
    }),
  })
  .superRefine((v, ctx) => {
    if (v.integration !== undefined && v.integration.branchId === undefined) {
      ctx.addIssue({ code: "custom", path: ["integration"], message: "must be a NeonAuth: the OAuth server is a branch's Neon Auth (today's branch-scoped API); an AuthIntegration has none" });
    }
    if (v.type === "public" && v.rotationTrigger !== undefined) {
      ctx.addIssue({ code: "custom", path: ["rotationTrigger"], message: "rotates a confidential client's secret; a public client has none" });
    }
  }, despiteIntegration);
type Inputs = Placed<z.infer<typeof oauthClientInputs>>;

const INPUTS = inputsOf(oauthClientInputs);

/** The program's names of the fields an update sends, with their wire names. */
const UPDATABLE = { name: "name", redirectUris: "redirect_uris", resources: "resources", skipConsent: "skip_consent", disabled: "disabled" } as const;

/**
 * A client has a server-made id, so the program names it by its name in its branch: two
 * declarations of one name are refused, and a create whose answer was lost finds its client by it.
 */
const OBJECT: NaturalKey = {
  fields: ["name"],
  what: "one OAuth client name",
  key: (i) => i.name && i.branchId && `${childId(i as Scope)}/${i.name}`,
  idAtNeon: async (ctx, i) => {
    const client = (await listed(ctx, i as Scope)).find((c) => c.name === i.name);
    return client && childId(i as Scope, client.client_id);
  },
};

/** The rotation trigger a half-made confidential client is recorded with: its secret was never seen, so any trigger the program gives differs. */
const SECRET_NEVER_SEEN = "(the secret of the create was never seen)";

/** @internal The clients of a branch's OAuth server, from the run's shared reads. */
export function listed(ctx: Context, s: Scope, use?: "beforeCreate"): Promise<WireClient[]> {
  return ctx.reads.get(scopeKey(s), "oauth_clients", () => ctx.client.branchAuth.listBranchOAuthClients(where(s)).then((r) => r.clients), use);
}

/** What refresh records of a client: every field the service returns; the secret and trigger as they were. */
function outputsOf(s: Scope, c: WireClient, kept: Props): Props {
  return compact({
    projectId: s.projectId,
    branchId: s.branchId,
    integration: kept.integration,
    name: c.name,
    redirectUris: c.redirect_uris,
    type: c.type,
    resources: c.resources,
    skipConsent: c.skip_consent,
    disabled: c.disabled,
    rotationTrigger: kept.rotationTrigger,
    clientId: c.client_id,
    clientSecret: kept.clientSecret,
    createdAt: c.created_at,
  });
}

/** The changed fields, as the update request names them. */
function changes(olds: Props, news: Inputs): Props {
  const body: Props = {};
  for (const [name, key] of Object.entries(UPDATABLE)) {
    if (!sameValue(olds[name], news[name as keyof Inputs])) body[key] = news[name as keyof Inputs];
  }
  return body;
}

/** @internal What either face's provider process runs for this kind (provider/runtime.ts guards it). */
export const oauthClientHandler: Handler<Inputs> = {
  // Delete first: Neon keys a client by its name in the branch, which a replacement keeps, so the
  // replacement's create would find its own predecessor and refuse it as another's.
  ...inputRules(KIND, oauthClientInputs, (olds, news) => childFields(olds, news, INPUTS), { deleteBeforeReplace: true }),

  async create(inputs, ctx) {
    const b = ctx.client.branchAuth;
    const object = `${KIND} "${inputs.name}" of ${placeOf(inputs)}`;
    const byName = async (fresh: boolean) => (await listed(ctx, inputs, fresh ? undefined : "beforeCreate")).find((c) => c.name === inputs.name);
    let made: Awaited<ReturnType<typeof b.createBranchOAuthClient>> | WireClient;
    try {
      const r = await createOwned({
        create: () =>
          b.createBranchOAuthClient(where(inputs), {
            name: inputs.name,
            type: inputs.type,
            redirect_uris: inputs.redirectUris,
            resources: inputs.resources,
            skip_consent: inputs.skipConsent,
          }),
        find: byName,
        object,
        how: {
          adopt: `bring it into the stack with \`pulumi import\` (id <projectId>/<branchId>/<clientId>; its secret cannot be read back, so set rotationTrigger for a new one), or give this client another name`,
        },
      });
      made = r.created ?? r.found!;
    } catch (err) {
      throw explainMissingIntegration(KIND, inputs.projectId, err);
    }
    const id = childId(inputs, made.client_id);
    let secret = "client_secret" in made ? made.client_secret : undefined;
    try {
      // A create whose answer was lost made the client, but nobody saw its secret: a new one.
      if (inputs.type === "confidential" && secret === undefined) secret = (await b.rotateBranchOAuthClientSecret({ ...where(inputs), client_id: made.client_id })).client_secret;
      // `disabled` is not a field of the create request.
      if (inputs.disabled) made = await b.updateBranchOAuthClient({ ...where(inputs), client_id: made.client_id }, { disabled: true });
    } catch (err) {
      // Recorded as it is: `disabled` as Neon has it, and a confidential client whose secret
      // nobody saw under a rotation trigger the program never gives, so the next `up` rotates.
      const unseen = inputs.type === "confidential" && secret === undefined;
      throw halfMade(
        `${object} was created (client id ${made.client_id}) but not finished; the next \`pulumi up\` finishes it${unseen ? " with a new secret" : ""}. (${(err as Error).message})`,
        id,
        outputsOf(inputs, made, { ...inputs, clientSecret: secret, ...(unseen ? { rotationTrigger: SECRET_NEVER_SEEN } : {}) }),
      );
    }
    return { id, outs: outputsOf(inputs, { ...made, disabled: inputs.disabled }, { ...inputs, clientSecret: secret }) };
  },

  async read(id, props, ctx) {
    const { key: clientId, ...scope } = splitChildId(KIND, id, "<clientId>");
    if (scope.branchId === undefined) throw new Error(`${KIND} id "${id}" is not of the form <projectId>/<branchId>/<clientId>`);
    const parent = await parentOf(ctx, KIND, { ...props, ...scope });
    if (!parent) return {};
    const clients = await listed(ctx, scope);
    const own = clients.find((c) => c.client_id === clientId);
    // Gone by its id: the client a reset or restore put back in its place, with its earlier id and
    // a secret this stack never saw, so the next `up` rotates it (as after a half-made create).
    const live = own ?? (await restoredInPlace(ctx, scope, async () => clients.find((c) => c.name === props.name), (c) => c.created_at));
    if (live === undefined) return {};
    const unseen = own === undefined && live.type === "confidential" ? { clientSecret: undefined, rotationTrigger: SECRET_NEVER_SEEN } : {};
    const outs = outputsOf(scope, live, { ...props, integration: parent.identity, ...unseen });
    const { clientId: _, clientSecret: __, createdAt: ___, ...inputs } = outs;
    return { id: childId(scope, live.client_id), props: outs, inputs };
  },

  async update(id, olds, inputs, ctx) {
    const { key: clientId, ...scope } = splitChildId(KIND, id, "<clientId>");
    const b = ctx.client.branchAuth;
    const body = changes(olds, inputs);
    let live: WireClient | undefined;
    let secret = olds.clientSecret as string | undefined;
    try {
      if (Object.keys(body).length > 0) live = await b.updateBranchOAuthClient({ ...where(scope), client_id: clientId }, body);
      if (inputs.rotationTrigger !== olds.rotationTrigger && inputs.type === "confidential") {
        secret = (await b.rotateBranchOAuthClientSecret({ ...where(scope), client_id: clientId })).client_secret;
      }
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // The state still holds a client deleted outside the stack: only a refresh lets `up` make it again.
      throw new Error(
        `${KIND} "${inputs.name}" (client id ${clientId}) is gone from ${placeOf(scope)}: it was deleted outside this stack. ` +
          `Run \`pulumi refresh\` (or \`pulumi up --refresh\`): the next \`up\` then registers it again, with a new client id and secret. (${(err as Error).message})`,
      );
    }
    // The program's trigger, also when it gives none: a recorded "never seen" goes once rotated.
    const outs = compact({ ...olds, ...inputs, rotationTrigger: inputs.rotationTrigger, clientSecret: secret, ...(live ? { createdAt: live.created_at } : {}) });
    return { outs };
  },

  async delete(id, _props, ctx) {
    const { key: clientId, ...scope } = splitChildId(KIND, id, "<clientId>");
    // Tokens the client was issued are not revoked by Neon: they stay valid until they expire.
    await deleteUnlessHidden(ctx, KIND, scope, () => ctx.client.branchAuth.deleteBranchOAuthClient({ ...where(scope), client_id: clientId }));
  },
};

/** @internal The kind, declared once (provider/declaration.ts). */
export const oauthClientKind: KindDeclaration = {
  kind: KIND,
  doc:
    "A client of a branch's OAuth server (`NeonAuth.oauthServer`, beta): an app or MCP client that\n" +
    "signs its users in with the branch's Neon Auth. A confidential client's `clientSecret` is\n" +
    "returned once, at create (or rotation), and kept as a secret output; Neon never shows it again.\n" +
    "Id (for `get` and `importFile`): `<projectId>/<branchId>/<clientId>`.\n" +
    "\n" +
    "@example\n" +
    "```ts\n" +
    'new OAuthClient("dashboard", {\n' +
    "  integration: auth,\n" +
    '  name: "Dashboard",\n' +
    '  type: "confidential",\n' +
    '  redirectUris: ["https://app.example.com/oauth/callback"],\n' +
    '  resources: ["https://api.example.com"],\n' +
    "});\n" +
    "```",
  keptByUpdate: ["createdAt"],
  parent: "NeonAuth",
  withProvider: false,
  inputs: INPUTS,
  outputs: withWireSecrets(createdOAuthClient, {
    clientId: output(z.string(), { doc: "The OAuth client id Neon made." }),
    clientSecret: output(z.string().optional(), { doc: "A confidential client's secret, from its create or last rotation; undefined for a public client (or an imported one until rotated)." }),
    createdAt: output(z.string(), { doc: "When Neon registered the client (ISO 8601, UTC)." }),
  }),
  types: { OAuthClientType: { values: OAUTH_CLIENT_TYPES, doc: "An OAuth client's type: `confidential` (has a secret) or `public`." } },
  id: "`<projectId>/<branchId>/<clientId>` (the client id is Neon's).",
  importable: true,
  schema: oauthClientInputs,
  object: OBJECT,
  handler: oauthClientHandler,
};

