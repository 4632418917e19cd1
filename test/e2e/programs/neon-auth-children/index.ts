import * as pulumi from "@pulumi/pulumi";
import { AuthUser, EmailServer, NeonAuth, OAuthClient, OAuthProvider, RedirectDomain } from "pulumi-neon-auth";

interface Args {
  projectId: string;
  branchId: string;
  settings?: Record<string, unknown>;
  domains: string[];
  oauth: { name: string; providerId: "google" | "github" | "microsoft" | "vercel"; clientId?: string; clientSecret?: string; microsoftTenantId?: string }[];
  /** `secretEmail`: the program wraps the address in pulumi.secret. */
  users: { name: string; email: string; displayName?: string; roles?: string[]; recreateOnChange?: boolean; secretEmail?: boolean }[];
  /** `<projectId>/<branchId>/<email>` of a user to look up (not managed). */
  lookupUser?: string;
  /** Declare no EmailServer at all (otherwise a shared one when `smtp` is absent). */
  noEmail?: boolean;
  smtp?: { host: string; port: number; username: string; password: string; senderEmail: string; senderName: string; testRecipient?: string };
  /** Clients of the OAuth server (the settings must enable it). */
  oauthClients?: { name: string; type: "confidential" | "public"; redirectUris: string[]; disabled?: boolean }[];
}

// Secrets (client secrets, the SMTP password, the webhook URL) arrive in `args` and are passed
// as plain values: the constructors make them secrets.
const args = new pulumi.Config().requireObject<Args>("args");
const auth = new NeonAuth("auth", { projectId: args.projectId, branchId: args.branchId, ...(args.settings as object) });
for (const [i, domain] of args.domains.entries()) new RedirectDomain(`domain-${i}`, { integration: auth, domain });
for (const o of args.oauth) {
  const { name, ...rest } = o;
  new OAuthProvider(name, { integration: auth, ...rest });
}
const users = args.users.map(
  (u) =>
    new AuthUser(u.name, {
      integration: auth,
      email: u.secretEmail ? pulumi.secret(u.email) : u.email,
      name: u.displayName,
      roles: u.roles,
      recreateOnChange: u.recreateOnChange,
    }),
);
if (args.smtp !== undefined) {
  new EmailServer("smtp", { integration: auth, type: "standard", ...args.smtp });
} else if (!args.noEmail) {
  new EmailServer("smtp", { integration: auth, type: "shared" });
}

const clients = (args.oauthClients ?? []).map((c) => new OAuthClient(c.name, { integration: auth, ...c }));

export const authId = auth.id;
export const clientIds = clients.map((c) => c.clientId);
const found = args.lookupUser === undefined ? undefined : AuthUser.get("found", args.lookupUser);
export const foundUser = found && pulumi.all([found.userId, found.email, found.branchId]).apply(([id, email, branchId]) => ({ id, email, branchId }));
export const userIds = users.map((u) => u.id);
