// A minimal language host for the Pulumi engine, for Node.js programs (as pulumi-language-nodejs)
// and Go programs (as pulumi-language-go: the same binary under a second name).
//
// Pulumi's own language hosts are separate Go modules that the module proxy reachable from our
// machines does not serve, so the project builds this one instead. It implements only what the
// engine needs to run a program from disk: plugin info, required packages (none: the dynamic
// providers need no download, and the neon-auth plugin is found on PATH), Run,
// InstallDependencies for `pulumi new` and `pulumi install` (install.go), GenerateProgram for `pulumi import` (program.go), and RunPlugin for Node.js policy packs
// (`--policy-pack`, policy.go). For Node.js,
// Run starts `@pulumi/pulumi/cmd/run` from the program's own node_modules with the arguments and
// environment that script reads; for Go, it builds the program with `go build` and runs it with
// the environment `sdk/v3/go/pulumi` reads. Anything else answers Unimplemented, which the engine
// treats as an older language host.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// version is set at build time to the Pulumi version this host is built against.
var version = "0.0.0"

// exitCodeBail is what @pulumi/pulumi/cmd/run exits with after it has already reported a
// user-actionable error to the engine; the engine must not print a second one.
const exitCodeBail = 32

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	engineAddress string
	// runtime is "nodejs" or "go", from the name the engine started this binary under.
	runtime string
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version}, nil
}

func (h *host) GetRequiredPackages(
	context.Context, *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

func (h *host) GetRequiredPlugins(
	context.Context, *pulumirpc.GetRequiredPluginsRequest,
) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	if h.runtime == "go" {
		return h.runGo(ctx, req)
	}
	pwd := req.GetPwd()
	runScript, err := resolveFrom(ctx, pwd, "@pulumi/pulumi/cmd/run")
	if err != nil {
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}

	args := []string{runScript,
		"--monitor=" + req.GetMonitorAddress(),
		"--engine=" + h.engineAddress,
		"--project=" + req.GetProject(),
		"--stack=" + req.GetStack(),
		"--pwd=" + pwd,
	}
	if org := req.GetOrganization(); org != "" {
		args = append(args, "--organization="+org)
	}
	if root := req.GetInfo().GetRootDirectory(); root != "" {
		args = append(args, "--root-directory="+root)
	}
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	if req.GetParallel() > 0 {
		args = append(args, "--parallel="+strconv.Itoa(int(req.GetParallel())))
	}
	program := req.GetProgram()
	if program == "" {
		program = "."
	}
	args = append(args, program)
	args = append(args, req.GetArgs()...)

	return runProgram(ctx, req, "node", args, typescriptEnv(req.GetInfo()))
}

// runProgram runs a program for the engine, with the stack configuration in the environment as
// both SDKs read it, and env besides.
func runProgram(ctx context.Context, req *pulumirpc.RunRequest, name string, args, env []string) (*pulumirpc.RunResponse, error) {
	config, err := configEnv(req)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = req.GetPwd()
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	cmd.Env = append(append(os.Environ(), config...), env...)
	return finished(cmd.Run()), nil
}

// configEnv is the stack configuration as both SDKs read it from the environment.
func configEnv(req *pulumirpc.RunRequest) ([]string, error) {
	config, err := json.Marshal(req.GetConfig())
	if err != nil {
		return nil, err
	}
	secretKeys := req.GetConfigSecretKeys()
	if secretKeys == nil {
		secretKeys = []string{}
	}
	secrets, err := json.Marshal(secretKeys)
	if err != nil {
		return nil, err
	}
	return []string{"PULUMI_CONFIG=" + string(config), "PULUMI_CONFIG_SECRET_KEYS=" + string(secrets)}, nil
}

