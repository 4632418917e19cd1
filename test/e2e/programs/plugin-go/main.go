// A stack of either API generation on the neon-auth provider plugin, through its generated Go
// SDK (written into sdk/go/neonauth by the test, from the checkout's schema): an integration, a
// trusted domain and, on a branch, a GitHub OAuth provider whose secret comes from config.
package main

import (
	"github.com/pulumi-neon-auth/pulumi-neon-auth/sdk/go/neonauth"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		c := config.New(ctx, "")
		project, branch := pulumi.String(c.Require("projectId")), pulumi.String(c.Require("branchId"))
		var ref neonauth.IntegrationRefOutput
		if c.Get("generation") == "project" {
			auth, err := neonauth.NewAuthIntegration(ctx, "auth", &neonauth.AuthIntegrationArgs{ProjectId: project, BranchId: branch})
			if err != nil {
				return err
			}
			ref = auth.Ref
		} else {
			auth, err := neonauth.NewNeonAuth(ctx, "auth", &neonauth.NeonAuthArgs{
				ProjectId: project,
				BranchId:  branch,
				AppName:   pulumi.StringPtr(c.Require("appName")),
			})
			if err != nil {
				return err
			}
			ref = auth.Ref
			if _, err := neonauth.NewOAuthProvider(ctx, "github", &neonauth.OAuthProviderArgs{
				Integration:  ref,
				ProviderId:   pulumi.String("github"),
				ClientId:     pulumi.StringPtr("gh-id"),
				ClientSecret: c.RequireSecret("githubSecret"),
			}); err != nil {
				return err
			}
		}
		app, err := neonauth.NewRedirectDomain(ctx, "app", &neonauth.RedirectDomainArgs{Integration: ref, Domain: pulumi.String(c.Require("domain"))})
		if err != nil {
			return err
		}
		ctx.Export("domainId", app.ID())
		return nil
	})
}
