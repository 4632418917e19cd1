import * as pulumi from "@pulumi/pulumi";
import { EmailServer, NeonAuth, RedirectDomain } from "pulumi-neon-auth";

const cfg = new pulumi.Config();
const projectId = cfg.require("projectId");
const branchId = cfg.require("branchId");
/** Another stack's NeonAuth on this branch, looked up rather than made. */
const lookup = cfg.getBoolean("lookup") ?? false;
/** Trusted domains, one resource each (`domain-0`, `domain-1`, …), spelled as given. */
const domains = cfg.getObject<string[]>("domains") ?? [];
/** SMTP hosts, one EmailServer each (`email-0`, …). */
const smtpHosts = cfg.getObject<string[]>("smtpHosts") ?? [];

const auth = lookup ? NeonAuth.get("auth", `${projectId}/${branchId}`) : new NeonAuth("auth", { projectId, branchId, appName: "One owner" });

domains.forEach((domain, i) => new RedirectDomain(`domain-${i}`, { integration: auth, domain }));
smtpHosts.forEach(
  (host, i) =>
    new EmailServer(`email-${i}`, {
      integration: auth,
      type: "standard",
      host,
      port: 587,
      username: "mailer",
      password: cfg.requireSecret("smtpPassword"),
      senderEmail: "auth@example.com",
      senderName: "One owner",
    }),
);