// finished is the engine's answer for a program that exited with err.
func finished(err error) *pulumirpc.RunResponse {
	if err == nil {
		return &pulumirpc.RunResponse{}
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if exit.ExitCode() == exitCodeBail {
			return &pulumirpc.RunResponse{Bail: true}
		}
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exit.ExitCode())}
	}
	return &pulumirpc.RunResponse{Error: err.Error()}
}

// runGo builds the Go program in the request's folder and runs it with what
// sdk/v3/go/pulumi reads from the environment (its run.go, getEnvInfo).
func (h *host) runGo(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	pwd := req.GetPwd()
	program := req.GetProgram()
	if program == "" {
		program = "."
	}
	out, err := os.MkdirTemp("", "pulumi-go-program-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(out)
	bin := filepath.Join(out, "program")
	// -trimpath: each e2e stack runs a copy of its program in a new folder; without it Go compiles
	// the same SDK again for every folder.
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, program)
	build.Dir = pwd
	build.Stdout = os.Stderr
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("go build of %s failed: %v", filepath.Join(pwd, program), err)}, nil
	}
	return runProgram(ctx, req, bin, req.GetArgs(), []string{
		"PULUMI_MONITOR=" + req.GetMonitorAddress(),
		"PULUMI_ENGINE=" + h.engineAddress,
		"PULUMI_PROJECT=" + req.GetProject(),
		"PULUMI_STACK=" + req.GetStack(),
		"PULUMI_ORGANIZATION=" + req.GetOrganization(),
		"PULUMI_ROOT_DIRECTORY=" + req.GetInfo().GetRootDirectory(),
		"PULUMI_DRY_RUN=" + strconv.FormatBool(req.GetDryRun()),
		"PULUMI_PARALLEL=" + strconv.Itoa(int(req.GetParallel())),
	})
}

// typescriptEnv mirrors the runtime options of Pulumi.yaml (`typescript`, `tsconfig`) that
// @pulumi/pulumi/cmd/run reads from the environment. TypeScript is on unless turned off.
func typescriptEnv(info *pulumirpc.ProgramInfo) []string {
	typescript := true
	var env []string
	if opts := info.GetOptions().AsMap(); opts != nil {
		if v, ok := opts["typescript"].(bool); ok {
			typescript = v
		}
		if v, ok := opts["tsconfig"].(string); ok && v != "" {
			env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+v)
		}
	}
	if _, set := os.LookupEnv("PULUMI_NODEJS_TYPESCRIPT"); !set {
		env = append(env, "PULUMI_NODEJS_TYPESCRIPT="+strconv.FormatBool(typescript))
	}
	return env
}

// resolveFrom asks node to resolve a module from dir, so the program's own copy of
// @pulumi/pulumi is used, exactly as `require` in the program would find it.
func resolveFrom(ctx context.Context, dir, module string) (string, error) {
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, "node", "-e",
		"process.stdout.write(require.resolve(process.argv[1], {paths: [process.cwd()]}))", module)
	cmd.Dir = dir
	cmd.Stdout = &out
	cmd.Stderr = &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("cannot find %s from %s (run npm install there): %s",
			module, dir, strings.TrimSpace(errOut.String()))
	}
	return filepath.Clean(out.String()), nil
}

func main() {
	// The engine passes flags (logging, tracing, root) and then its own address last.
	var engineAddress string
	for _, arg := range os.Args[1:] {
		if !strings.HasPrefix(arg, "-") {
			engineAddress = arg
		}
	}
	name := filepath.Base(os.Args[0])
	if engineAddress == "" {
		fmt.Fprintf(os.Stderr, "usage: %s [flags] ENGINE_ADDRESS\n", name)
		os.Exit(2)
	}
	runtime := "nodejs"
	if name == "pulumi-language-go" {
		runtime = "go"
	}

	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, &host{engineAddress: engineAddress, runtime: runtime})
			return nil
		},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "fatal: %v\n", err)
		os.Exit(1)
	}
	// The engine reads the port from the first line of stdout.
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "fatal: %v\n", err)
		os.Exit(1)
	}
}
