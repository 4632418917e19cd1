module github.com/pulumi-neon-auth/pulumi-neon-auth

go 1.26

require github.com/pulumi/pulumi/sdk/v3 v3.259.0
