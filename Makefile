# The commands a new user needs; each sets up Node, the Pulumi CLI and npm packages itself.
.PHONY: test demo env release

test:           ## every test: unit, contract (emulator over HTTP) and e2e (real Pulumi engine)
	@scripts/test

demo:           ## the main job: emulator + `pulumi up` of the full example, outputs, no-change preview
	@scripts/demo

release:        ## into release/: npm tarball, plugin archives per os/arch, schema, SDKs, Go module proxy (needs Go)
	@eval "$$(scripts/env)" && node scripts/release.mts

env:            ## build/fetch the toolchain only
	@scripts/env >/dev/null
