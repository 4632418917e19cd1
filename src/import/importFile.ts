/**
 * Entries for `pulumi import --file`: since engine 3.254 an entry may carry the resource's
 * inputs and outputs, and the engine then skips the provider's read, which a dynamic provider
 * cannot serve for an import (pulumi/pulumi#16175: its read gets no `__provider`). Each entry is
 * filled by the kind's own `read`, against the service, so it records what Neon shows.
 */
import "../nodeVersion";
import { collectSecrets, NeonConfigError, SECRET_FIELDS } from "../client";
import { contextOf, type Context } from "../provider/context";
import { SECRET, SIG, type Kind, type Props } from "../provider/kit";
import { MODULE } from "../resources/registration";
import type { ImportableKind } from "../resources/types";
import { handler } from "../resources/runtime";
import { childId, generationOf } from "../provider/generation";
import { BRANCH_OAUTH_PROVIDER_IDS, OAUTH_CLIENT_TYPES } from "../schemas";
import { listed as oauthClients } from "../kinds/oauthClient";
import { PACKAGE, tokenOf } from "../plugin/schema";
import { plain } from "../plugin/props";
import { placed, upgraded } from "../provider/place";
import { resolveSettings, SETTING, type Settings } from "../provider/settings";
import { DECLARATIONS, calls } from "../kinds";
import { importableId } from "../provider/declaration";

export type { ImportableKind };

/** Why a kind cannot be imported (its declaration says), or undefined where it can. */
function notImportable(kind: Kind): string | undefined {
  const importable = DECLARATIONS[kind]?.importable;
  return importable === true ? undefined : importable;
}

export interface ImportResource {
  kind: ImportableKind;
  /** The resource's name in the program (first argument of `new ...`). */
  name: string;
  /** `<projectId>/<origin>`, `<projectId>/<providerId>` or `<projectId>/email-server`; an OAuthClient's `<projectId>/<branchId>/<clientId>` (its secret is not readable). */
  id: string;
}

/**
 * Where `importFile` sends its GET requests. It runs outside Pulumi, so it reads a stack's
 * configuration only when told which stack; the key and URL then come from where `pulumi up` of
 * that stack takes them (`neon-auth:apiKey` and `neon-auth:apiUrl`, else `NEON_API_KEY` and
 * `NEON_API_URL`). `apiKey` and `apiUrl` given here come first.
 */
export interface ImportFileOptions {
  /** The stack whose configuration to read (`pulumi config`, secrets decrypted as `pulumi up` does them). */
  stack?: string;
  /** The folder of that stack's Pulumi project. Default: the current folder. */
  cwd?: string;
  /** Default: the stack's `neon-auth:apiKey`, then `NEON_API_KEY`. */
  apiKey?: string;
  /** Default: from the same place as the key; Neon's API when that place has none. */
  apiUrl?: string;
}

/** The part of Pulumi's import file this writes (`pulumi import --file`). */
export interface ImportFile {
  resources: {
    type: string;
    name: string;
    id: string;
    inputs: Record<string, unknown>;
    outputs: Record<string, unknown>;
  }[];
}

/**
 * Builds the import file for objects that exist at Neon. A secret the service cannot show (an
 * OAuth client secret, the SMTP password) and the webhook URL are placeholders naming the stack
 * configuration key the program reads it from; the first preview takes the program's value as
 * the one Neon holds. Everything else matches the service.
 *
 * @example
 * ```ts
 * const file = await importFile([{ kind: "RedirectDomain", name: "app", id: "p-123/https://app.example.com" }]);
 * fs.writeFileSync("import.json", JSON.stringify(file, null, 2));
 * // then: pulumi import --file import.json --generate-code=false
 * ```
 */
export async function importFile(resources: readonly ImportResource[], options: ImportFileOptions = {}): Promise<ImportFile> {
  return withImportContext(options, async (ctx) => ({ resources: await entriesOf(resources, ctx) }));
}

/** Runs `fn` with a context from the settings `options` say, closing its client after. */
async function withImportContext<T>(options: ImportFileOptions, fn: (ctx: Context) => Promise<T>): Promise<T> {
  const config = await importConfig(options);
  let settings: Settings;
  try {
    settings = resolveSettings((name) => config[name], process.env);
  } catch (err) {
    if (!(err instanceof NeonConfigError) || options.stack !== undefined) throw err;
    throw new NeonConfigError(
      `importFile: ${err.message}. It runs outside Pulumi: pass \`{ stack: "<name>" }\` to read that stack's configuration ` +
        "(neon-auth:apiKey, neon-auth:apiUrl), or `{ apiKey, apiUrl }`",
    );
  }
  const ctx = contextOf(settings);
  try {
    return await fn(ctx);
  } finally {
    await ctx.client.close();
  }
}

