import { z } from "zod";
import { authProvider, transferOwnershipResponse, type Integration } from "../schemas";
import { askOnce, oneTimeId } from "./authSdkKeys";
import { inputRules, compact, splitId, withWireSecrets, type Handler, type KindDeclaration, type Props } from "../provider/kit";
import { inputsOf, output } from "../provider/declaration";
import { childFields, forgetUnlessHidden, parentOf, projectIntegration } from "../provider/parent";
import { integrationInput, type Placed } from "../provider/place";

const KIND = "AuthOwnershipTransfer";

/** @internal Runtime input rules; kept out of the published types (zod is not a public type). */
export const authOwnershipTransferInputs = z.strictObject({
  integration: integrationInput({ authProvider: authProvider.default("stack") }),
});

type Inputs = Placed<z.infer<typeof authOwnershipTransferInputs>>;

const INPUTS = inputsOf(authOwnershipTransferInputs);

function ownerOf(inputs: Props, record: Integration | undefined): Props {
  return compact({ ...inputs, ownedBy: record?.owned_by, transferStatus: record?.transfer_status });
}

/** @internal What either face's provider process runs for this kind (provider/runtime.ts guards it). */
export const ownershipTransferHandler: Handler<Inputs> = {
  ...inputRules(KIND, authOwnershipTransferInputs, (olds, news) => childFields(olds, news, INPUTS)),

  async create(inputs, ctx) {
    const { url } = await askOnce(KIND, inputs, (request) => ctx.client.transferOwnership(request));
    const record = await projectIntegration(ctx, inputs.projectId, inputs.authProvider);
    return { id: oneTimeId(inputs), outs: { ...ownerOf(inputs, record), url } };
  },

  async read(id, props, ctx) {
    const [project, provider] = splitId(KIND, id, 3, "<projectId>/<authProvider>/<uuid>");
    const parent = await parentOf(ctx, KIND, { ...props, projectId: project, authProvider: provider });
    if (!parent) return {};
    const inputs = { ...props, projectId: project, authProvider: provider, integration: parent.identity };
    return { id, props: { ...props, ...ownerOf(inputs, parent.record) } };
  },

  async update(_id, olds, news) {
    // Only the integration's identity can change in place (state written before it was recorded).
    return { outs: { ...olds, integration: news.integration } };
  },

  async delete(id, _props, ctx) {
    // A requested transfer cannot be withdrawn through the API; the URL simply goes unused.
    const [projectId] = splitId(KIND, id, 3, "<projectId>/<authProvider>/<uuid>");
    await forgetUnlessHidden(ctx, KIND, { projectId });
  },
};

/** @internal Who owns the auth project, as the integration reports it; on the integration and on each transfer. */
export const OWNER_OUTPUTS = {
  ownedBy: output(z.string(), { doc: "`neon` until an ownership transfer is confirmed in a browser, then `user` (seen on refresh)." }),
  transferStatus: output(z.string().optional(), { doc: "`initiated` once a transfer was requested, then `finished` once confirmed (seen on refresh)." }),
};

/** @internal The kind, declared once (provider/declaration.ts). */
export const authOwnershipTransferKind: KindDeclaration = {
  kind: KIND,
  doc:
    "Step one of moving the managed auth project to your own Stack Auth account: requests a\n" +
    "transfer URL (secret: it carries a one-time code). Step two happens outside Pulumi: open the\n" +
    'URL in a browser and confirm the receiving account. Refresh then shows `ownedBy: "user"` on\n' +
    "this resource and on the AuthIntegration.\n" +
    "\n" +
    "@example\n" +
    "```ts\n" +
    'const transfer = new AuthOwnershipTransfer("transfer", { integration: auth });\n' +
    "export const transferUrl = transfer.url; // secret: `pulumi stack output transferUrl --show-secrets`\n" +
    "```",
  get: false,
  parent: "AuthIntegration",
  inputs: INPUTS,
  outputs: withWireSecrets(transferOwnershipResponse, { url: output(z.string(), { doc: "Confirmation URL with a one-time `code`." }), ...OWNER_OUTPUTS }),
  id: "`<projectId>/<authProvider>/<random uuid>`.",
  importable: "a transfer is a one-time request, not an object to import",
  schema: authOwnershipTransferInputs,
  handler: ownershipTransferHandler,
};

