import * as pulumi from "@pulumi/pulumi";
import { EmailServer, NeonAuth, OAuthProvider, RedirectDomain } from "pulumi-neon-auth";

// Each Neon branch has its own Neon Auth: its own users, settings and keys. So one stack per
// branch: `prod` on the default branch (Pulumi.prod.yaml), and a stack per preview environment
// on a branch that the pipeline creates for a pull request (see README.md).
const cfg = new pulumi.Config();
const production = cfg.getBoolean("production") ?? false;
const appOrigin = cfg.get("appOrigin") ?? `https://${pulumi.getStack()}.preview.example.com`;
const smtp = cfg.getObject<{ host: string; port: number; username: string; senderEmail: string; senderName: string }>("smtp");

const auth = new NeonAuth(
  "auth",
  {
    projectId: cfg.require("projectId"),
    branchId: cfg.require("branchId"),
    appName: production ? "Acme" : `Acme (${pulumi.getStack()})`,
    // Developers run the app locally against a preview branch; production never allows it.
    allowLocalhost: !production,
    emailAndPassword: { enabled: true, requireEmailVerification: production },
    // A preview branch is made from production, and Neon Auth branches with the database: the
    // preview's branch already has production's auth, users and providers. The preview stack takes
    // that copy over (and what it declares in it) and makes it the preview's; production never
    // takes over auth it did not make.
    adopt: !production,
    // A preview branch is deleted with its pull request: its copy of the users may go with the stack.
    // Production keeps its users when Neon Auth is ever disabled.
    deleteDataOnDestroy: !production,
  },
  // Production's integration is never deleted or replaced by accident (the policy pack asks for it).
  { protect: production },
);

new RedirectDomain("app", { integration: auth, domain: appOrigin });

// Preview environments sign in through Neon's shared Google keys; production through its own app.
new OAuthProvider(
  "google",
  production
    ? { integration: auth, providerId: "google", clientId: cfg.require("googleClientId"), clientSecret: cfg.requireSecret("googleClientSecret") }
    : { integration: auth, providerId: "google" },
);

new EmailServer(
  "email",
  smtp === undefined
    ? { integration: auth, type: "shared" }
    : { integration: auth, type: "standard", ...smtp, password: cfg.requireSecret("smtpPassword") },
);

export const environment = pulumi.getStack();
export const jwksUrl = auth.jwksUrl;
// What the app needs: Neon's Next.js guide reads the auth URL from NEON_AUTH_BASE_URL.
export const NEON_AUTH_BASE_URL = auth.baseUrl;