async function entriesOf(resources: readonly ImportResource[], ctx: Context): Promise<ImportFile["resources"]> {
  const entries: ImportFile["resources"] = [];
  for (const r of resources) {
    const why = notImportable(r.kind);
    if (why !== undefined) throw new NeonConfigError(`${r.kind} ${r.name} cannot be imported: ${why}`);
    const h = handler(r.kind, ctx);
    const read = await h.read(r.id, {});
    if (read.props === undefined) throw new NeonConfigError(`${r.kind} ${r.name}: ${r.id} does not exist at Neon`);
    // Check fills the defaults the program's inputs will have (e.g. `adopt: false`). What Neon does
    // not return, or must not be written here (a secret, the webhook URL), is a placeholder in both
    // (placeholders.ts), as on the plugin: it passes the check, and the first preview takes the
    // program's value as the one Neon holds (resources/host.ts gives the diff the program's last one).
    const { inputs = read.inputs ?? read.props } = await h.check({}, read.inputs ?? read.props);
    const outputs = { ...read.props, ...inputs };
    // The provider the engine runs for this entry; a later `up` records the program's own.
    const provider = `exports.handler = () => require("pulumi-neon-auth/dist/resources/providers/${r.kind}.js");\n`;
    entries.push({
      type: `pulumi-nodejs:dynamic/${MODULE}:${r.kind}`,
      name: r.name,
      id: read.id ?? r.id,
      inputs: { ...secretsMarked(inputs), __provider: provider },
      outputs: { ...secretsMarked(outputs), __provider: provider },
    });
  }
  return entries;
}

/** The settings importFile reads: the options given, over the stack's configuration when a stack is named. */
async function importConfig(options: ImportFileOptions): Promise<Record<string, string | undefined>> {
  const config: Record<string, string | undefined> = {};
  if (options.stack !== undefined) {
    // Loaded only here: the Automation API runs the Pulumi CLI, which nothing else of this entry needs.
    const { LocalWorkspace } = require("@pulumi/pulumi/automation") as typeof import("@pulumi/pulumi/automation/index.js");
    const stack = await LocalWorkspace.selectStack({ stackName: options.stack, workDir: options.cwd ?? process.cwd() });
    for (const [name, { value }] of Object.entries(await stack.getAllConfig())) config[name] = value;
  }
  if (options.apiKey !== undefined) config[SETTING.stackKey] = options.apiKey;
  if (options.apiUrl !== undefined) config[SETTING.stackUrl] = options.apiUrl;
  return config;
}

/** Pulumi's secret envelope around secret fields and the settings that hold one (webhooks), so that state keeps them encrypted. */
function secretsMarked(props: Props): Props {
  return Object.fromEntries(
    Object.entries(props).map(([k, v]) => [
      k,
      SECRET_FIELDS.has(k.toLowerCase()) || collectSecrets(v).length > 0 ? { [SIG]: SECRET, plaintext: JSON.stringify(v) } : v,
    ]),
  );
}

/**
 * For the recovery from a killed `up`: the import file of this package's pending creates (from
 * `pulumi stack export`) that the dead run did make, found at Neon by their natural ids. Imported
 * (`pulumi import --file`, after `pulumi refresh --clear-pending-creates`), they are this stack's
 * again, which a new create could not tell from objects made by someone else; the ones the dead
 * run never sent are left out, and the next `up` makes them. An OAuth client is found by its name.
 * Kinds that cannot be imported or have no natural key (users, key sets, transfers, the
 * project-level integration) are left out too. (Pulumi 3.259's
 * `refresh --import-pending-creates` drops a dynamic resource's pending create instead of
 * importing it, hence a file.) The README's troubleshooting section shows the whole recovery.
 */
export async function pendingImportFile(
  stackExport: { deployment?: { pending_operations?: unknown[] } },
  options: ImportFileOptions = {},
): Promise<ImportFile | PluginImportFile> {
  // Either face: the classes' types, or the plugin's (whose file needs type, name and id only).
  const faces = [`pulumi-nodejs:dynamic/${MODULE}:`, `${PACKAGE}:index:`];
  const pending: { kind: ImportableKind; name: string; inputs: Props; onPlugin: boolean }[] = [];
  for (const op of stackExport.deployment?.pending_operations ?? []) {
    const { type, resource } = op as { type?: string; resource?: { type?: string; urn?: string; inputs?: Props } };
    const prefix = faces.find((f) => resource?.type?.startsWith(f));
    if (type !== "creating" || prefix === undefined || resource?.urn === undefined) continue;
    const kind = resource.type!.slice(prefix.length) as ImportableKind;
    const decl = DECLARATIONS[kind];
    if (decl === undefined) continue;
    const onPlugin = prefix !== faces[0];
    const inputs = placed(upgraded(decl, onPlugin ? plain(resource.inputs ?? {}) : (resource.inputs ?? {})));
    if (!inputs.projectId) continue;
    pending.push({ kind, name: resource.urn.split("::").pop()!, inputs, onPlugin });
  }
  const file: { resources: (ImportFile["resources"][number] | PluginImportFile["resources"][number])[] } = { resources: [] };
  if (pending.length === 0) return file as ImportFile | PluginImportFile;
  // One context (one read of the stack's configuration, one client) for every pending create.
  return withImportContext(options, async (ctx) => {
    for (const { kind, name, inputs, onPlugin } of pending) {
      // Found by its natural key (an OAuth client by its name), where the kind has one.
      const id = await importableId(DECLARATIONS[kind], ctx, inputs);
      if (id === undefined) continue;
      try {
        // Read at Neon either way: only what the dead run did make is imported.
        const found = await entriesOf([{ kind, name, id }], ctx);
        file.resources.push(...(onPlugin ? found.map(() => ({ type: tokenOf(kind), name, id })) : found));
      } catch (err) {
        if (err instanceof NeonConfigError && err.message.endsWith("does not exist at Neon")) continue;
        throw err;
      }
    }
    return file as ImportFile | PluginImportFile;
  });
}

