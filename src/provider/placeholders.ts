/**
 * Where an import meets a secret: Neon never returns an OAuth provider's client secret or the
 * SMTP password, and the webhook URL it does return must not be written into a program. A read
 * with nothing recorded (an import by id) puts a placeholder in those places, naming the stack
 * configuration key the program should read instead; `neon-auth-import --program` turns each into
 * a reference to that key, and the first preview takes the program's value as the one Neon holds.
 *
 * A placeholder is never sent to Neon (the plugin refuses a create or update carrying one), and
 * it passes the field's own rules, so that the engine's check of the imported inputs is clean.
 */
type Props = Record<string, unknown>;

const TEXT = "neon-auth-import:config:";
/** A URL field's placeholder must still be an https URL (the webhook URL's rule). */
const URL_PREFIX = "https://neon-auth-import.invalid/config/";

/** The placeholder for a secret read from stack configuration key `key` (a URL for a URL field). */
export function placeholder(key: string, url = false): string {
  return `${url ? URL_PREFIX : TEXT}${key}`;
}

/** The configuration key a placeholder names; undefined for any other value. */
export function placeholderKey(v: unknown): string | undefined {
  if (typeof v !== "string") return undefined;
  for (const prefix of [TEXT, URL_PREFIX]) if (v.startsWith(prefix) && /^[A-Za-z][A-Za-z0-9]*$/.test(v.slice(prefix.length))) return v.slice(prefix.length);
  return undefined;
}

/** Every placeholder in props, at any depth, with its path (`webhooks.webhookUrl`). */
export function placeholdersIn(v: unknown, path = ""): { path: string; key: string }[] {
  const key = placeholderKey(v);
  if (key !== undefined) return [{ path, key }];
  if (v === null || typeof v !== "object") return [];
  return Object.entries(v as Props).flatMap(([k, x]) => placeholdersIn(x, path === "" ? k : `${path}.${k}`));
}

/**
 * Old values with each placeholder replaced: by what `recorded` (the resource's last inputs)
 * holds there when that is a value of its own, else by the new value, which the stack has never
 * known otherwise and so takes as Neon's.
 */
export function placeholdersTaken(olds: unknown, news: unknown, recorded?: unknown): unknown {
  if (placeholderKey(olds) !== undefined) return recorded !== undefined && placeholderKey(recorded) === undefined ? recorded : news;
  if (olds === null || typeof olds !== "object" || Array.isArray(olds)) return olds;
  const at = (v: unknown, k: string) => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Props)[k] : undefined);
  return Object.fromEntries(Object.entries(olds as Props).map(([k, x]) => [k, placeholdersTaken(x, at(news, k), at(recorded, k))]));
}

/**
 * A refresh's inputs beside the recorded ones: a placeholder recorded stays (the program has not
 * given that value yet, and Neon's answer is no program's), and a recorded value stays where the
 * read has only the placeholder (what the program gave since the import).
 */
export function placeholdersRecorded(read: unknown, recorded: unknown): unknown {
  if (placeholderKey(recorded) !== undefined) return read === undefined ? read : recorded;
  if (placeholderKey(read) !== undefined) return recorded ?? read;
  const isObject = (v: unknown): v is Props => v !== null && typeof v === "object" && !Array.isArray(v);
  if (!isObject(read) || !isObject(recorded)) return read;
  return Object.fromEntries(Object.entries(read).map(([k, x]) => [k, placeholdersRecorded(x, recorded[k])]));
}

/** A placeholder an import wrote is never sent: the program was to read that value from its configuration. */
export function refusePlaceholders(kind: string, inputs: Props): void {
  const [first] = placeholdersIn(inputs);
  if (first === undefined) return;
  throw new Error(
    `${kind} ${first.path} is still the placeholder neon-auth-import wrote: run \`neon-auth-import --program <file>\` on the written program ` +
      `and \`pulumi config set --secret ${first.key} <value>\`, so that the program reads it from the stack's configuration`,
  );
}
