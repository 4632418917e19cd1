import { z } from "zod";
import { isNotFound } from "../client";
import { canonicalOrigin, trustedDomainInput } from "../schemas";
import type { Context } from "../provider/context";
import { createOwned } from "../provider/converge";
import { inputRules, compact, type Handler, type KindDeclaration, type NaturalKey } from "../provider/kit";
import { adoptSwitch, input, inputsOf } from "../provider/declaration";
import { childId, generationOf, placeOf, splitChildId, type Scope } from "../provider/generation";
import { integrationInput, placed, type Placed } from "../provider/place";
import { childFields, childAuthProvider, deleteUnlessHidden, despiteIntegration, explainMissingIntegration, generationRules, parentOf } from "../provider/parent";

const KIND = "RedirectDomain";

/** `HTTPS://App.Example.com:443/` and `https://app.example.com` are one origin: compare them as one. */
function sameOrigin(listed: string, wanted: string): boolean {
  const r = canonicalOrigin(listed, { wildcard: true });
  return ("origin" in r ? r.origin : listed) === wanted;
}

/** @internal Runtime input rules; kept out of the published types (zod is not a public type). */
export const redirectDomainInputs = z
  .strictObject({
    integration: integrationInput({ authProvider: childAuthProvider }),
    domain: input(trustedDomainInput, {
      doc: "An origin users may be sent back to after sign-in: `https://app.example.com[:port]`, no path.",
      outputDoc: "The origin, in canonical form (lower case, default port dropped).",
      shown: "origin `http(s)://host[:port]`, no path, no trailing slash",
      replaces: true,
    }),
    // Optional, not false by default: state written before it existed shows no change.
    adopt: adoptSwitch("Take over this origin when it is already on the list (made outside this stack) instead of failing. Default false. The stack then removes it on destroy.", "Whether an existing origin was (or may be) taken over at creation."),
  })
  .superRefine((v, ctx) => {
    generationRules(v, ctx, []);
    // Neon documents wildcards for the trusted domains of a branch only.
    if (!generationOf(placed(v)).wildcardDomains && v.domain.includes("*")) {
      ctx.addIssue({ code: "custom", path: ["domain"], message: "may hold a wildcard only on a NeonAuth (a branch's trusted domains); list each origin of an AuthIntegration" });
    }
  }, despiteIntegration);

const INPUTS = inputsOf(redirectDomainInputs);

async function isListed(ctx: Context, s: Scope, origin: string, use?: "beforeCreate"): Promise<boolean> {
  const list = await generationOf(s).calls(ctx, s).domains.list(use);
  return list.some((d) => sameOrigin(d.domain, origin));
}

/** What names the object of this kind; also its id. */
const OBJECT: NaturalKey = { fields: ["domain"], what: "one origin", key: (i) => i.domain && childId(i as Scope, i.domain) };

/** @internal What either face's provider process runs for this kind (provider/runtime.ts guards it). */
export const redirectDomainHandler: Handler<Placed<z.output<typeof redirectDomainInputs>>> = {
  ...inputRules(KIND, redirectDomainInputs, (olds, news) => childFields(olds, news, INPUTS)),

  async create(inputs, ctx) {
    const listed = async (fresh: boolean) => (await isListed(ctx, inputs, inputs.domain, fresh ? undefined : "beforeCreate")) || undefined;
    try {
      // A domain is nothing but its name: one this stack may take over is exactly what was asked for.
      await createOwned({
        create: () => generationOf(inputs).calls(ctx, inputs).domains.add({ domain: inputs.domain, auth_provider: inputs.authProvider }),
        find: listed,
        adopt: inputs.adopt,
        object: `${KIND} ${inputs.domain} of ${placeOf(inputs)}`,
      });
    } catch (err) {
      throw explainMissingIntegration(KIND, inputs.projectId, err);
    }
    return { id: OBJECT.key(inputs)!, outs: compact({ ...inputs }) };
  },

  async read(id, props, ctx) {
    const { key: origin, ...where } = splitChildId(KIND, id, "<origin>");
    // The project answered just now, so a 404 of the list means the integration went meanwhile.
    const parent = await parentOf(ctx, KIND, { ...props, ...where });
    if (!parent) return {};
    try {
      if (!(await isListed(ctx, where, origin))) return {};
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    const provider = props.authProvider ?? parent.record.auth_provider ?? "stack";
    const inputs = compact({ ...where, integration: parent.identity, domain: origin, authProvider: provider, adopt: props.adopt });
    return { id, props: inputs, inputs };
  },

  async update(_id, olds, news) {
    // Only the integration's identity (state written before it was recorded) and `adopt` change in place.
    return { outs: { ...olds, integration: news.integration, adopt: news.adopt } };
  },

  async delete(id, props, ctx) {
    const { key: origin, ...where } = splitChildId(KIND, id, "<origin>");
    await deleteUnlessHidden(ctx, KIND, where, () => generationOf(where).calls(ctx, where).domains.remove(props.authProvider ?? "stack", origin));
  },
};

/** @internal The kind, declared once (provider/declaration.ts). */
export const redirectDomainKind: KindDeclaration = {
  kind: KIND,
  doc:
    'One origin on the redirect-URI whitelist (a "trusted domain" of a NeonAuth). Changing it\n' +
    "replaces the entry. Id (for `get` and `importFile`): `<projectId>/<origin>`, e.g.\n" +
    "`p-123/https://app.example.com`; on a NeonAuth `<projectId>/<branchId>/<origin>`.\n" +
    "\n" +
    "@example\n" +
    "```ts\n" +
    'new RedirectDomain("app", { integration: auth, domain: "https://app.example.com" });\n' +
    "```",
  parent: "either",
  inputs: INPUTS,
  id: "`<projectId>/<origin>`, e.g. `p-123/https://app.example.com`; on a `NeonAuth` `<projectId>/<branchId>/<origin>`.",
  importable: true,
  schema: redirectDomainInputs,
  object: OBJECT,
  handler: redirectDomainHandler,
};

