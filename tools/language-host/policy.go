package main

import (
	"errors"
	"io"
	"os/exec"
	"sync"

	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// RunPlugin starts a Node.js policy pack for `--policy-pack`. The Pulumi CLI 3.259 asks the
// language host of the pack's runtime to run it (plugin.ExecPlugin, kind "analyzer") whenever a
// host of that runtime is found, and falls back to a `pulumi-analyzer-policy-<runtime>` shim only
// when none is; so this, not a shim, is what the engine starts here, as for a user of Pulumi's
// release. Like Pulumi's own Node.js host it runs @pulumi/pulumi/cmd/run-policy-pack from the
// pack's folder with the engine's arguments and the pack's folder last, in that folder (the pack
// reads its package.json from there), with the environment the engine gives.
//
// Pulumi's host also answers the engine's ConfigureStack itself before starting node, to put the
// stack's name and configuration into the pack's environment; this one does not: the pack still
// receives ConfigureStack (stack tags) from the engine, and reads the stack's name from URNs.
func (h *host) RunPlugin(req *pulumirpc.RunPluginRequest, server pulumirpc.LanguageRuntime_RunPluginServer) error {
	if h.runtime != "nodejs" || req.GetKind() != string(apitype.AnalyzerPlugin) {
		return status.Errorf(codes.Unimplemented, "this language host runs Node.js policy packs only, not %s plugins", req.GetKind())
	}
	ctx := server.Context()
	dir := req.GetInfo().GetProgramDirectory()
	runner, err := resolveFrom(ctx, dir, "@pulumi/pulumi/cmd/run-policy-pack")
	if err != nil {
		return err
	}
	closer, stdout, stderr, err := rpcutil.MakeRunPluginStreams(server, false)
	if err != nil {
		return err
	}
	defer closer.Close()

	args := append(append([]string{runner}, req.GetArgs()...), dir)
	// Canceled when the engine closes the analyzer: node goes with the request.
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = dir
	cmd.Env = req.GetEnv()
	// exec copies stdout and stderr on two goroutines; a gRPC stream takes one Send at a time.
	var sending sync.Mutex
	cmd.Stdout = lockedWriter{&sending, stdout}
	cmd.Stderr = lockedWriter{&sending, stderr}
	if err := cmd.Run(); err != nil && ctx.Err() == nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return status.Errorf(codes.Unknown, "policy pack %s exited with code %d", dir, exit.ExitCode())
		}
		return err
	}
	return closer.Close()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
