module functions-go

go 1.26

require (
	github.com/pulumi-neon-auth/pulumi-neon-auth/sdk/go/neonauth v0.0.0
	github.com/pulumi/pulumi/sdk/v3 v3.259.0
)

// The SDK generated from this checkout's schema, written here by the test (the release's own
// test, test/e2e/release.test.ts, takes the released module by its path instead).
replace github.com/pulumi-neon-auth/pulumi-neon-auth/sdk/go/neonauth => ./sdk/go/neonauth
