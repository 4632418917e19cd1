/**
 * The plugin's properties beside the runtime's: a child's `integration` is one object in the
 * plugin's schema (what its integration outputs as `ref`) where the runtime keeps its project,
 * branch, auth provider and integration identity apart; and secrets travel marked on the wire
 * where the runtime gets plain values and the names of the secret inputs. The handlers stay the
 * dynamic resources' own.
 */
import * as pulumi from "@pulumi/pulumi";
import { secretKeys } from "../schemas/fields";
import { secretOutputsOf, type KindDeclaration, type Props } from "../provider/declaration";
import { SECRET_INPUTS } from "../provider/kit";
import { UNKNOWN } from "../provider/diff";

const SIG = pulumi.runtime.specialSigKey;
const SECRET = pulumi.runtime.specialSecretSig;

const isSecret = (v: unknown): v is { value: unknown } => v !== null && typeof v === "object" && (v as Props)[SIG] === SECRET;

function unwrap(v: unknown): { value: unknown; secret: boolean } {
  if (isSecret(v)) return { value: unwrap(v.value).value, secret: true };
  if (Array.isArray(v)) {
    const items = v.map(unwrap);
    return { value: items.map((i) => i.value), secret: items.some((i) => i.secret) };
  }
  if (v !== null && typeof v === "object") {
    const entries = Object.entries(v).map(([k, x]) => [k, unwrap(x)] as const);
    return { value: Object.fromEntries(entries.map(([k, x]) => [k, x.value])), secret: entries.some(([, x]) => x.secret) };
  }
  return { value: v, secret: false };
}

/** Plain props, with the names of the top-level fields that held a secret in `SECRET_INPUTS`. */
export function plain(props: Props): Props {
  const out: Props = {};
  const names: string[] = [];
  for (const [k, v] of Object.entries(props)) {
    const u = unwrap(v);
    out[k] = u.value;
    if (u.secret) names.push(k);
  }
  return names.length > 0 ? { ...out, [SECRET_INPUTS]: names } : out;
}

const secretsOfKind = new WeakMap<KindDeclaration, ReadonlySet<string>>();

/** The fields a kind keeps secret: its inputs the rules mark, and its secret outputs (the schema marks the same). */
export function secretNames(decl: KindDeclaration): ReadonlySet<string> {
  let names = secretsOfKind.get(decl);
  if (names === undefined) secretsOfKind.set(decl, (names = new Set([...secretKeys(decl.schema), ...secretOutputsOf(decl)])));
  return names;
}

/** Props for the wire: every field the kind keeps secret, or that came in secret, marked so. */
export function marked(decl: KindDeclaration, props: Props): Props {
  const secret = new Set([...secretNames(decl), ...((props[SECRET_INPUTS] as string[] | undefined) ?? [])]);
  const out: Props = {};
  for (const [k, v] of Object.entries(props)) {
    if (k === SECRET_INPUTS || v === undefined) continue;
    out[k] = secret.has(k) && v !== UNKNOWN ? { [SIG]: SECRET, value: v } : v;
  }
  return out;
}

/** A kind that lives in an integration. */
export const isChild = (decl: KindDeclaration) => decl.parent !== undefined;

/** A kind children live in (it outputs their `ref`); a kind that is neither (a project's JWKS URL) stands alone. */
export const isIntegration = (decl: KindDeclaration) => decl.kind === "NeonAuth" || decl.kind === "AuthIntegration";

/** The runtime inputs of a child that its plugin input `integration` carries. */
export const FROM_INTEGRATION = ["projectId", "branchId", "authProvider", "integration"] as const;

/**
 * The fields of an integration a child's `integration` carries, from runtime props. A branch only
 * for a branch-scoped one: an AuthIntegration's `branchId` is where its data lives, and its
 * children call the project-level API.
 */
function refOf(p: Props, identity: unknown, branch = true): Props | undefined {
  if (identity === undefined || identity === null || typeof identity !== "object") return undefined;
  const out: Props = { projectId: p.projectId, ...identity };
  if (branch && p.branchId !== undefined) out.branchId = p.branchId;
  if (p.authProvider !== undefined) out.authProvider = p.authProvider;
  return out;
}

