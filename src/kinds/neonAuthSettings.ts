/**
 * The settings of a NeonAuth: each one a property, each sent by its own endpoint and read back
 * from the aggregate `GET …/auth/plugins` where it has them. The app name and allow-localhost are
 * written here; the others are the rows of `BRANCH_SETTINGS` (schemas/endpointsBranch.ts). Only
 * the settings and fields a program names are managed.
 */
import { z } from "zod";
import * as s from "../schemas";
import { programName } from "../schemas/fields";
import type { Context } from "../provider/context";
import { branchPlugins } from "../provider/generation";

export { where } from "../provider/generation";
import { compact, type Props } from "../provider/kit";

const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** A wire schema's fields under their program names (camelCase, nested objects too), optional as on the wire. */
function programShape(shape: Record<string, z.ZodType>): z.ZodObject {
  return z.strictObject(Object.fromEntries(Object.entries(shape).map(([k, v]) => [programName(k), programField(v)])));
}
function programField(v: z.ZodType): z.ZodType {
  if (v instanceof z.ZodOptional) return describedAs(programField(v.unwrap() as z.ZodType).optional(), v);
  return v instanceof z.ZodObject ? describedAs(programShape(v.shape), v) : v;
}
/** A rule made anew keeps the words of the wire rule it stands for (the published types and schema show them). */
const describedAs = (rule: z.ZodType, wire: z.ZodType) => (wire.description === undefined ? rule : rule.describe(wire.description));
/** Keys of plain objects renamed all the way down (arrays and values as they are). */
function renamed(value: unknown, name: (k: string) => string): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [name(k), renamed(v, name)]));
}
const toWire = (o: Props) => renamed(o, snake) as Props;

export type Area = s.BranchSettingName;

/** Each setting's input rule, from its row in the table (`BRANCH_SETTINGS`). */
export const AREAS = Object.fromEntries(s.BRANCH_SETTINGS.map((row) => [row.name, programShape(row.write.request.shape)])) as Record<Area, z.ZodObject>;
const ROWS = new Map<string, s.BranchSetting>(s.BRANCH_SETTINGS.map((row) => [row.name, row]));

export const SETTINGS = ["appName", "allowLocalhost", ...s.BRANCH_SETTINGS.map((row) => row.name)] as const;
export type Setting = (typeof SETTINGS)[number];

/** Every field of a program shape, nested objects field by field (what this package knows of them). */
export function everyField(shape: Record<string, z.ZodType>): Props {
  return Object.fromEntries(
    Object.entries(shape).map(([k, v]) => {
      const inner = v instanceof z.ZodOptional ? v.unwrap() : v;
      return [k, inner instanceof z.ZodObject ? everyField(inner.shape) : true];
    }),
  );
}

/** Every setting and every field of each, as `liveSettings` takes what it should read. */
export const EVERY_SETTING: Props = { appName: true, allowLocalhost: true, ...Object.fromEntries(Object.entries(AREAS).map(([k, v]) => [k, everyField(v.shape)])) };

export type Where = { project_id: string; branch_id: string };

/** Sends one setting: its row's PATCH of the fields given, or PUT of the whole setting. */
export async function write(ctx: Context, p: Where, area: Setting, value: any): Promise<void> {
  const b = ctx.client.branchAuth;
  if (area === "appName") return void (await b.updateBranchAppName(p, { name: value }));
  if (area === "allowLocalhost") return void (await b.updateBranchAllowLocalhost(p, { allow_localhost: value }));
  const row = ROWS.get(area)!;
  await ctx.client.request(row.write, p, await keptWhole(ctx, p, row, toWire(value)));
}

/**
 * The body with each object Neon replaces whole completed from the live one: a field the program
 * does not name (one set in the console, or one a newer Neon added) is sent back as it is, never
 * switched off by omission. Read only when the body holds such an object.
 */
async function keptWhole(ctx: Context, p: Where, row: s.BranchSetting, body: Props): Promise<Props> {
  const whole = (row.replacedWhole ?? []).filter((k) => body[k] !== undefined);
  if (whole.length === 0) return body;
  const live = (row.aggregated ? (await branchPlugins(ctx, { projectId: p.project_id, branchId: p.branch_id }))[row.key as keyof s.PluginConfigs] : await ctx.client.request(row.read!, p)) as Props | undefined;
  return { ...body, ...Object.fromEntries(whole.map((k) => [k, { ...(live?.[k] as Props | undefined), ...body[k] }])) };
}

/**
 * "The plugin can only be enabled on the project's root branch" (Neon's reference,
 * update-neon-auth-o-auth-provider-plugin): asked before anything is written, so that a program
 * enabling the OAuth server on a preview branch fails whole instead of leaving Neon Auth enabled
 * without it. A root branch is one with no parent.
 */
export async function refuseOAuthServerOffRoot(ctx: Context, p: Where, settings: Props): Promise<void> {
  if (settings.oauthServer?.enabled !== true) return;
  const branch = await ctx.client.getBranch(p.project_id, p.branch_id);
  if (branch.parent_id === undefined) return;
  throw new Error(
    `NeonAuth oauthServer.enabled: Neon enables the OAuth server on the project's root branch only, and branch ${p.branch_id} ` +
      `was made from ${branch.parent_id}. Enable it on the root branch (a branch made from it gets a copy), or leave oauthServer out here. Nothing was changed.`,
  );
}

/** The live values of the fields `managed` names, and only those: the rest is not ours. */
function pick(live: Props | undefined, managed: Props | undefined): Props | undefined {
  if (managed === undefined) return undefined;
  // A field the service no longer has (a webhook URL reset by a PUT) is absent: state holds no undefined.
  // Into nested objects too (the OAuth server's `mcp`): a field Neon added, or one set in the
  // console that the program does not name, is not this stack's and never shows as drift.
  const field = (k: string) => {
    const value = live?.[snake(k)];
    return isObject(managed[k]) && isObject(value) ? pick(value, managed[k]) : renamed(value, programName);
  };
  return compact(Object.fromEntries(Object.keys(managed).map((k) => [k, field(k)])));
}

const isObject = (v: unknown): v is Props => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The live settings the recorded props manage. One aggregate read for the plugins; the app name
 * comes with the integration, and a setting the aggregate lacks is read by its own GET only when
 * managed.
 */
export async function liveSettings(ctx: Context, p: Where, record: s.BranchIntegration, props: Props): Promise<Props> {
  const plugins = (await branchPlugins(ctx, { projectId: p.project_id, branchId: p.branch_id })) as Props;
  const live: Props = {
    appName: props.appName === undefined ? undefined : record.name,
    allowLocalhost: props.allowLocalhost === undefined ? undefined : plugins.allow_localhost,
  };
  for (const row of s.BRANCH_SETTINGS) {
    const managed = props[row.name];
    if (managed === undefined) continue;
    // Not set in the aggregate (`null`, or left out): its own read, where it has one, says what holds.
    const read = (row as s.BranchSetting).read;
    const value = (row.aggregated ? plugins[row.key] : undefined) ?? (read === undefined ? undefined : await ctx.client.request(read, p));
    live[row.name] = pick(value as Props | undefined, managed);
  }
  return compact(live);
}
