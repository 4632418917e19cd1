/**
 * The generated parts of the hand-written pages in docs/: each kind's reference tables on its own
 * page (docs/<Kind>.md), the NeonAuth settings on NeonAuth's, the list of kind pages on the
 * reference page, the policy pack's rules on its page. A kind declared with no page yet gets one
 * (its title and its generated part; the prose is the author's), so a new declaration is all
 * `npm run gen` needs. Pure: the pages' current text comes in through `read`.
 */
import type { KindDeclaration } from "../../src/provider/declaration.ts";
import { kindMarkers, renderKindTable } from "./kinds.mts";
import { POLICY_MARKERS, renderRuleTable } from "./policy.mts";
import { withGenerated } from "./readme.mts";
import { README_MARKERS, renderReadmeRows } from "./settings.mts";

export const DOCS_DIR = "docs";
export const kindPage = (kind: string): string => `${DOCS_DIR}/${kind}.md`;
export const REFERENCE_PAGE = `${DOCS_DIR}/reference.md`;
export const POLICY_PAGE = `${DOCS_DIR}/policy.md`;
export const SETTINGS_PAGE = kindPage("NeonAuth");
export const KIND_LIST_MARKERS = ["<!-- gen:kind-list -->", "<!-- /gen:kind-list -->"] as const;

export interface DocsInputs {
  readonly decls: readonly KindDeclaration[];
  /** The secret inputs of a kind (from its runtime schema). */
  readonly secrets: (d: KindDeclaration) => readonly string[];
  /** Markers and text of the parts that live on one page each (the settings, the rules). */
  readonly parts: readonly { readonly page: string; readonly markers: readonly [string, string]; readonly text: string }[];
}

/** What the pages are generated from: the kinds, the table of settings, the policy pack's rules. */
export function docsInputs(
  decls: readonly KindDeclaration[],
  secrets: DocsInputs["secrets"],
  settings: Parameters<typeof renderReadmeRows>[0],
  rules: Parameters<typeof renderRuleTable>,
): DocsInputs {
  return {
    decls,
    secrets,
    parts: [
      { page: SETTINGS_PAGE, markers: README_MARKERS, text: renderReadmeRows(settings) },
      { page: POLICY_PAGE, markers: POLICY_MARKERS, text: renderRuleTable(...rules) },
    ],
  };
}

const stub = (kind: string): string => [`# ${kind}`, "", ...kindMarkers(kind), ""].join("\n");

/** Every page of docs/ that has a generated part, as `npm run gen` writes it. */
export function renderDocsPages(read: (file: string) => string | undefined, input: DocsInputs): Record<string, string> {
  const pages: Record<string, string> = {};
  const text = (file: string): string => {
    const current = pages[file] ?? read(file);
    if (current === undefined) throw new Error(`${file} is missing`);
    return current;
  };
  for (const d of input.decls) {
    const file = kindPage(d.kind);
    const plugin = `- **Other languages**: \`neon-auth:index:${d.kind}\` on the provider plugin; each input and output as each SDK spells it: [plugin/${d.kind}.md](plugin/${d.kind}.md).`;
    pages[file] = withGenerated(read(file) ?? stub(d.kind), kindMarkers(d.kind), `${renderKindTable(d, input.secrets(d))}\n${plugin}`);
  }
  const list = input.decls.map((d) => `[${d.kind}](${d.kind}.md)`).join(", ");
  pages[REFERENCE_PAGE] = withGenerated(text(REFERENCE_PAGE), KIND_LIST_MARKERS, `${list}.`);
  for (const p of input.parts) pages[p.page] = withGenerated(text(p.page), p.markers, p.text);
  return pages;
}
