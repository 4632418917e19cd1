package main

import (
	"os/exec"
	"sync"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// InstallDependencies runs `npm install` in a Node.js project, as Pulumi's own host does with its
// default package manager: `pulumi new` and `pulumi install` end with it, and the README's quick
// start begins with `pulumi new typescript`.
func (h *host) InstallDependencies(
	req *pulumirpc.InstallDependenciesRequest, server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	if h.runtime != "nodejs" {
		return status.Error(codes.Unimplemented, "InstallDependencies is implemented for Node.js programs only")
	}
	dir := req.GetInfo().GetRootDirectory()
	if dir == "" {
		dir = req.GetDirectory() //nolint:staticcheck // older engines send only this
	}
	cmd := exec.CommandContext(server.Context(), "npm", "install", "--no-audit", "--no-fund")
	cmd.Dir = dir
	// exec copies stdout and stderr on two goroutines; a gRPC stream takes one Send at a time.
	var sending sync.Mutex
	cmd.Stdout = lockedWriter{&sending, sendWriter(func(b []byte) error {
		return server.Send(&pulumirpc.InstallDependenciesResponse{Stdout: b})
	})}
	cmd.Stderr = lockedWriter{&sending, sendWriter(func(b []byte) error {
		return server.Send(&pulumirpc.InstallDependenciesResponse{Stderr: b})
	})}
	return cmd.Run()
}

// sendWriter hands each chunk a child process writes to the engine as it comes.
type sendWriter func([]byte) error

func (send sendWriter) Write(p []byte) (int, error) {
	if err := send(append([]byte(nil), p...)); err != nil {
		return 0, err
	}
	return len(p), nil
}
