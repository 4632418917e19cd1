/**
 * The one place that knows there are two API generations: the project-level integration (Stack
 * Auth, `/projects/{id}/auth/...`) and today's branch-scoped Neon Auth (Better Auth,
 * `/projects/{id}/branches/{id}/auth/...`). A child's scope (its project, and branch for the
 * second) picks the generation once (`generationOf`); handlers then ask it for calls and facts and
 * never which generation they run on.
 */
import { isNotFound } from "../client";
import { OAUTH_PROVIDER_IDS, type AddDomainRequest, type AddOAuthProviderRequest, type EmailServer, type Integration, type OAuthProviderId, type UpdateEmailServerRequest, type UpdateOAuthProviderRequest } from "../schemas";
import { BRANCH_OAUTH_PROVIDER_IDS, BRANCH_SHARED_OAUTH_PROVIDER_IDS, type BranchAddOAuthProviderRequest, type BranchIntegration, type BranchOAuthProviderId } from "../schemas/branchAuth";
import { scopeKey, type Context } from "./context";
import { joinId, type Kind, type Props } from "./kit";

/** Where a child lives: the project, and the branch for the branch-scoped generation. */
export interface Scope {
  projectId: string;
  branchId?: string | undefined;
}

/** Where each generation keeps its users (read back through SQL, usersSync.ts), and how a row reads. */
export interface UserTable {
  name: string;
  select: string;
  live: string;
  newestFirst: string;
}

type Issues = { addIssue(issue: { code: "custom"; path: PropertyKey[]; message: string }): void };
type OAuthProviderRecord = { id: string; type: string; client_id?: string | undefined };

/** The calls of one generation in one scope, bound to a context. */
export interface Calls {
  /** Answers when the project (and branch) are visible to the key; throws the API's error otherwise. */
  see(): Promise<unknown>;
  /**
   * The integration of this provider in the scope: undefined only when the project (and branch)
   * answer and lack it; the API's 404 when they do not answer to this key.
   */
  integration(provider: string): Promise<Integration | undefined>;
  domains: {
    list(use?: "beforeCreate"): Promise<{ domain: string }[]>;
    add(body: { domain: string; auth_provider: string }): Promise<unknown>;
    /** Every removal goes through this one call (a client may batch them). */
    remove(authProvider: string, origin: string): Promise<unknown>;
  };
  oauthProviders: {
    list(): Promise<OAuthProviderRecord[]>;
    add(body: Props): Promise<{ type: string }>;
    update(id: string, body: Props): Promise<{ type: string }>;
    remove(id: string): Promise<unknown>;
  };
  emailServer: {
    get(): Promise<EmailServer>;
    set(body: UpdateEmailServerRequest): Promise<EmailServer>;
    /** Neon sends a test mail through the saved settings (branch-scoped API only). */
    test(recipient: string): Promise<{ success?: boolean | undefined; error_message?: string | undefined }>;
  };
  users: {
    create(body: { email: string; name?: string }, authProvider: string): Promise<{ id: string }>;
    remove(userId: string): Promise<unknown>;
    setRoles(userId: string, roles: string[]): Promise<unknown>;
  };
}

/** What differs between the generations, asked by the handlers. */
export interface Generation {
  /** Sign-in providers this generation offers, and those Neon has shared keys for. */
  readonly oauthProviderIds: readonly string[];
  readonly sharedOAuthProviderIds: readonly string[];
  /** Trusted domains may hold a wildcard (Neon documents them for a branch's only). */
  readonly wildcardDomains: boolean;
  /**
   * A provider the service made by itself on a new integration, which is nobody's (Neon enables
   * Google with its shared keys on every new Better Auth integration:
   * https://neon.com/docs/auth/guides/setup-oauth).
   */
  readonly neonDefault: ((p: { id: string; type?: string }) => boolean) | undefined;
  /** Whether reads return the SMTP password (the branch-scoped API answers it empty: write-only). */
  readonly readsSmtpPassword: boolean;
  readonly usersTable: UserTable;
  /** The auth base URL an app is wired with (a branch's `base_url`); undefined where the generation has none to give. */
  baseUrl(ctx: Context, s: Scope): Promise<string | undefined>;
  /** In words, when the scope has no integration. */
  readonly noIntegration: string;
  /** The id of a user: the bare user id at project level (as existing stacks have it). */
  userResourceId(s: Scope, userId: string): string;
  /** Outputs a new user has beside its inputs. */
  readonly newUserOutputs: Props;
  /** How a user is deleted by hand, for messages. */
  userDeletePath(s: Scope): string;
  /** Refuses in `check` what this generation lacks: `branchOnly` fields, or another auth provider. */
  rules(v: Props, issues: Issues, branchOnly: readonly string[]): void;
  calls(ctx: Context, s: Scope): Calls;
}

