import * as pulumi from "@pulumi/pulumi";
import { NeonAuth, OAuthProvider, RedirectDomain } from "pulumi-neon-auth";

// Written as a user writes it with the type check skipped (PULUMI_NODEJS_TRANSPILE_ONLY, as the
// README suggests for pipelines): the typos below are what the type check would have caught.
const cfg = new pulumi.Config();
const projectId = cfg.require("projectId");
const branchId = cfg.require("branchId");

switch (cfg.require("scenario")) {
  case "quick": {
    const auth = new NeonAuth("auth", { projectId, branchId });
    new RedirectDomain("app", { integration: auth, domain: "https://app.example.com" });
    break;
  }
  case "nested-typo":
    // @ts-expect-error the typo under test: the repository's type check sees it, the program's run does not
    new NeonAuth("auth", { projectId, branchId, magicLink: { enabled: true, expiresin: 30 } });
    break;
  case "origin": {
    const auth = new NeonAuth("auth", { projectId, branchId });
    new RedirectDomain("app", { integration: auth, domain: "app.example.com" });
    break;
  }
  case "children": {
    const auth = new NeonAuth("auth", { projectId, branchId });
    new RedirectDomain("app", { integration: auth, domain: "https://app.example.com" });
    new OAuthProvider("google", { integration: auth, providerId: "google" });
    break;
  }
  case "three-branches":
    for (const b of ["br-one", "br-two", "br-three"]) new NeonAuth(b, { projectId, branchId: b });
    break;
}
