// A stack of either API generation on the neon-auth provider plugin, through its generated Go
// SDK (written into sdk/go/neonauth by the test, from the checkout's schema): an integration, a
// trusted domain and, on a branch, a GitHub OAuth provider whose secret comes from config. With
// generation "both", the branch's three and, beside them on a project of its own
// (integrationProjectId, integrationBranchId), a project-level integration ("integration") and its
// trusted domain ("origin", from integrationDomain).
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
		switch c.Get("generation") {
		case "project":
			return projectLevel(ctx, project, branch, "auth", "app", c.Require("domain"), "domainId")
		case "both":
			if err := onBranch(ctx, c, project, branch); err != nil {
				return err
			}
			p, b := pulumi.String(c.Require("integrationProjectId")), pulumi.String(c.Require("integrationBranchId"))
			return projectLevel(ctx, p, b, "integration", "origin", c.Require("integrationDomain"), "originId")
		default:
			return onBranch(ctx, c, project, branch)
		}
	})
}

// A branch's NeonAuth ("auth"), its GitHub provider and its trusted domain ("app").
func onBranch(ctx *pulumi.Context, c *config.Config, project, branch pulumi.String) error {
	auth, err := neonauth.NewNeonAuth(ctx, "auth", &neonauth.NeonAuthArgs{
		ProjectId: project,
		BranchId:  branch,
		AppName:   pulumi.StringPtr(c.Require("appName")),
	})
	if err != nil {
		return err
	}
	if _, err := neonauth.NewOAuthProvider(ctx, "github", &neonauth.OAuthProviderArgs{
		Integration:  auth.Ref,
		ProviderId:   pulumi.String("github"),
		ClientId:     pulumi.StringPtr("gh-id"),
		ClientSecret: c.RequireSecret("githubSecret"),
	}); err != nil {
		return err
	}
	return domain(ctx, auth.Ref, "app", c.Require("domain"), "domainId")
}

// A project-level integration and its trusted domain, under the names given.
func projectLevel(ctx *pulumi.Context, project, branch pulumi.String, name, domainName, origin, export string) error {
	auth, err := neonauth.NewAuthIntegration(ctx, name, &neonauth.AuthIntegrationArgs{ProjectId: project, BranchId: branch})
	if err != nil {
		return err
	}
	return domain(ctx, auth.Ref, domainName, origin, export)
}

// A trusted domain of the integration `ref`, its id exported as `export`.
func domain(ctx *pulumi.Context, ref neonauth.IntegrationRefOutput, name, origin, export string) error {
	app, err := neonauth.NewRedirectDomain(ctx, name, &neonauth.RedirectDomainArgs{Integration: ref, Domain: pulumi.String(origin)})
	if err != nil {
		return err
	}
	ctx.Export(export, app.ID())
	return nil
}
