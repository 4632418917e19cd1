# Two commands a new user needs; both set up Node, the Pulumi CLI and npm packages themselves.
.PHONY: test demo env

test:           ## every test: unit, contract (emulator over HTTP) and e2e (real Pulumi engine)
	@scripts/test

demo:           ## the main job: emulator + `pulumi up` of the full example, outputs, no-change preview
	@scripts/demo

env:            ## build/fetch the toolchain only
	@scripts/env >/dev/null
