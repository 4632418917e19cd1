// gen-sdk writes the SDK of the neon-auth provider plugin in one language from its package
// schema, with Pulumi's own code generators (pkg/v3 codegen), as `pulumi package gen-sdk` would.
// That command needs Pulumi's language hosts, which the module proxy of our machines does not
// serve; the generators themselves are in pkg/v3, which it does.
//
// The Go SDK gets a go.mod whose module path is the schema's importBasePath, so that `go get`
// of that path finds it (Pulumi's generator writes one only for "support pack" schemas, one
// folder above the package, where the import path and the module path would differ).
//
//	gen-sdk go|nodejs|python SCHEMA.json OUT_DIR
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	nodejs "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	python "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"golang.org/x/mod/modfile"

	"github.com/pulumi-neon-auth/tools/internal/command"
)

const tool = "pulumi-neon-auth gen-sdk"

func main() {
	command.Run("gen-sdk", "go|nodejs|python SCHEMA.json OUT_DIR", run)
}

func run(lang, schemaPath, out string) error {
	b, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	// Bound with validation: a schema the engine would refuse fails here, naming the property.
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	if err != nil {
		return err
	}
	if diags.HasErrors() {
		return errors.New(diags.Error())
	}
	var files map[string][]byte
	switch lang {
	case "go":
		files, err = gogen.GeneratePackage(tool, pkg, nil)
		if err == nil {
			err = addGoMod(pkg, files)
		}
	case "nodejs":
		files, err = nodejs.GeneratePackage(tool, pkg, nil, nil, false, noPackages{})
	case "python":
		files, err = python.GeneratePackage(tool, pkg, nil, noPackages{})
	default:
		return fmt.Errorf("no generator for %q (go, nodejs, python)", lang)
	}
	if err != nil {
		return err
	}
	for name, data := range files {
		p := filepath.Join(out, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// addGoMod gives the Go SDK a go.mod in its package folder, the module path being its import path.
// It requires the Pulumi Go SDK this tool was built with (tools/go.mod: one version pinned in one
// place); the release completes it with `go mod tidy`.
func addGoMod(pkg *schema.Package, files map[string][]byte) error {
	info, _ := pkg.Language["go"].(gogen.GoPackageInfo)
	if info.ImportBasePath == "" {
		return errors.New("the schema names no Go importBasePath")
	}
	const sdk = "github.com/pulumi/pulumi/sdk/v3"
	build, ok := debug.ReadBuildInfo()
	if !ok {
		return errors.New("no build information to read the Pulumi SDK's version from")
	}
	version := ""
	for _, dep := range build.Deps {
		if dep.Path == sdk {
			version = dep.Version
		}
	}
	var mod modfile.File
	if err := mod.AddModuleStmt(info.ImportBasePath); err != nil {
		return err
	}
	if err := mod.AddGoStmt("1.26"); err != nil {
		return err
	}
	if err := mod.AddRequire(sdk, version); err != nil {
		return err
	}
	b, err := mod.Format()
	if err != nil {
		return err
	}
	files[path.Join(path.Base(info.ImportBasePath), "go.mod")] = b
	return nil
}

// noPackages: the schema refers to no other package.
type noPackages struct{}

var errNone = errors.New("the neon-auth schema refers to no other package")

func (noPackages) LoadPackage(string, *semver.Version) (*schema.Package, error) { return nil, errNone }
func (noPackages) LoadPackageV2(context.Context, *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, errNone
}
func (noPackages) LoadPackageReference(string, *semver.Version) (schema.PackageReference, error) {
	return nil, errNone
}
func (noPackages) LoadPackageReferenceV2(context.Context, *schema.PackageDescriptor) (schema.PackageReference, error) {
	return nil, errNone
}
