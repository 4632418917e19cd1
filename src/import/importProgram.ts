/**
 * The last step of adopting a branch: `pulumi import --out` writes a program from the imported
 * inputs, where each secret is a placeholder (placeholders.ts); this turns each into a read of the
 * stack's configuration in the program's own language, so that no secret is ever written into
 * the program, and says which `pulumi config set --secret` lines give those values.
 */
import { placeholder, placeholderKey } from "../provider/placeholders";

export type ProgramLanguage = "typescript" | "go" | "yaml";

/** The language of a program file, by its extension (as `pulumi import --out` picks the generator). */
export function languageOf(file: string): ProgramLanguage {
  if (/\.[cm]?[jt]s$/.test(file)) return "typescript";
  if (file.endsWith(".go")) return "go";
  if (/\.ya?ml$/.test(file)) return "yaml";
  throw new Error(`${file}: a program in TypeScript (.ts), Go (.go) or YAML (.yaml) was expected`);
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
/** Every placeholder of either form (plain or URL) in the text. */
const ANY = new RegExp(`(?:${esc(placeholder("K").slice(0, -1))}|${esc(placeholder("K", true).slice(0, -1))})[A-Za-z][A-Za-z0-9]*`, "g");

/** What the user gives for a key, in words (no quote inside: it is printed between single quotes). */
function described(key: string): string {
  const provider = /^(\w+)ClientSecret$/.exec(key)?.[1];
  if (provider !== undefined) return `client secret of the ${provider} OAuth app`;
  if (key === "smtpPassword") return "password of the SMTP server";
  if (key === "webhookUrl") return "URL of the webhook endpoint, as the Neon console shows it";
  return key;
}

/**
 * The program with each placeholder read from the stack's configuration, and the keys it reads in
 * the order the program first names them.
 */
export function programWithConfig(code: string, language: ProgramLanguage): { code: string; keys: string[] } {
  const keys = [...new Set([...code.matchAll(ANY)].map((m) => placeholderKey(m[0])!))];
  if (keys.length === 0) return { code, keys };
  let out = code;
  for (const key of keys) {
    const ph = `(?:${esc(placeholder(key))}|${esc(placeholder(key, true))})`;
    if (language === "typescript") {
      out = out.replace(new RegExp(`pulumi\\.secret\\("${ph}"\\)`, "g"), `config.requireSecret("${key}")`).replace(new RegExp(`"${ph}"`, "g"), `config.requireSecret("${key}")`);
    } else if (language === "go") {
      // Each wrapper the generator may put around a string, innermost first.
      out = out
        .replace(new RegExp(`pulumi\\.ToSecret\\((?:pulumi\\.String(?:Ptr)?\\()?"${ph}"\\)?\\)(?:\\.\\(pulumi\\.String(?:Ptr)?Output\\))?`, "g"), `config.RequireSecret(ctx, "${key}")`)
        .replace(new RegExp(`pulumi\\.String(?:Ptr)?\\("${ph}"\\)`, "g"), `config.RequireSecret(ctx, "${key}")`)
        .replace(new RegExp(`"${ph}"`, "g"), `config.RequireSecret(ctx, "${key}")`);
    } else {
      out = out
        .replace(new RegExp(`:[ \\t]*\\n[ \\t]*fn::secret:[ \\t]*["']?${ph}["']?`, "g"), `: \${${key}}`)
        .replace(new RegExp(`fn::secret:[ \\t]*["']?${ph}["']?`, "g"), `\${${key}}`)
        .replace(new RegExp(`["']?${ph}["']?`, "g"), `\${${key}}`);
    }
  }
  if (language === "typescript") out = withTypeScriptConfig(out);
  else if (language === "go") out = withGoConfig(out);
  else out = withYamlConfig(out, keys);
  return { code: out, keys };
}

/** The `pulumi config set --secret` line for each key (the value described, never a value). */
export function configLines(keys: readonly string[]): string[] {
  return keys.map((k) => `pulumi config set --secret ${k} '<${described(k)}>'`);
}

function withTypeScriptConfig(code: string): string {
  const imports = [...code.matchAll(/^import .*;$/gm)];
  const pulumiImport = /^import \* as pulumi from "@pulumi\/pulumi";$/m.test(code) ? "" : 'import * as pulumi from "@pulumi/pulumi";\n';
  const decl = `${pulumiImport}\n// The secrets Neon never shows again (or must not be written here), from the stack's configuration.\nconst config = new pulumi.Config();\n`;
  const last = imports.at(-1);
  if (last === undefined) return `${decl}\n${code}`;
  const at = last.index! + last[0].length + 1;
  return `${code.slice(0, at)}${decl}${code.slice(at)}`;
}

function withGoConfig(code: string): string {
  const pkg = '"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"';
  if (code.includes(pkg)) return code;
  if (/^import \(\n/m.test(code)) return code.replace(/^import \(\n/m, `import (\n\t${pkg}\n`);
  return code.replace(/^(package \w+\n)/m, `$1\nimport ${pkg}\n`);
}

function withYamlConfig(code: string, keys: readonly string[]): string {
  const entries = keys.map((k) => `  ${k}:\n    type: string\n    secret: true\n`).join("");
  if (/^config:\n/m.test(code)) return code.replace(/^config:\n/m, `config:\n${entries}`);
  return `config:\n${entries}${code}`;
}
