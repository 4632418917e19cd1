import * as pulumi from "@pulumi/pulumi";
import { NeonAuth } from "pulumi-neon-auth";

const cfg = new pulumi.Config();

// Neon Auth of one branch. Every setting below is optional: a setting (or a field of one) the
// program leaves out is left as Neon has it, and never shows as drift.
const auth = new NeonAuth("auth", {
  projectId: cfg.require("projectId"),
  branchId: cfg.require("branchId"),
  appName: cfg.get("appName") ?? "Acme",
  // Neon's production checklist: no sign-in from localhost.
  allowLocalhost: cfg.getBoolean("allowLocalhost") ?? false,
  emailAndPassword: {
    enabled: true,
    emailVerificationMethod: "link",
    requireEmailVerification: true,
    autoSignInAfterVerification: true,
    sendVerificationEmailOnSignUp: true,
    sendVerificationEmailOnSignIn: false,
    disableSignUp: false,
  },
  organization: { enabled: true, organizationLimit: 5, membershipLimit: 50, creatorRole: "owner", sendInvitationEmail: true },
  magicLink: { enabled: true, expiresIn: 15, disableSignUp: true },
  phoneNumber: { enabled: true, otpExpiresIn: 300 },
  // Replaced whole on every change: fields left out are reset by Neon (no URL, no events, 5 s).
  webhooks: pulumi.secret({
    enabled: true,
    webhookUrl: cfg.get("webhookUrl") ?? "https://hooks.example.com/neon-auth",
    enabledEvents: ["user.created", "send.otp", "send.magic_link"],
    timeoutSeconds: 5,
  }),
  // Destroy keeps the branch's users unless this is true.
  deleteDataOnDestroy: false,
});

export const jwksUrl = auth.jwksUrl;
export const authBaseUrl = auth.baseUrl;
