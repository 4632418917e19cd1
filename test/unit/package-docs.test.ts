/**
 * The README is read on the npm page, where only the packed files exist: every relative link must
 * resolve inside the tarball, every `#anchor` must name a heading, and the tarball carries the
 * licence and the changelog; the same for each page of docs/. Every command line a user types from the README runs a command that
 * exists, with options that command has.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REGISTRY_DOCS } from "../../scripts/gen/registry-docs.mts";

const repo = path.resolve(__dirname, "..", "..");

/** Files `npm pack` would put in the tarball (without building: dist/ is not linked to). */
function packedFiles(): Set<string> {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: repo,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [report] = JSON.parse(out) as { files: { path: string }[] }[];
  return new Set(report!.files.map((f) => f.path));
}

/** GitHub's and npm's heading anchors: lower case, punctuation dropped, spaces to dashes. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const m = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (m) anchors.add(m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-"));
  }
  return anchors;
}

function linksOf(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe("the packed package's documentation", () => {
  const files = packedFiles();

  it("ships the licence, the changelog, the README and the docs it links to", () => {
    for (const f of ["LICENSE", "CHANGELOG.md", "README.md", "DEVELOPMENT.md", "src/emulator/README.md", "package.json"]) {
      expect(files.has(f), f).toBe(true);
    }
    // Nothing a user does not need: no tests, no sources but the emulator's README, no maps.
    expect([...files].filter((f) => f.startsWith("test/") || (f.startsWith("src/") && f !== "src/emulator/README.md"))).toEqual([]);
    expect([...files].filter((f) => f.endsWith(".map"))).toEqual([]);
  });

  // The Registry's own pages link by its slugs (`installation-configuration`), not by file.
  const pages = fs
    .readdirSync(path.join(repo, "docs"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md") && !(REGISTRY_DOCS as readonly string[]).includes(f))
    .map((f) => `docs/${f}`);
  for (const doc of ["README.md", "DEVELOPMENT.md", "CHANGELOG.md", "src/emulator/README.md", ...pages]) {
    it(`${doc}: every relative link resolves inside the tarball, every anchor names a heading`, () => {
      const text = fs.readFileSync(path.join(repo, doc), "utf8");
      const broken: string[] = [];
      for (const link of linksOf(text)) {
        if (/^(https?:|mailto:)/.test(link)) continue;
        const [target, anchor] = link.split("#") as [string, string | undefined];
        const file = target === "" ? doc : path.posix.normalize(path.posix.join(path.posix.dirname(doc), target));
        const isDir = [...files].some((f) => f.startsWith(`${file.replace(/\/$/, "")}/`));
        if (!files.has(file) && !isDir) broken.push(`${link} (no ${file} in the tarball)`);
        else if (anchor && files.has(file) && !anchorsOf(fs.readFileSync(path.join(repo, file), "utf8")).has(anchor)) {
          broken.push(`${link} (no heading #${anchor} in ${file})`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});

/** Each command of the README's `bash` blocks: continuations joined, comments, `&&` and `&` split off. */
function commandsOf(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!.replace(/\\\n\s*/g, " "));
  return blocks
    .flatMap((b) => b.split("\n"))
    .map((l) => l.replace(/(^|\s+)#\s.*$/, "").replace(/&\s*$/, "").trim())
    .flatMap((l) => l.split(" && ").map((c) => c.trim()))
    .filter((c) => c !== "");
}

/** The options (`--name`) of a command line, outside quotes. */
function optionsOf(command: string): string[] {
  return [...command.replace(/'[^']*'|"[^"]*"/g, "").matchAll(/(?:^|\s)(--?[a-z][a-z-]*)/g)].map((m) => m[1]!);
}

describe("the README's command lines", () => {
  const readme = fs.readFileSync(path.join(repo, "README.md"), "utf8");
  const commands = commandsOf(readme);
  const pkg = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8"));
  /** Each command the package installs, with the source that holds its usage (its options). */
  const usageOf = (bin: string): string => {
    const file = String(pkg.bin[bin]).replace(/^dist\//, "src/").replace(/\.js$/, ".ts");
    return fs.existsSync(path.join(repo, file)) ? fs.readFileSync(path.join(repo, file), "utf8") : "";
  };
  const makeTargets = [...fs.readFileSync(path.join(repo, "Makefile"), "utf8").matchAll(/^([a-z-]+):/gm)].map((m) => m[1]);

  it("finds the quick start's commands", () => {
    expect(commands).toContain("npx neon-auth-emulator --port 4000 --seed-project p-quick");
    expect(commands.length).toBeGreaterThan(20);
  });

  it("runs only commands that exist, with options they have", { timeout: 120_000 }, () => {
    const problems: string[] = [];
    const pulumiHelp = new Map<string, string>();
    for (const command of commands) {
      const [program, ...args] = command.split(/\s+/);
      switch (program) {
        case "pulumi": {
          // The subcommand: the leading plain words (`config set`, `stack output`, `new typescript`).
          const words = args.slice(0, args.findIndex((a) => !/^[a-z]+$/.test(a)) >>> 0);
          const key = words.join(" ");
          if (!pulumiHelp.has(key)) {
            try {
              pulumiHelp.set(key, execFileSync("pulumi", [...words, "--help"], { encoding: "utf8", env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" } }));
            } catch {
              pulumiHelp.set(key, "");
            }
          }
          const help = pulumiHelp.get(key)!;
          if (help === "") problems.push(`${command}: \`pulumi ${key}\` is not a command`);
          for (const o of optionsOf(command)) if (!new RegExp(`${o}(?![a-z-])`).test(help)) problems.push(`${command}: pulumi ${key} has no ${o}`);
          break;
        }
        case "npx": {
          // One of the package's own commands, installed with it (`npx -p pulumi-neon-auth <bin>` from anywhere).
          const fromPackage = args[0] === "-p" && args[1] === pkg.name;
          const [bin, ...rest] = fromPackage ? args.slice(2) : args;
          if (bin === undefined || !(bin in pkg.bin)) {
            problems.push(`${command}: npx of something this package does not install`);
            break;
          }
          const usage = usageOf(bin);
          for (const o of optionsOf(rest.join(" "))) if (!new RegExp(`^\\s+(-h, )?${o}\\b`, "m").test(usage)) problems.push(`${command}: no ${o}`);
          break;
        }
        case "npm": {
          const [verb, ...rest] = args;
          const installs = rest.every((a) => a === pkg.name || a === "@pulumi/pulumi" || /\/pulumi-neon-auth-<version>\.tgz$/.test(a));
          const bare = (verb === "pack" || verb === "ci") && rest.length === 0;
          if (!bare && !(verb === "install" && installs)) problems.push(`${command}: not an npm command of this package`);
          break;
        }
        case "make":
          if (!makeTargets.includes(args[0])) problems.push(`${command}: no make target ${args[0]}`);
          break;
        case "mkdir":
        case "cd":
        case "curl":
        case "kill":
          break;
        default:
          problems.push(`${command}: ${program} is not a command the README should ask for`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("the examples", () => {
  it("depend on the package's current version (on 0.x a caret does not reach the next minor)", () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")) as { version: string };
    const examples = fs.readdirSync(path.join(repo, "examples")).filter((e) => fs.existsSync(path.join(repo, "examples", e, "package.json")));
    const pinned = Object.fromEntries(
      examples.map((e) => [e, (JSON.parse(fs.readFileSync(path.join(repo, "examples", e, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies["pulumi-neon-auth"]]),
    );
    expect(pinned).toEqual(Object.fromEntries(examples.map((e) => [e, `^${version}`])));
  });
});
