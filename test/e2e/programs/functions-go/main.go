// Reads a branch's Neon Auth and a project-level integration with every function of the plugin's
// Go SDK (generated into sdk/go/neonauth by the test), direct and output forms, and manages nothing.
package main

import (
	"github.com/pulumi-neon-auth/pulumi-neon-auth/sdk/go/neonauth"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		c := config.New(ctx, "")
		project, branch := c.Require("projectId"), c.Require("branchId")
		p, b := pulumi.String(project), pulumi.String(branch)

		auth, err := neonauth.LookupNeonAuth(ctx, &neonauth.LookupNeonAuthArgs{ProjectId: project, BranchId: branch})
		if err != nil {
			return err
		}
		ctx.Export("baseUrl", pulumi.StringPtrFromPtr(auth.BaseUrl))
		ctx.Export("neonAuth", neonauth.LookupNeonAuthOutput(ctx, neonauth.LookupNeonAuthOutputArgs{ProjectId: p, BranchId: b}))
		providers, err := neonauth.GetOAuthProviders(ctx, &neonauth.GetOAuthProvidersArgs{ProjectId: project, BranchId: branch})
		if err != nil {
			return err
		}
		ctx.Export("callbackUrls", pulumi.ToOutput(providers.Providers))
		ctx.Export("domains", neonauth.GetTrustedDomainsOutput(ctx, neonauth.GetTrustedDomainsOutputArgs{ProjectId: p, BranchId: b}))
		ctx.Export("oauthServer", neonauth.GetOAuthServerOutput(ctx, neonauth.GetOAuthServerOutputArgs{ProjectId: p, BranchId: b}))
		ctx.Export("users", neonauth.GetNeonAuthUsersOutput(ctx, neonauth.GetNeonAuthUsersOutputArgs{ProjectId: p, BranchId: b}).Users())
		ctx.Export("integration", neonauth.LookupAuthIntegrationOutput(ctx, neonauth.LookupAuthIntegrationOutputArgs{ProjectId: pulumi.String(c.Require("projectLevelProject"))}))
		return nil
	})
}
