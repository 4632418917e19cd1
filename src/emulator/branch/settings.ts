/**
 * The singleton settings of a branch's integration: email provider (and its tests), email and
 * password, allow-localhost, the plugins (with the aggregate read) and webhooks.
 */
import { SMTP_FIELDS } from "../../schemas/branchAuth";
import type { AnyEndpoint } from "../../schemas/endpoint";
import { branchEndpoints as B, BRANCH_SETTINGS } from "../../schemas/endpointsBranch";
import { branchAuth, route, setField, type AuthBranchRec, type BranchAuthRec, type EmailProviderRec } from "./kit";
import { oauthView } from "./oauth";
import { HttpError, type ApiRoute } from "../core/http";

/** The SMTP password is write-only: every read answers it empty. */
function emailView(e: EmailProviderRec) {
  return e.type === "standard" ? { ...e, password: "" } : { ...e };
}

type EmailUpdate = { type: "shared"; sender_email?: string | undefined; sender_name?: string | undefined } | ({ type: "standard" } & Partial<Record<(typeof SMTP_FIELDS)[number], string | number | undefined>>);

/** Better Auth merges a partial standard update into saved SMTP settings; stack needs all six fields. */
function mergeEmail(auth: BranchAuthRec, req: EmailUpdate): EmailProviderRec {
  if (req.type === "shared") {
    const next: EmailProviderRec = { type: "shared" };
    if (req.sender_email !== undefined) next.sender_email = req.sender_email;
    if (req.sender_name !== undefined) next.sender_name = req.sender_name;
    return next;
  }
  const saved = auth.auth_provider !== "stack" && auth.email_provider.type === "standard" ? auth.email_provider : undefined;
  const merged: Record<string, unknown> = { type: "standard" };
  const missing: string[] = [];
  for (const f of SMTP_FIELDS) {
    const v = req[f] ?? saved?.[f];
    if (v === undefined) missing.push(f);
    else merged[f] = v;
  }
  if (missing.length > 0) {
    const why = auth.auth_provider === "stack" ? "a stack integration needs all six SMTP fields" : "switching to standard SMTP needs all six fields";
    throw new HttpError(400, missing.map((f) => `${f}: is required (${why})`).join("; "));
  }
  return merged as EmailProviderRec;
}

function testResult(b: { email_test?: { success: boolean; error_message?: string } }) {
  const t = b.email_test ?? { success: true };
  return t.success ? { success: true } : { success: false, error_message: t.error_message ?? "SMTP test failed" };
}

type Key = (typeof BRANCH_SETTINGS)[number]["key"];

/** A setting's own GET: the whole setting. */
function readRoute<E extends AnyEndpoint>(e: E, key: Key): ApiRoute {
  return route(e, (ctx, { params }) => ({ body: branchAuth(ctx, params as unknown as { branch_id: string }).auth[key] }));
}

/** The service's rules of a setting beyond "a PATCH merges the fields given", checked before it changes. */
const RULES: Partial<Record<Key, (branch: AuthBranchRec & { parent_id?: string }, given: Record<string, unknown>) => void>> = {
  // Neon's guide asks for the login and consent pages on the branch's trusted domains as a
  // prerequisite of the flow; whether the PATCH refuses others is undocumented, so it does not here.
  oauth_server: (branch, given) => {
    // "The plugin can only be enabled on the project's root branch" (updateNeonAuthOAuthProviderPlugin):
    // the root is the branch made with the project, the one without a parent. A child that
    // inherited it enabled may still change it (assumption), and the message is an assumption.
    if (given.enabled === true && branch.parent_id !== undefined) throw new HttpError(400, "enabled: the OAuth provider plugin can only be enabled on the project's root branch");
  },
};

/** A PATCH that changes only the fields it gives and answers the whole setting. */
function mergeRoute<E extends AnyEndpoint>(e: E, key: Key): ApiRoute {
  return route(e, (ctx, { params, body }) => {
    const { auth, branch } = branchAuth(ctx, params as unknown as { branch_id: string });
    const given = Object.fromEntries(Object.entries(body as unknown as object).filter(([, v]) => v !== undefined));
    const next = { ...auth[key], ...given };
    RULES[key]?.(branch, given);
    Object.assign(auth, { [key]: next });
    return { body: auth[key] };
  });
}

/** Each setting of the table: its own GET if it has one, and its PATCH (a PUT has rules of its own, below). */
const tableRoutes: ApiRoute[] = BRANCH_SETTINGS.flatMap((row) => [
  ...("read" in row ? [readRoute(row.read, row.key)] : []),
  ...(row.write.method === "PATCH" ? [mergeRoute(row.write, row.key)] : []),
]);

export const branchSettingsRoutes: ApiRoute[] = [
  route(B.getBranchEmailProvider, (ctx, { params }) => ({ body: emailView(branchAuth(ctx, params).auth.email_provider) })),
  route(B.updateBranchEmailProvider, (ctx, { params, body }) => {
    const { auth } = branchAuth(ctx, params);
    auth.email_provider = mergeEmail(auth, body);
    return { body: emailView(auth.email_provider) };
  }),
  route(B.testBranchEmailProvider, (ctx, { params }) => {
    const { auth, branch } = branchAuth(ctx, params);
    if (auth.auth_provider !== "better_auth") throw new HttpError(400, "the email provider test needs a better_auth integration");
    if (auth.email_provider.type !== "standard") throw new HttpError(400, "the email provider test needs a saved standard (SMTP) email provider");
    return { body: testResult(branch) };
  }),
  route(B.sendBranchTestEmail, (ctx, { params }) => ({ body: testResult(branchAuth(ctx, params).branch) })),

  route(B.getBranchAllowLocalhost, (ctx, { params }) => ({ body: { allow_localhost: branchAuth(ctx, params).auth.allow_localhost } })),
  setField(B.updateBranchAllowLocalhost, "allow_localhost"),

  route(B.getBranchPlugins, (ctx, { params }) => {
    const { auth } = branchAuth(ctx, params);
    return {
      body: {
        ...Object.fromEntries(BRANCH_SETTINGS.filter((row) => row.aggregated).map((row) => [row.key, auth[row.key]])),
        email_provider: emailView(auth.email_provider),
        oauth_providers: auth.oauth_providers.map((o) => oauthView(o, false)),
        allow_localhost: auth.allow_localhost,
      },
    };
  }),
  ...tableRoutes,
  route(B.putBranchWebhooks, (ctx, { params, body }) => {
    const { auth } = branchAuth(ctx, params);
    if (body.enabled && body.webhook_url === undefined) throw new HttpError(400, "webhook_url: is required when enabled is true");
    // A full replace: what the request leaves out is reset, not kept.
    auth.webhooks = {
      enabled: body.enabled,
      ...(body.webhook_url === undefined ? {} : { webhook_url: body.webhook_url }),
      enabled_events: [...new Set(body.enabled_events ?? [])],
      timeout_seconds: body.timeout_seconds ?? 5,
    };
    return { body: auth.webhooks };
  }),
];

