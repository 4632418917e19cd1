/**
 * Moves a stack of the package's dynamic resources onto the provider plugin without a request to
 * Neon, by rewriting what `pulumi stack export` gives (then `pulumi stack import`). An alias cannot
 * do it: Pulumi replaces a resource whose provider changes package, which here would delete and
 * make again every object. Each dynamic resource of this package gets the plugin's type (and so its
 * URN), the plugin's default provider of this version, and its outputs in the plugin's shape (an
 * integration's `ref`, a child's `integration`); every URN that named it (parents, dependencies,
 * property dependencies, `replaceWith`, aliases) follows, and the serialized `__provider` goes.
 */
import { randomUUID } from "node:crypto";
import { VERSION } from "../client/options";
import { DECLARATIONS } from "../kinds";
import type { Kind, Props } from "../provider/kit";
import { MODULE } from "../resources/registration";
import { inputsOf, upgraded, withRef } from "../provider/place";
import { PACKAGE, tokenOf } from "../plugin/schema";

const DYNAMIC = `pulumi-nodejs:dynamic/${MODULE}:`;
const PROVIDER = "__provider";

interface StateResource {
  urn: string;
  type: string;
  custom?: boolean;
  id?: string;
  provider?: string;
  inputs?: Props;
  outputs?: Props;
  propertyDependencies?: Record<string, string[]>;
  [k: string]: unknown;
}

export interface StackExport {
  version: number;
  deployment: { resources?: StateResource[]; pending_operations?: unknown[]; [k: string]: unknown };
}

/** Every string equal to a key of `map`, anywhere in `value`, replaced by its value. */
function renamed<T>(value: T, map: ReadonlyMap<string, string>): T {
  if (typeof value === "string") return (map.get(value) ?? value) as T;
  if (Array.isArray(value)) return value.map((v) => renamed(v, map)) as T;
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renamed(v, map)])) as T;
  return value;
}

const without = (props: Props | undefined, key: string): Props | undefined => {
  if (props === undefined) return undefined;
  const { [key]: _, ...rest } = props;
  return rest;
};

/** The export of the same stack, its dynamic resources of this package moved onto the plugin. */
export function movedToPlugin(exported: StackExport): StackExport {
  const resources = exported.deployment.resources ?? [];
  if ((exported.deployment.pending_operations ?? []).length > 0) {
    throw new Error("the stack has pending operations (an interrupted run): recover it first (README, Troubleshooting), then move it");
  }
  const moving = resources.filter((r) => r.type.startsWith(DYNAMIC));
  if (moving.length === 0) throw new Error(`the export holds no resource of pulumi-neon-auth's dynamic resources (type ${DYNAMIC}<Kind>)`);
  // urn:pulumi:<stack>::<project>::<type>::<name>
  const prefix = /^urn:pulumi:[^:]+::[^:]+::/.exec(moving[0]!.urn)?.[0];
  if (prefix === undefined) throw new Error(`unexpected URN ${moving[0]!.urn}`);

  const urns = new Map(moving.map((r) => [r.urn, r.urn.split(DYNAMIC).join(`${PACKAGE}:index:`)]));
  // The default provider the plugin's SDKs ask for (their version is this package's).
  const providerUrn = `${prefix}pulumi:providers:${PACKAGE}::default_${VERSION.replace(/\./g, "_")}`;
  const providerId = randomUUID();
  const provider: StateResource = { urn: providerUrn, custom: true, id: providerId, type: `pulumi:providers:${PACKAGE}`, inputs: { version: VERSION }, outputs: { version: VERSION } };

  const out: StateResource[] = [];
  for (const r of resources) {
    if (!r.type.startsWith(DYNAMIC)) {
      out.push(renamed(r, urns));
      continue;
    }
    if (!out.includes(provider)) out.push(provider);
    const decl = DECLARATIONS[r.type.slice(DYNAMIC.length) as Kind];
    if (decl === undefined) throw new Error(`${r.urn}: this version of pulumi-neon-auth has no kind ${r.type.slice(DYNAMIC.length)}`);
    const outputs = without(r.outputs, PROVIDER);
    out.push(
      renamed(
        {
          ...r,
          type: tokenOf(decl.kind),
          provider: `${providerUrn}::${providerId}`,
          inputs: r.inputs && inputsOf(upgraded(decl, without(r.inputs, PROVIDER)!)),
          outputs: outputs && withRef(decl, upgraded(decl, outputs)),
          propertyDependencies: without(r.propertyDependencies, PROVIDER) as Record<string, string[]> | undefined,
        },
        urns,
      ),
    );
  }
  // Pulumi's Node.js default provider goes with the last resource that used it.
  const used = new Set(out.map((r) => r.provider?.split("::").slice(0, -1).join("::")));
  const kept = out.filter((r) => !(r.type === "pulumi:providers:pulumi-nodejs" && !used.has(r.urn)));
  return { ...exported, deployment: { ...exported.deployment, resources: kept } };
}
