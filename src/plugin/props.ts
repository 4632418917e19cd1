/**
 * The plugin's properties beside the runtime's: secrets travel marked on the wire where the
 * runtime gets plain values and the names of the secret inputs. Everything else (a child's
 * `integration`, an integration's `ref`) is the shape both faces share (provider/place.ts).
 */
import { secretKeys } from "../schemas/fields";
import { secretOutputsOf, type KindDeclaration, type Props } from "../provider/declaration";
import { SECRET, SECRET_INPUTS, SIG } from "../provider/kit";
import { UNKNOWN } from "../provider/diff";

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
