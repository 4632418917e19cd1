/**
 * State size: `pulumi stack export` (the CLI's, secrets stay ciphertext) per resource, and where
 * the bytes of one domain entry go.
 */
import { execFileSync } from "node:child_process";
import { median, type BenchStack } from "./stacks.mts";

export interface StateFigures {
  exportBytes: number;
  resources: number;
  dynamicResources: number;
  bytesPerResource: number;
  bytesPerDynamicResource: number;
  /** Size of one RedirectDomain entry in the export (median over the domains). */
  domainEntryBytes: number;
  largestEntry: { type: string; bytes: number };
  /** Length of the serialized provider (`__provider`), per distinct value, by resource type. */
  providerBytes: Record<string, number>;
  /** `__provider` is kept in both inputs and outputs: bytes it takes per resource. */
  providerBytesPerResource: number;
  /** Where the bytes of that RedirectDomain entry go (pretty-printed as a top-level object). */
  domainEntryParts: Record<string, number>;
  /** Mean entry bytes by resource type (last part of the type token). */
  entryBytesByType: Record<string, number>;
}

export function stateFigures(s: BenchStack): StateFigures {
  // The CLI's export (secrets stay ciphertext), not the Automation API's exportStack.
  const text = execFileSync("pulumi", ["stack", "export", "--stack", s.stack.name, "--cwd", s.dir], {
    env: { ...process.env, ...s.env },
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  const doc = JSON.parse(text);
  const resources: any[] = doc.deployment?.resources ?? [];
  // The package's resources: dynamic ones (the classes, the do-nothing stack) or the plugin's.
  const dynamic = resources.filter((r) => /^(pulumi-nodejs:dynamic\/|neon-auth:index:)/.test(String(r.type)));
  const providerBytes: Record<string, number> = {};
  let providerTotal = 0;
  for (const r of dynamic) {
    const type = String(r.type).split(":").pop()!;
    const p = r.outputs?.__provider ?? r.inputs?.__provider;
    if (typeof p === "string") providerBytes[type] = Buffer.byteLength(p);
    for (const where of [r.inputs, r.outputs]) {
      if (typeof where?.__provider === "string") providerTotal += Buffer.byteLength(JSON.stringify(where.__provider));
    }
  }
  const sizeOf = (r: unknown) => Buffer.byteLength(JSON.stringify(r, null, 4));
  const domainEntries = dynamic.filter((r) => /:(RedirectDomain|Noop)$/.test(String(r.type)));
  const domains = domainEntries.map(sizeOf);
  const largest = resources.map((r) => ({ type: String(r.type), bytes: sizeOf(r) })).sort((a, b) => b.bytes - a.bytes)[0]!;
  const byType: Record<string, number[]> = {};
  for (const r of resources) (byType[String(r.type).split(":").pop()!] ??= []).push(sizeOf(r));
  const entryBytesByType = Object.fromEntries(Object.entries(byType).map(([t, xs]) => [t, Math.round(xs.reduce((a, b) => a + b, 0) / xs.length)]));
  const domainEntryParts: Record<string, number> = {};
  const sample = domainEntries[domainEntries.length - 1];
  if (sample) {
    const without = (drop: (e: any) => void) => {
      const e = structuredClone(sample);
      drop(e);
      return sizeOf(sample) - sizeOf(e);
    };
    domainEntryParts.total = sizeOf(sample);
    domainEntryParts.stackTraceAndSourcePosition = without((e) => {
      delete e.stackTrace;
      delete e.sourcePosition;
    });
    domainEntryParts.providerInInputsAndOutputs = without((e) => {
      delete e.inputs?.__provider;
      delete e.outputs?.__provider;
    });
    domainEntryParts.urnsParentProviderDependencies = without((e) => {
      for (const k of ["urn", "parent", "provider", "dependencies"]) delete e[k];
    });
    domainEntryParts.ownInputsAndOutputs = without((e) => {
      for (const where of [e.inputs, e.outputs]) for (const k of Object.keys(where ?? {})) if (k !== "__provider") delete where[k];
    });
    domainEntryParts.rest =
      domainEntryParts.total -
      domainEntryParts.stackTraceAndSourcePosition -
      domainEntryParts.providerInInputsAndOutputs -
      domainEntryParts.urnsParentProviderDependencies -
      domainEntryParts.ownInputsAndOutputs;
  }
  const bytes = Buffer.byteLength(text);
  return {
    exportBytes: bytes,
    resources: resources.length,
    dynamicResources: dynamic.length,
    bytesPerResource: Math.round(bytes / resources.length),
    bytesPerDynamicResource: Math.round(bytes / dynamic.length),
    domainEntryBytes: domains.length > 0 ? median(domains) : 0,
    largestEntry: largest,
    providerBytes,
    providerBytesPerResource: Math.round(providerTotal / dynamic.length),
    domainEntryParts,
    entryBytesByType,
  };
}