/** Program or state props in the runtime's shape: a child's `integration` spread, an integration's `ref` dropped. */
export function toRuntime(decl: KindDeclaration, props: Props): Props {
  const { ref: _ref, ...p } = props;
  if (!isChild(decl)) return p;
  const ref = p.integration;
  const unknown = ref === UNKNOWN;
  if (!unknown && (ref === null || typeof ref !== "object" || !("projectId" in ref))) return p;
  const field = (k: string) => (unknown ? UNKNOWN : (ref as Props)[k]);
  const out: Props = { ...p, projectId: field("projectId") };
  if (unknown || (ref as Props).branchId !== undefined) out.branchId = field("branchId");
  if (decl.withProvider !== false && (unknown || (ref as Props).authProvider !== undefined)) out.authProvider = field("authProvider");
  out.integration = unknown ? UNKNOWN : { authProviderProjectId: field("authProviderProjectId"), createdAt: field("createdAt") };
  // A NeonAuth that adopts passes it on to what is declared in it, as the classes do (children.ts
  // ADOPTS_CHILDREN); the child's own `adopt` wins.
  if (!unknown && (ref as Props).adopt === true && p.adopt === undefined) out.adopt = true;
  return out;
}

/**
 * Outputs in the plugin's shape: a child's `integration` as the ref it was given, an integration's
 * `ref` (with `adopt` when a NeonAuth adopts: the one way its children, which know it only by its
 * `ref`, learn it).
 */
export function toPlugin(decl: KindDeclaration, outs: Props): Props {
  if (isChild(decl)) {
    const ref = refOf(outs, outs.integration);
    return ref === undefined ? outs : { ...outs, integration: ref };
  }
  if (!isIntegration(decl)) return outs;
  const identity = outs.authProviderProjectId === undefined ? undefined : { authProviderProjectId: outs.authProviderProjectId, createdAt: outs.createdAt };
  const ref = refOf(outs, identity, decl.kind === "NeonAuth");
  if (ref !== undefined && decl.kind === "NeonAuth" && outs.adopt === true) ref.adopt = true;
  return ref === undefined ? outs : { ...outs, ref };
}

/**
 * Inputs in the plugin's shape, as its schema declares them: a child's place is its one
 * `integration`. What Check and Read return is what the state keeps and what `pulumi import`
 * writes into a program, so it must be the schema's inputs and nothing else.
 */
export function toPluginInputs(decl: KindDeclaration, inputs: Props): Props {
  if (!isChild(decl)) return inputs;
  const integration = inputs.integration === UNKNOWN ? UNKNOWN : refOf(inputs, inputs.integration);
  if (integration === undefined) return inputs;
  const rest = Object.fromEntries(Object.entries(inputs).filter(([k]) => !(FROM_INTEGRATION as readonly string[]).includes(k)));
  return { ...rest, integration };
}

/**
 * A check's reason as a plugin program reads it: a child's place is named inside `integration`
 * (`RedirectDomain integration.projectId must …`), and an unknown input is measured against the
 * plugin's inputs, not the runtime's (no `projectId` in the list, no "did you mean authProvider").
 */
export function pluginReason(decl: KindDeclaration, reason: string, inputs: readonly string[]): string {
  if (!isChild(decl)) return reason;
  const place = FROM_INTEGRATION.filter((k) => k !== "integration");
  return reason
    .replace(new RegExp(`^${decl.kind} (${place.join("|")})\\b`), `${decl.kind} integration.$1`)
    .replace(new RegExp(` \\(did you mean (${place.join("|")})\\?\\)`), "")
    .replace(/known inputs: .*$/, `known inputs: ${inputs.join(", ")}`);
}

/** A runtime field name as the plugin's schema names it (a child's place is its `integration`). */
export function pluginField(decl: KindDeclaration, path: string): string {
  if (!isChild(decl)) return path;
  const top = path.split(".")[0]!;
  return (FROM_INTEGRATION as readonly string[]).includes(top) ? "integration" : path;
}