/** The path parameters of a branch scope. */
export const where = (s: Scope) => ({ project_id: s.projectId, branch_id: s.branchId! });

const PROJECT: Generation = {
  oauthProviderIds: OAUTH_PROVIDER_IDS,
  // Stack Auth offers shared development keys for each of its providers.
  sharedOAuthProviderIds: OAUTH_PROVIDER_IDS,
  wildcardDomains: false,
  neonDefault: undefined,
  readsSmtpPassword: true,
  usersTable: {
    name: "neon_auth.users_sync",
    select: "SELECT id, email, name, deleted_at IS NOT NULL AS deleted FROM neon_auth.users_sync",
    live: "deleted_at IS NULL",
    newestFirst: "created_at DESC",
  },
  // Neon documents no callback URL for its project-level (Stack Auth) providers.
  baseUrl: async () => undefined,
  noIntegration: "the project has no integration",
  userResourceId: (_s, userId) => userId,
  newUserOutputs: {},
  userDeletePath: (s) => `/projects/${s.projectId}/auth/users/<id>`,
  rules(v, issues, branchOnly) {
    for (const field of branchOnly) {
      if (v[field] !== undefined) {
        issues.addIssue({
          code: "custom",
          path: [field],
          message: "is accepted only with a NeonAuth integration (the branch-scoped API); the project-level AuthIntegration has no such setting",
        });
      }
    }
    if (v.authProvider !== undefined && v.authProvider !== "stack") {
      issues.addIssue({ code: "custom", path: ["integration", "authProvider"], message: 'must be "stack", the only auth provider of this API generation' });
    }
  },
  calls({ client: api, reads }, s) {
    const p = s.projectId;
    const integrations = () => reads.get(p, "integrations", () => api.listIntegrations(p));
    const provider = (x: string) => x as OAuthProviderId;
    return {
      see: integrations,
      integration: async (authProvider) => (await integrations()).find((i) => i.auth_provider === authProvider),
      domains: {
        list: (use) => reads.get(p, "domains", () => api.listDomains(p), use),
        add: (body) => api.addDomain(p, body as AddDomainRequest),
        remove: (authProvider, origin) => api.deleteDomains(p, { auth_provider: authProvider as "stack", domains: [{ domain: origin }] }),
      },
      oauthProviders: {
        list: () => reads.get(p, "oauth_providers", () => api.listOAuthProviders(p)),
        add: (body) => api.addOAuthProvider(p, body as AddOAuthProviderRequest),
        update: (x, body) => api.updateOAuthProvider(p, provider(x), body as UpdateOAuthProviderRequest),
        remove: (x) => api.deleteOAuthProvider(p, provider(x)),
      },
      emailServer: {
        get: () => api.getEmailServer(p),
        set: (body) => api.updateEmailServer(p, body),
        test: () => Promise.reject(new Error("the project-level API has no test mail")),
      },
      users: {
        create: (body, authProvider) => api.createUser({ project_id: p, auth_provider: authProvider as "stack", ...body }),
        remove: (userId) => api.deleteUser(p, userId),
        setRoles: () => Promise.reject(new Error("the project-level API has no roles")),
      },
    };
  },
};

