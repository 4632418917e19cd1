/**
 * One JWKS URL of a project (`/projects/{project_id}/jwks`): the keys Neon trusts for tokens of an
 * identity provider other than Neon Auth (Clerk, Auth0, Cognito…), for the Data API and for
 * Postgres connections. Neon has no update of an entry, so every input but `adopt` replaces it.
 */
import { z } from "zod";
import { isNotFound } from "../client";
import { branchId as branchIdRule, projectId as projectIdRule } from "../schemas/common";
import { jwksProviderName, jwksUrl, jwtAudience, type Jwks } from "../schemas/jwks";
import type { Context } from "../provider/context";
import { createOwned } from "../provider/converge";
import { input, inputsOf, output } from "../provider/declaration";
import { compact, declaredFields, halfMade, inputRules, joinId, splitId, type Handler, type KindDeclaration, type NaturalKey, type Props } from "../provider/kit";
import { deleteUnlessHidden, projectNotVisible } from "../provider/parent";

const KIND = "ProjectJwks";

/** @internal Runtime input rules; kept out of the published types (zod is not a public type). */
export const projectJwksInputs = z.strictObject({
  projectId: input(projectIdRule, { doc: "Neon project id (`^[a-z0-9-]{1,60}$`).", outputDoc: "The Neon project.", replaces: true }),
  branchId: input(branchIdRule.optional(), {
    doc: "The one branch whose tokens these keys verify; left out, every branch of the project.",
    outputDoc: "The branch the entry is scoped to, if any.",
    absent: "every branch",
    replaces: true,
  }),
  jwksUrl: input(jwksUrl, {
    doc: "The identity provider's JSON Web Key Set, e.g. `https://<app>.clerk.accounts.dev/.well-known/jwks.json`.",
    outputDoc: "The JSON Web Key Set Neon fetches the keys from.",
    shown: "https URL",
    replaces: true,
  }),
  providerName: input(jwksProviderName, {
    doc: "The provider's name as Neon's console lists it (`Clerk`, `Auth0`, `AWS Cognito`…).",
    outputDoc: "The provider's name.",
    shown: "text 1–256",
    replaces: true,
  }),
  jwtAudience: input(jwtAudience.optional(), {
    doc: "The `aud` a token must carry; left out, Neon does not check the audience.",
    outputDoc: "The audience tokens must carry, if any.",
    shown: "text 1–256",
    absent: "not checked",
    replaces: true,
  }),
  adopt: input(z.boolean().optional(), {
    doc: "Take over an entry that already exists with these same fields (made outside this stack) instead of failing. Default false. The stack then removes it on destroy.",
    outputDoc: "Whether an existing entry was (or may be) taken over at creation.",
    absent: "`false`",
    change: "in place (matters at create only)",
  }),
});
type Inputs = z.infer<typeof projectJwksInputs>;

const INPUTS = inputsOf(projectJwksInputs);

/**
 * What names the object: an entry is everything Neon stores of it, so two resources declaring one
 * URL with one provider and audience in one scope would manage one entry. Neon makes its id.
 */
const OBJECT: NaturalKey = {
  fields: ["jwksUrl", "providerName", "jwtAudience"],
  what: "one JWKS entry",
  key: (i) => i.jwksUrl && joinId(i.projectId, i.branchId ?? "", i.jwtAudience ?? "", i.providerName, i.jwksUrl),
  idAtNeon: async (ctx, i) => {
    const entry = (await projectJwksList(ctx, i.projectId)).find((j) => sameEntry(j, i as Inputs));
    return entry && joinId(i.projectId, entry.id);
  },
};

/**
 * @internal
 * The project's JWKS entries, read once per run for all its resources (and the functions). The
 * project's own 404 is thrown, never taken for an empty list: it may be the key's, not the project's.
 */
export function projectJwksList(ctx: Context, projectId: string, use?: "beforeCreate"): Promise<Jwks[]> {
  return ctx.reads.get(projectId, "jwks", () => ctx.client.getProjectJWKS(projectId), use);
}

/** @internal An entry as the kind (and a lookup function) shows it: inputs, then Neon's id and time. */
export function projectJwksOutputs(record: Jwks, adopt?: boolean): Props {
  return compact({
    projectId: record.project_id,
    branchId: record.branch_id,
    jwksUrl: record.jwks_url,
    providerName: record.provider_name,
    jwtAudience: record.jwt_audience,
    adopt,
    jwksId: record.id,
    createdAt: record.created_at,
  });
}

