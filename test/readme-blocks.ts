/**
 * The fenced blocks of the README, of the pages in docs/ and of each example's README, read the way
 * a user reads them:
 * the shell blocks are the commands they are told to run (test/e2e/readme.test.ts runs each one,
 * unless test/not-runnable.json says why it cannot run here), and a block of any language marked
 * `<!-- file: NAME -->` on the line before it is the file of that name the commands expect.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export const repo = path.resolve(__dirname, "..");

export interface Block {
  /** The document, relative to the repository: `README.md`, `docs/<page>.md`, `examples/<name>/README.md`. */
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** The block's text, its indentation (a block inside a list item) removed. */
  text: string;
  /** For a block marked `<!-- file: NAME -->`: the file it is. */
  file?: string;
}

export interface NotRunnable {
  doc: string;
  /** The block's text, exactly. */
  block: string;
  reason: string;
}

const SHELL = new Set(["sh", "bash", "shell", "console"]);
export const isShell = (b: Block): boolean => SHELL.has(b.lang);

/** README.md, every page of docs/ (its own folder: docs/plugin/ holds no commands) and every examples/<name>/README.md, in that order. */
export function documents(): string[] {
  const pages = fs
    .readdirSync(path.join(repo, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
  const examples = fs
    .readdirSync(path.join(repo, "examples"))
    .filter((e) => fs.existsSync(path.join(repo, "examples", e, "README.md")))
    .sort();
  return ["README.md", ...pages, ...examples.map((e) => `examples/${e}/README.md`)];
}

export function blocksOf(doc: string): Block[] {
  const lines = fs.readFileSync(path.join(repo, doc), "utf8").split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const end = lines.findIndex((l, j) => j > i && /^\s*```\s*$/.test(l));
    if (end < 0) throw new Error(`${doc}:${i + 1}: a fence that is never closed`);
    const file = /^\s*<!-- file: (\S+) -->\s*$/.exec(lines[i - 1] ?? "")?.[1];
    const text = lines
      .slice(i + 1, end)
      .map((l) => l.slice(Math.min(indent, /^\s*/.exec(l)![0].length)))
      .join("\n");
    blocks.push({ doc, line: i + 1, lang: open[2]!, text: `${text}\n`, ...(file ? { file } : {}) });
    i = end;
  }
  return blocks;
}

export const NOT_RUNNABLE_FILE = "test/not-runnable.json";

export function notRunnable(): NotRunnable[] {
  return JSON.parse(fs.readFileSync(path.join(repo, NOT_RUNNABLE_FILE), "utf8")) as NotRunnable[];
}

/** The shell blocks of `doc` the list does not exempt: each one runs. */
export function runnable(doc: string): Block[] {
  const exempt = notRunnable().filter((n) => n.doc === doc);
  return blocksOf(doc).filter((b) => isShell(b) && !exempt.some((n) => n.block === b.text));
}

/** The blocks of `doc` under `heading` (its text, without the `#`s), up to the next heading of any level. */
export function blocksUnder(doc: string, heading: string): Block[] {
  const lines = fs.readFileSync(path.join(repo, doc), "utf8").split("\n");
  const start = lines.findIndex((l) => l.replace(/^#+ /, "") === heading && /^#+ /.test(l));
  if (start < 0) throw new Error(`${doc} has no heading "${heading}"`);
  const blocks = blocksOf(doc).filter((b) => b.line > start + 1);
  // The next heading outside a fence: the first `#` line after `start` that no block spans.
  const next = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && !blocks.some((b) => b.line <= i + 1 && i + 1 < b.line + b.text.split("\n").length));
  return next < 0 ? blocks : blocks.filter((b) => b.line < next + 1);
}

export const EOF_MARK = "__NEON_AUTH_README_FILE__";

/**
 * One bash script of `blocks`, in order, as a user's terminal runs them: job control on (`kill %1`
 * stops a job started with `&`, npx and the process under it), the first failing command ending it.
 * A file block is written where it stands; each shell block is announced by a `::block doc:line`
 * line, and passes through `rewrite` (a port, say). At the end the session prints the folder it ended
 * in (`::cwd`), and writes its Pulumi settings to `$HOME/session.env` and the process groups of the
 * jobs it left running to `$HOME/jobs.pids`.
 */
export function sessionScript(blocks: readonly Block[], rewrite: (text: string) => string = (t) => t): string {
  const parts = ["set -e", "set -m", `trap 'jobs -p > "$HOME/jobs.pids"' EXIT`];
  for (const b of blocks) {
    if (b.file) parts.push(`cat > '${b.file}' <<'${EOF_MARK}'\n${b.text}${EOF_MARK}`);
    // On a line of its own: the output before may not end in a newline (curl's does not).
    else parts.push(`printf '\\n::block %s\\n' '${b.doc}:${b.line}'`, rewrite(b.text));
  }
  parts.push(`printf '\\n::cwd %s\\n' "$PWD"`, 'env | grep "^PULUMI_" > "$HOME/session.env"');
  return parts.join("\n");
}