const BRANCH: Generation = {
  oauthProviderIds: BRANCH_OAUTH_PROVIDER_IDS,
  sharedOAuthProviderIds: BRANCH_SHARED_OAUTH_PROVIDER_IDS,
  wildcardDomains: true,
  neonDefault: (p) => p.id === "google" && p.type === "shared",
  readsSmtpPassword: false,
  // Better Auth deletes a user's row; one address is one user (`email` is unique).
  usersTable: {
    name: 'neon_auth."user"',
    select: 'SELECT id::text AS id, email, name, false AS deleted, role, banned, "createdAt" FROM neon_auth."user"',
    live: "true",
    newestFirst: '"createdAt" DESC',
  },
  baseUrl: async (ctx, s) => (await branchAuth(ctx, s)).base_url,
  noIntegration: "the branch has no Neon Auth",
  userResourceId: (s, userId) => childId(s, userId),
  newUserOutputs: { banned: false },
  userDeletePath: (s) => `/projects/${s.projectId}/branches/${s.branchId}/auth/users/<id>`,
  rules: () => undefined,
  calls(ctx, s) {
    const { client: api, reads } = ctx;
    const b = api.branchAuth;
    const at = where(s);
    const scope = scopeKey(s);
    const plugins = () => branchPlugins(ctx, s);
    const user = (id: string) => ({ ...at, auth_user_id: id });
    const provider = (id: string) => ({ ...at, oauth_provider_id: id as BranchOAuthProviderId });
    const see = () => reads.get(scope, "branch", () => api.getBranch(s.projectId, s.branchId!));
    return {
      see,
      // A 404 is no auth on the branch only when the branch itself answers.
      integration: async () => {
        try {
          return await branchAuth(ctx, s);
        } catch (err) {
          if (!isNotFound(err)) throw err;
          await see();
          return undefined;
        }
      },
      domains: {
        list: (use) => reads.get(scope, "domains", () => b.listBranchDomains(at).then((r) => r.domains), use),
        add: (body) => b.addBranchDomain(at, body as Parameters<typeof b.addBranchDomain>[1]),
        remove: (authProvider, origin) => b.deleteBranchDomains(at, { auth_provider: authProvider as "better_auth", domains: [{ domain: origin }] }),
      },
      oauthProviders: {
        list: () => plugins().then((x) => x.oauth_providers),
        add: (body) => b.addBranchOAuthProvider(at, body as BranchAddOAuthProviderRequest),
        update: (id, body) => b.updateBranchOAuthProvider(provider(id), body),
        remove: (id) => b.deleteBranchOAuthProvider(provider(id)),
      },
      emailServer: {
        get: async () => (await plugins()).email_provider ?? (await b.getBranchEmailProvider(at)),
        set: (body) => b.updateBranchEmailProvider(at, body) as Promise<EmailServer>,
        test: (recipient) => b.testBranchEmailProvider(at, { recipient_email: recipient }),
      },
      users: {
        create: (body) => b.createBranchUser(at, body),
        remove: (userId) => b.deleteBranchUser(user(userId)),
        setRoles: (userId, roles) => b.setBranchUserRoles(user(userId), { roles }),
      },
    };
  },
};

/** The generation of a scope, from its props: a branch means the branch-scoped endpoints. */
export function generationOf(s: Scope | { branchId?: unknown }): Generation {
  return s.branchId !== undefined && s.branchId !== null ? BRANCH : PROJECT;
}

/**
 * Program side: where a child declared in this integration lives beyond its project, by the
 * integration's generation: a NeonAuth's branch. (A NeonAuth has `deleteDataOnDestroy`; an
 * AuthIntegration lacks it, which is also how the types tell them apart.)
 */
export function placeFromParent<B>(i: { branchId?: B; deleteDataOnDestroy?: unknown }): { branchId?: B } {
  return i.deleteDataOnDestroy !== undefined ? { branchId: i.branchId as B } : {};
}

/**
 * The branch's integration (`GET …/auth`), shared by all the branch's resources for a run; a 404
 * (no auth, or a branch this key cannot see) is thrown.
 */
export function branchAuth(ctx: Pick<Context, "client" | "reads">, s: Scope): Promise<BranchIntegration> {
  return ctx.reads.get(scopeKey(s), "auth", () => ctx.client.branchAuth.getBranchAuth(where(s)));
}

/**
 * A branch's aggregate settings (`GET …/auth/plugins`), one request per branch for a whole
 * refresh: NeonAuth, its OAuth providers and its email provider all read from it.
 */
export function branchPlugins(ctx: Pick<Context, "client" | "reads">, s: Scope) {
  return ctx.reads.get(scopeKey(s), "plugins", () => ctx.client.branchAuth.getBranchPlugins(where(s)));
}

/** Where a child lives, in words, for errors: `project p-1` or `branch br-1 of project p-1`. */
export function placeOf(s: Scope): string {
  return s.branchId === undefined ? `project ${s.projectId}` : `branch ${s.branchId} of project ${s.projectId}`;
}

/**
 * A child's id: `<projectId>/<...>` for the project-level generation (unchanged), and
 * `<projectId>/<branchId>/<...>` for a branch-scoped one.
 */
export function childId(s: Scope, ...rest: string[]): string {
  return joinId(s.projectId, ...(s.branchId === undefined ? [] : [s.branchId]), ...rest);
}

/**
 * Splits an id of `childId`. A branch id never holds `:` and a project-level id has only two
 * parts unless its key is an origin (`https://...`), so three parts with no `:` in the second
 * are a branch's.
 */
export function splitChildId(kind: Kind, id: string, key: string): Scope & { key: string } {
  const parts = id.split("/");
  const branch = parts.length >= 3 && parts[1] !== "" && !parts[1]!.includes(":");
  const n = branch ? 3 : 2;
  if (parts.length < n || parts.slice(0, n).some((p) => p === "")) {
    throw new Error(`${kind} id "${id}" is not of the form <projectId>/${key} or <projectId>/<branchId>/${key}`);
  }
  return { projectId: parts[0]!, ...(branch ? { branchId: parts[1]! } : {}), key: parts.slice(n - 1).join("/") };
}
