/**
 * The shape the code keeps: rooms by the process that runs their code, each importing only the
 * rooms below it (no two rooms import each other); no source file over 350 lines; the API
 * generation decided in one module; the client made in one place, per provider process; the
 * emulator standing apart from the client it stands in for, and its core from both generations.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(__dirname, "../../src");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith(".ts") ? [p] : [];
  });
}

const files = sources(SRC).map((p) => ({ path: relative(SRC, p), text: readFileSync(p, "utf8") }));
const where = (re: RegExp) => files.filter((f) => re.test(f.text)).map((f) => f.path).sort();

describe("layout of src/", () => {
  it("has no file over 350 lines", () => {
    expect(files.filter((f) => f.text.split("\n").length - 1 > 350).map((f) => f.path)).toEqual([]);
  });

  it("decides the API generation of a child in generation.ts only", () => {
    expect(where(/\bisBranch\w*\(/)).toEqual([]);
    expect(where(/const (PROJECT|BRANCH): Generation\b/)).toEqual(["provider/generation.ts"]);
  });

  it("makes the resources' client in one place, once per provider process, and keeps no global one", () => {
    expect(where(/\bcreateClient\(/).filter((p) => !p.startsWith("emulator/") && !p.startsWith("client/"))).toEqual(["provider/context.ts"]);
    expect(where(/\bgetClient\b|\bapi\(\)/)).toEqual([]);
  });

  it("keeps the provider room and the kinds free of either face: no @pulumi/pulumi, a log the face gives", () => {
    expect(files.filter((f) => /^(provider|kinds)\//.test(f.path) && /["']@pulumi\/pulumi(\/[^"']*)?["']/.test(f.text)).map((f) => f.path)).toEqual([]);
  });

  it("keeps the emulator apart from the client it stands in for", () => {
    expect(files.filter((f) => f.path.startsWith("emulator/") && /from "(\.\.\/)+client\b/.test(f.text)).map((f) => f.path)).toEqual([]);
  });

  it("imports only downwards between rooms", () => {
    const found = new Set<string>();
    for (const f of files) {
      for (const m of f.text.matchAll(/(?:from|import\(|require\()\s*"(\.[^"]+)"/g)) {
        const to = roomOf(relative(SRC, resolveModule(resolve(SRC, dirname(f.path), m[1]!))));
        const from = roomOf(f.path);
        if (to !== from) found.add(`${from} -> ${to}`);
      }
    }
    const forbidden = [...found].filter((e) => {
      const [from, to] = e.split(" -> ") as [string, string];
      return !(ALLOWED[from] ?? []).includes(to);
    });
    expect(forbidden).toEqual([]);
  });
});

/**
 * Each room and the rooms it may import. The TypeScript face (resources) and the plugin face
 * (plugin) both stand on the kinds, which stand on what runs in a provider process of either face
 * (provider); the import tools stand above both faces. The emulator's core knows neither API
 * generation; each generation stands on the core, and only the emulator's entry points assemble
 * them.
 */
const BASE = ["(root)", "(package)", "schemas"];
const ALLOWED: Record<string, string[]> = {
  "(root)": ["(package)"],
  "index.ts": ["(root)", "resources"],
  schemas: ["(root)"],
  client: BASE,
  provider: [...BASE, "client"],
  kinds: [...BASE, "client", "provider"],
  resources: [...BASE, "client", "provider", "kinds"],
  plugin: [...BASE, "client", "provider", "kinds"],
  import: [...BASE, "client", "provider", "kinds", "resources", "plugin"],
  policy: [...BASE, "client", "provider", "kinds"],
  "emulator/core": BASE,
  "emulator/branch": [...BASE, "emulator/core"],
  "emulator/project": [...BASE, "emulator/core"],
  emulator: [...BASE, "emulator/core", "emulator/branch", "emulator/project"],
};

/** A file's room: its folder under src (the emulator's by its sub-folder); the package's own manifest is "(package)". */
function roomOf(path: string): string {
  const parts = path.split(sep);
  if (parts[0] === "..") return "(package)";
  if (parts.length === 1) return path === "index.ts" ? "index.ts" : "(root)";
  if (parts[0] === "emulator" && parts.length > 2) return `emulator/${parts[1]}`;
  return parts[0]!;
}

/** The file a relative specifier names: `x.ts`, `x/index.ts`, or what it names as is (package.json). */
function resolveModule(p: string): string {
  for (const candidate of [`${p}.ts`, join(p, "index.ts"), p]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return p;
}
