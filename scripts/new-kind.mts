/**
 * `node scripts/new-kind.mts <Kind>`: the mechanical part of adding a resource kind
 * (DEVELOPMENT.md, "Adding a resource kind"). It writes a child kind of a NeonAuth that builds,
 * generates and passes the unit tests as it stands, with a handler that refuses every call until
 * it is written, and puts it in the table of kinds (kinds/index.ts): the two files a person
 * writes. `npm run gen` then writes every other list that names the kinds (their names, provider
 * modules, classes, published types) and its page in docs/. test/unit/drills.test.ts runs it,
 * as DEVELOPMENT.md says, in a copy, and counts the files each step touches.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { editor } from "./edit-source.mts";

const kind = process.argv[2] ?? "";
if (!/^[A-Z][A-Za-z0-9]{2,40}$/.test(kind)) {
  console.error("usage: node scripts/new-kind.mts <Kind>   (PascalCase, e.g. AuthWebhook)");
  process.exit(2);
}
const repo = path.resolve(import.meta.dirname, "..");
const at = (p: string) => path.join(repo, p);
const camel = kind.charAt(0).toLowerCase() + kind.slice(1);
const kindFile = `src/kinds/${camel}.ts`;
if (fs.existsSync(at(kindFile))) {
  console.error(`${kindFile} exists already`);
  process.exit(1);
}

const edit = editor(repo, "scripts/new-kind.mts");

fs.writeFileSync(
  at(kindFile),
  `import { z } from "zod";
import { text } from "../schemas/fields";
import { input, inputsOf } from "../provider/declaration";
import { inputRules, type Handler, type KindDeclaration } from "../provider/kit";
import { childFields, childPlace } from "../provider/parent";

const KIND = "${kind}";

/** @internal Runtime input rules, each published input described on its rule; kept out of the published types (zod is not a public type). */
export const ${camel}Inputs = z.strictObject({ ...childPlace, name: input(text(100), { doc: "Its name at Neon.", replaces: true }) });

const INPUTS = inputsOf(${camel}Inputs);

const notYet = (call: string) => Promise.reject(new Error(\`\${KIND}: \${call} is not written yet (src/kinds/${camel}.ts)\`));

/** @internal What either face's provider process runs for this kind. */
export const ${camel}Handler: Handler = {
  ...inputRules(KIND, ${camel}Inputs, (olds, news) => childFields(olds, news, INPUTS)),
  create: () => notYet("create"),
  read: () => notYet("read"),
  update: () => notYet("update"),
  delete: () => notYet("delete"),
};

/** @internal The kind, declared once (provider/declaration.ts). */
export const ${camel}Kind: KindDeclaration = {
  kind: KIND,
  doc: "A ${kind} of a NeonAuth: what it is, its id, an example (its class and its page in docs/ show this).",
  parent: "NeonAuth",
  inputs: INPUTS,
  id: "\`<projectId>/<branchId>/<name>\`.",
  importable: "not written yet.",
  schema: ${camel}Inputs,
  handler: ${camel}Handler,
};
`,
);

edit("src/kinds/index.ts", /\nexport const DECLARATIONS[^{]*\{\n/, (s) => s + `  ${kind}: ${camel}Kind,\n`);
edit("src/kinds/index.ts", /\nimport [^\n]*\n(?=\nexport const DECLARATIONS)/, (s) => s + `import { ${camel}Kind } from "./${camel}";\n`);
console.log(`wrote ${kindFile} and put ${kind} in src/kinds/index.ts. Now: npm run gen (its names, provider module, class, types and docs/${kind}.md)`);
