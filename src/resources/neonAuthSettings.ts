/**
 * The settings of a NeonAuth: each one a property, each sent by its own endpoint and read back
 * from the aggregate `GET …/auth/plugins` (webhooks and the app name excepted: plugins carries
 * neither). Only the settings and fields a program names are managed.
 */
import { z } from "zod";
import * as s from "../schemas";
import type { Context } from "./context";
import { branchPlugins } from "./generation";
import { compact, type Props } from "./kit";

const camel = (k: string) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** A wire schema's fields under their program names (camelCase); every field optional. */
function programShape(shape: Record<string, z.ZodType>) {
  return z.strictObject(Object.fromEntries(Object.entries(shape).map(([k, v]) => [camel(k), v.optional()])));
}
const toWire = (o: Props) => Object.fromEntries(Object.entries(o).map(([k, v]) => [snake(k), v]));

/**
 * The singleton settings: each one a property, each sent by its own endpoint and read back from
 * the aggregate `GET …/auth/plugins` (webhooks and the app name excepted: plugins carries neither).
 */
export const AREAS = {
  emailAndPassword: programShape(s.updateEmailAndPasswordRequest.shape),
  organization: programShape(s.updateOrganizationPluginRequest.shape),
  magicLink: programShape(s.updateMagicLinkPluginRequest.shape),
  phoneNumber: programShape(s.updatePhoneNumberPluginRequest.shape),
  webhooks: programShape(s.putWebhooksRequest.shape).required({ enabled: true }),
};
export type Area = keyof typeof AREAS;

export const SETTINGS = ["appName", "allowLocalhost", ...(Object.keys(AREAS) as Area[])] as const;
export type Setting = (typeof SETTINGS)[number];

/** Every setting and every field of each, as `liveSettings` takes what it should read. */
export const EVERY_SETTING: Props = {
  appName: true,
  allowLocalhost: true,
  ...Object.fromEntries(Object.entries(AREAS).map(([k, v]) => [k, Object.fromEntries(Object.keys(v.shape).map((f) => [f, true]))])),
};

export type Where = { project_id: string; branch_id: string };
export const where = (i: { projectId: string; branchId: string }): Where => ({ project_id: i.projectId, branch_id: i.branchId });

/** Sends one setting area: PATCH of the fields given, or for webhooks a PUT of the whole config. */
export async function write(ctx: Context, p: Where, area: Setting, value: any): Promise<void> {
  const b = ctx.client.branchAuth;
  switch (area) {
    case "appName": return void (await b.updateBranchAppName(p, { name: value }));
    case "allowLocalhost": return void (await b.updateBranchAllowLocalhost(p, { allow_localhost: value }));
    case "emailAndPassword": return void (await b.updateBranchEmailAndPassword(p, toWire(value)));
    case "organization": return void (await b.updateBranchOrganizationPlugin(p, toWire(value)));
    case "magicLink": return void (await b.updateBranchMagicLinkPlugin(p, toWire(value)));
    case "phoneNumber": return void (await b.updateBranchPhoneNumberPlugin(p, toWire(value)));
    case "webhooks": return void (await b.putBranchWebhooks(p, toWire(value) as s.PutWebhooksRequest));
  }
}

/** The live values of the fields `managed` names, and only those: the rest is not ours. */
function pick(live: Props | undefined, managed: Props | undefined): Props | undefined {
  if (managed === undefined) return undefined;
  // A field the service no longer has (a webhook URL reset by a PUT) is absent: state holds no undefined.
  return compact(Object.fromEntries(Object.keys(managed).map((k) => [k, live?.[snake(k)]])));
}

/**
 * The live settings the recorded props manage. One aggregate read for the plugins; the app name
 * comes with the integration, and webhooks are read only when managed.
 */
export async function liveSettings(ctx: Context, p: Where, record: s.BranchIntegration, props: Props): Promise<Props> {
  const plugins = await branchPlugins(ctx, { projectId: p.project_id, branchId: p.branch_id });
  const hooks = props.webhooks === undefined ? undefined : await ctx.client.branchAuth.getBranchWebhooks(p);
  return compact({
    appName: props.appName === undefined ? undefined : record.name,
    allowLocalhost: props.allowLocalhost === undefined ? undefined : plugins.allow_localhost,
    emailAndPassword: pick(plugins.email_and_password, props.emailAndPassword),
    organization: pick(plugins.organization, props.organization),
    magicLink: pick(plugins.magic_link, props.magicLink),
    phoneNumber: pick(plugins.phone_number, props.phoneNumber),
    webhooks: pick(hooks, props.webhooks),
  });
}

