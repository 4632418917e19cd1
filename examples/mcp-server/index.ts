import * as pulumi from "@pulumi/pulumi";
import { NeonAuth, OAuthClient, RedirectDomain } from "pulumi-neon-auth";

const cfg = new pulumi.Config();
// Where the sign-in and consent pages live (you host both), and the MCP server they protect.
const app = cfg.get("appOrigin") ?? "https://app.example.com";
const mcp = cfg.get("mcpResource") ?? "https://mcp.example.com/mcp";

// Neon enables the OAuth server on the project's root branch only.
const auth = new NeonAuth("auth", {
  projectId: cfg.require("projectId"),
  branchId: cfg.require("branchId"),
  // The CLI below signs in through a loopback redirect.
  allowLocalhost: true,
  oauthServer: {
    enabled: true,
    loginPage: `${app}/sign-in`,
    consentPage: `${app}/consent`,
    mcp: { resource: mcp },
    resources: [mcp],
  },
});

// The pages must be on the branch's trusted domains: this program declares them, so a page off
// them fails at preview.
new RedirectDomain("app", { integration: auth, domain: cfg.get("trustedDomain") ?? app });

// A server-side client with a secret; change `rotation` to rotate the secret in place.
const server = new OAuthClient("mcp-server", {
  integration: auth,
  name: "Acme MCP gateway",
  type: "confidential",
  redirectUris: cfg.getObject<string[]>("serverRedirectUris") ?? [`${app}/oauth/callback`],
  resources: [mcp],
  rotationTrigger: cfg.get("rotation"),
});

// A public client (no secret): a command-line tool that signs in through the browser.
const cli = new OAuthClient("mcp-cli", {
  integration: auth,
  name: "Acme CLI",
  type: "public",
  redirectUris: ["http://127.0.0.1:8976/callback"],
  resources: cfg.getObject<string[]>("cliResources") ?? [mcp],
});

export const serverClientId = server.clientId;
export const serverClientSecret = server.clientSecret;
export const cliClientId = cli.clientId;
