/**
 * `node scripts/new-kind.mts <Kind>`: the mechanical part of adding a resource kind
 * (DEVELOPMENT.md, "Adding a resource kind"). It writes a child kind of a NeonAuth that builds,
 * generates and passes the unit tests as it stands, with a handler that refuses every call until
 * it is written, and puts the kind in every list that names the kinds: the names
 * (provider/kindNames.ts), the table (kinds/index.ts), its provider module and the registry
 * (resources/providers/), its class (resources/classes.ts) and export, and its example's source
 * (docs/examples/); `npm run gen` then writes its page in docs/. test/unit/new-kind.test.ts runs it, as DEVELOPMENT.md says, in a copy.
 */
import * as fs from "node:fs";
import * as path from "node:path";

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

/** Replaces `anchor` (which must be there once) in a file by what `edit` makes of it. */
function edit(file: string, anchor: RegExp, to: (found: string) => string): void {
  const text = fs.readFileSync(at(file), "utf8");
  const m = text.match(anchor);
  if (!m || m.index === undefined) throw new Error(`${file}: ${anchor} not found; has the file changed shape? Update scripts/new-kind.mts with it.`);
  fs.writeFileSync(at(file), text.slice(0, m.index) + to(m[0]) + text.slice(m.index + m[0].length));
}

fs.writeFileSync(
  at(kindFile),
  `import { z } from "zod";
import { text } from "../schemas/fields";
import type { InputDeclaration } from "../provider/declaration";
import { inputRules, type Handler, type KindDeclaration } from "../provider/kit";
import { childFields, childPlace } from "../provider/parent";

const KIND = "${kind}";

/** @internal Runtime input rules; kept out of the published types (zod is not a public type). */
export const ${camel}Inputs = z.strictObject({ ...childPlace, name: text(100) });

const INPUTS = {
  name: { type: "string", doc: "Its name at Neon.", required: true, replaces: true },
} as const satisfies Record<string, InputDeclaration>;

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
  parent: "NeonAuth",
  inputs: INPUTS,
  id: "\`<projectId>/<branchId>/<name>\`.",
  importable: "not written yet.",
  schema: ${camel}Inputs,
  handler: ${camel}Handler,
};
`,
);

edit("src/provider/kindNames.ts", /export const KINDS = \[[^\]]*\]/, (s) => s.replace(/\]$/, `, "${kind}"]`));
edit("src/kinds/index.ts", /\nexport const DECLARATIONS[^{]*\{\n/, (s) => s + `  ${kind}: ${camel}Kind,\n`);
edit("src/kinds/index.ts", /\nimport [^\n]*\n(?=\nexport const DECLARATIONS)/, (s) => s + `import { ${camel}Kind } from "./${camel}";\n`);
fs.writeFileSync(
  at(`src/resources/providers/${kind}.ts`),
  fs.readFileSync(at("src/resources/providers/RedirectDomain.ts"), "utf8").replaceAll("RedirectDomain", kind),
);
edit("src/resources/providers/index.ts", /\nexport const PROVIDERS[^{]*\{\n/, (s) => s + `  ${kind},\n`);
edit("src/resources/providers/index.ts", /\nimport [^\n]*\n(?=\nexport const PROVIDERS)/, (s) => s + `import ${kind} from "./${kind}";\n`);
edit("src/resources/classes.ts", /\nimport type \{ ([^}]*) \} from "\.\/types";/, (s) => s.replace(" } from", `, ${kind}Args, ${kind}Outputs } from`));
edit("src/resources/classes.ts", /\nimport \{ [^}]*\bregistration \} from "\.\/registration";/, (s) => `\nimport { ${camel}Kind } from "../kinds/${camel}";` + s);
fs.appendFileSync(
  at("src/resources/classes.ts"),
  `\n/** A ${kind} of a NeonAuth: what it is, its id, an example (its page in docs/ shows this). */\n` +
    `export class ${kind} extends kindClass<${kind}Args>(${camel}Kind, childRegistration) {}\n\nexport interface ${kind} extends ${kind}Outputs {}\n`,
);
// Its example (docs/examples/<Kind>.yaml): `npm run gen` renders it in four languages on its page.
fs.writeFileSync(
  at(`docs/examples/${kind}.yaml`),
  `name: neon-auth-${camel.toLowerCase()}
runtime: yaml
description: A ${kind} of a branch's Neon Auth.
config:
  projectId:
    type: string
  branchId:
    type: string
resources:
  auth:
    type: neon-auth:index:NeonAuth
    properties:
      projectId: \${projectId}
      branchId: \${branchId}
  ${camel}:
    type: neon-auth:index:${kind}
    properties:
      integration: \${auth.ref}
      name: example
`,
);
edit("src/resources/index.ts", /export \{ ([^}]*) \} from "\.\/classes";/, (s) => s.replace(" } from", `, ${kind} } from`));
console.log(`wrote ${kindFile}, src/resources/providers/${kind}.ts, docs/examples/${kind}.yaml; put ${kind} in kindNames.ts, kinds/index.ts, providers/index.ts, classes.ts, resources/index.ts. Now: npm run gen (it writes docs/${kind}.md)`);
