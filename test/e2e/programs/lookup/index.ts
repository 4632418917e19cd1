import * as pulumi from "@pulumi/pulumi";
import * as neon from "pulumi-neon-auth";

type Lookup = { kind: "AuthIntegration" | "OAuthProvider" | "RedirectDomain" | "EmailServer"; id: string };
const lookups = new pulumi.Config().requireObject<Lookup[]>("lookups");

// What each looked-up object tells a program, by kind.
export const found = lookups.map(({ kind, id }, i) => {
  const name = `${kind}-${i}`;
  switch (kind) {
    case "AuthIntegration": {
      const r = neon.AuthIntegration.get(name, id);
      return { kind, id: r.id, branchId: r.branchId, dbName: r.dbName, ownedBy: r.ownedBy };
    }
    case "OAuthProvider": {
      const r = neon.OAuthProvider.get(name, id);
      return { kind, id: r.id, providerId: r.providerId, type: r.type, clientId: r.clientId };
    }
    case "RedirectDomain": {
      const r = neon.RedirectDomain.get(name, id);
      return { kind, id: r.id, domain: r.domain };
    }
    case "EmailServer": {
      const r = neon.EmailServer.get(name, id);
      return { kind, id: r.id, type: r.type, host: r.host, port: r.port };
    }
  }
});