function sameEntry(record: Jwks, i: Inputs): boolean {
  return record.jwks_url === i.jwksUrl && record.provider_name === i.providerName && record.branch_id === i.branchId && record.jwt_audience === i.jwtAudience;
}

async function create(inputs: Inputs, ctx: Context) {
  const body = compact({ jwks_url: inputs.jwksUrl, provider_name: inputs.providerName, branch_id: inputs.branchId, jwt_audience: inputs.jwtAudience });
  const made = await createOwned({
    create: () => ctx.client.addProjectJWKS(inputs.projectId, body),
    find: async (fresh) => (await projectJwksList(ctx, inputs.projectId, fresh ? undefined : "beforeCreate")).find((j) => sameEntry(j, inputs)),
    adopt: inputs.adopt,
    object: `${KIND} ${inputs.jwksUrl} (${inputs.providerName}) of project ${inputs.projectId}${inputs.branchId ? `, branch ${inputs.branchId}` : ""}`,
  });
  const record = (made.created?.jwks ?? made.found)!;
  const id = joinId(inputs.projectId, record.id);
  const outs = { ...projectJwksOutputs(record), adopt: inputs.adopt };
  try {
    // Neon applies the entry to the computes in operations; the entry is used once they finish.
    if (made.created) await ctx.client.waitForOperations(made.created.operations);
  } catch (err) {
    throw halfMade(`${KIND}: the JWKS entry ${record.id} was added, but the operation applying it failed; \`pulumi refresh\` and \`pulumi up\` take it from there. (${(err as Error).message})`, id, outs);
  }
  return { id, outs: compact(outs) };
}

/** @internal What either face's provider process runs for this kind (provider/runtime.ts guards it). */
export const projectJwksHandler: Handler<Inputs> = {
  ...inputRules(KIND, projectJwksInputs, (_olds, news) => declaredFields(INPUTS, news)),

  create,

  async read(id, props, ctx) {
    const [projectId, jwksId] = splitId(KIND, id, 2, "<projectId>/<jwksId>");
    const list = await projectJwksList(ctx, projectId).catch((err: unknown) => {
      throw isNotFound(err) ? projectNotVisible(KIND, projectId, err) : err;
    });
    const record = list.find((j) => j.id === jwksId);
    if (record === undefined) return {};
    const outs = projectJwksOutputs(record, props.adopt);
    const { jwksId: _id, createdAt: _at, ...inputs } = outs;
    return { id, props: outs, inputs };
  },

  async update(_id, olds, news) {
    // Only `adopt` changes in place; it matters at create alone.
    return { outs: compact({ ...olds, adopt: news.adopt }) };
  },

  async delete(id, _props, ctx) {
    const [projectId, jwksId] = splitId(KIND, id, 2, "<projectId>/<jwksId>");
    await deleteUnlessHidden(ctx, KIND, { projectId }, () => ctx.client.deleteProjectJWKS(projectId, jwksId));
  },
};

/** @internal The kind, declared once (provider/declaration.ts). */
export const projectJwksKind: KindDeclaration = {
  kind: KIND,
  doc:
    "One JWKS URL of a project: Neon then accepts tokens signed by that identity provider (Clerk,\n" +
    "Auth0, Cognito\u2026) on the Data API and on Postgres connections, for every branch or for the one\n" +
    "`branchId` names. Neon cannot change an entry: any input but `adopt` replaces it. Id (for `get`\n" +
    "and `importFile`): `<projectId>/<jwksId>`.\n" +
    "\n" +
    "@example\n" +
    "```ts\n" +
    'new ProjectJwks("clerk", { projectId: "p-123", providerName: "Clerk",\n' +
    '  jwksUrl: "https://example.clerk.accounts.dev/.well-known/jwks.json", jwtAudience: "api://app" });\n' +
    "```",
  keptByUpdate: ["createdAt"],
  livesOn: "a project, or one of its branches (project API, beside either generation)",
  inputs: INPUTS,
  outputs: {
    jwksId: output(z.string(), { doc: "The entry's id at Neon." }),
    createdAt: output(z.string(), { doc: "When Neon added the entry (ISO 8601, UTC)." }),
  },
  id: "`<projectId>/<jwksId>` (the id is Neon's).",
  importable: true,
  schema: projectJwksInputs,
  object: OBJECT,
  handler: projectJwksHandler,
};