// ---- a whole branch ------------------------------------------------------------------------

/*
 * "Adopt this existing branch" in two commands, in any language: the import file of everything a
 * branch's Neon Auth holds that can be imported, named after what each is. Users are left out: the
 * API cannot read one (README, Limits).
 */

export interface BranchImportOptions extends ImportFileOptions {
  /** `plugin` (default): entries of type, name and id for the provider plugin; `dynamic`: with the state the dynamic resources need. */
  for?: "plugin" | "dynamic";
  /** Told of each object the branch holds that the package cannot manage, which the file leaves out. */
  leftOut?: (note: string) => void;
}

/** A plugin import file: the engine reads each object by its id. */
export interface PluginImportFile {
  resources: { type: string; name: string; id: string }[];
}

/** A resource name from what an object is called at Neon (`https://app.example.com` → `app-example-com`). */
function nameOf(prefix: string, label: string): string {
  const slug = label
    .replace(/^[a-z]+:\/\//i, "")
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .toLowerCase();
  return `${prefix}-${slug || "x"}`;
}

/** What the branch holds, as resources to import, read with GET requests only. */
async function branchResources(ctx: Context, projectId: string, branchId: string, leftOut: (note: string) => void = () => {}): Promise<ImportResource[]> {
  const scope = { projectId, branchId };
  const auth = await calls("NeonAuth", ctx).read(`${projectId}/${branchId}`, {});
  if (auth.props === undefined) throw new NeonConfigError(`branch ${branchId} of project ${projectId} has no Neon Auth to import`);
  const api = generationOf(scope).calls(ctx, scope);
  const [domains, providers] = await Promise.all([api.domains.list(), api.oauthProviders.list()]);
  const clients = auth.props.oauthServer?.enabled === true ? await oauthClients(ctx, scope) : [];
  // Objects this package cannot manage (a provider id or a client type Neon added) are left out, said.
  const outside = "the package cannot manage it; it stays at Neon, outside the stack";
  for (const p of providers) if (!(BRANCH_OAUTH_PROVIDER_IDS as readonly string[]).includes(p.id)) leftOut(`left out OAuthProvider "${p.id}" (type ${p.type}): ${outside}`);
  for (const c of clients) if (!(OAUTH_CLIENT_TYPES as readonly string[]).includes(c.type)) leftOut(`left out OAuthClient "${c.name}" (type ${c.type}): ${outside}`);
  return [
    { kind: "NeonAuth", name: "auth", id: `${projectId}/${branchId}` },
    ...domains.map((d) => ({ kind: "RedirectDomain" as const, name: nameOf("domain", d.domain), id: childId(scope, d.domain) })),
    ...providers.filter((p) => (BRANCH_OAUTH_PROVIDER_IDS as readonly string[]).includes(p.id)).map((p) => ({ kind: "OAuthProvider" as const, name: p.id, id: childId(scope, p.id) })),
    { kind: "EmailServer", name: "email", id: childId(scope, "email-server") },
    ...clients.filter((c) => (OAUTH_CLIENT_TYPES as readonly string[]).includes(c.type)).map((c) => ({ kind: "OAuthClient" as const, name: nameOf("client", c.name), id: childId(scope, c.client_id) })),
  ];
}

/**
 * The import file of a branch's Neon Auth: `pulumi import --file <it>` takes the whole branch into
 * the stack, and (with Pulumi's language hosts) writes the program that declares it.
 *
 * @example
 * ```ts
 * fs.writeFileSync("import.json", JSON.stringify(await branchImportFile("p-123", "br-main", { stack: "dev" }), null, 2));
 * // then: pulumi import --file import.json
 * ```
 */
export async function branchImportFile(projectId: string, branchId: string, options: BranchImportOptions = {}): Promise<PluginImportFile | ImportFile> {
  // One context (one read of the stack's configuration, one client) for the listing and the entries.
  return withImportContext(options, async (ctx) => {
    const resources = await branchResources(ctx, projectId, branchId, options.leftOut);
    if (options.for === "dynamic") return { resources: await entriesOf(resources, ctx) };
    return { resources: resources.map((r) => ({ type: tokenOf(r.kind), name: r.name, id: r.id })) };
  });
}
