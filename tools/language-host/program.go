package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	nodejs "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/pcl"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/pkg/v3/codegen/hcl2/syntax"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// GenerateProgram turns a PCL program into one in this host's language, with Pulumi's own program
// generators (pkg/v3 codegen), as Pulumi's hosts do. `pulumi import` calls it to write the code of
// what it imported (`--out`); the engine serves the schemas the program names (the neon-auth
// plugin's GetSchema) at the request's loader target.
func (h *host) GenerateProgram(ctx context.Context, req *pulumirpc.GenerateProgramRequest) (*pulumirpc.GenerateProgramResponse, error) {
	loader, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, err
	}
	defer loader.Close()

	parser := syntax.NewParser()
	for name, source := range req.GetSource() {
		if err := parser.ParseFile(strings.NewReader(source), name); err != nil {
			return nil, err
		}
	}
	if parser.Diagnostics.HasErrors() {
		return &pulumirpc.GenerateProgramResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(parser.Diagnostics)}, nil
	}

	opts := []pcl.BindOption{pcl.PreferOutputVersionedInvokes}
	if !req.GetStrict() {
		// `pulumi import` binds loosely: its code may name a parent or provider it does not declare.
		opts = append(opts, pcl.NonStrictBindOptions()...)
	}
	program, diags, err := pcl.BindProgramWithContext(ctx, parser.Files, schema.NewCachedLoader(loader), opts...)
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return &pulumirpc.GenerateProgramResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags)}, nil
	}
	if program == nil {
		return nil, errors.New("binding the program gave no program")
	}

	var files map[string][]byte
	var genDiags hcl.Diagnostics
	switch h.runtime {
	case "go":
		files, genDiags, err = gogen.GenerateProgram(program)
	case "nodejs":
		files, genDiags, err = nodejs.GenerateProgram(program)
	default:
		return nil, fmt.Errorf("no program generator for %q", h.runtime)
	}
	if err != nil {
		return nil, err
	}
	return &pulumirpc.GenerateProgramResponse{
		Source:      files,
		Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(append(diags, genDiags...)),
	}, nil
}
