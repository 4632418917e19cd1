// goproxy adds one version of a Go module, from its folder, to a folder laid out as a module proxy
// (GOPROXY=file://OUT): OUT/<module>/@v/{list, <version>.info, .mod, .zip}. The release puts the
// neon-auth Go SDK there, so that `go get` takes it by its module path as it would from a
// published tag. The zip is written by golang.org/x/mod/zip, the code the go command checks
// module zips with, so what it accepts here it accepts from a real proxy.
//
//	goproxy MODULE_DIR VERSION OUT
//
// The module path is read from MODULE_DIR/go.mod. The .info time is SOURCE_DATE_EPOCH when set
// (the release sets it from the commit, so that two runs write the same files), else now.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"

	"github.com/pulumi-neon-auth/tools/internal/command"
)

func main() {
	command.Run("goproxy", "MODULE_DIR VERSION OUT", run)
}

func run(dir, version, out string) error {
	if !semver.IsValid(version) || semver.Canonical(version) != version {
		return fmt.Errorf("%q is not a canonical module version (v1.2.3)", version)
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	modPath := modfile.ModulePath(gomod)
	if modPath == "" {
		return fmt.Errorf("%s/go.mod names no module", dir)
	}
	mv := module.Version{Path: modPath, Version: version}
	// CheckPathMajor: a v2+ version needs a /vN path, which the go command would refuse later.
	if err := module.Check(modPath, version); err != nil {
		return err
	}
	escPath, err := module.EscapePath(modPath)
	if err != nil {
		return err
	}
	escVersion, err := module.EscapeVersion(version)
	if err != nil {
		return err
	}
	at := filepath.Join(out, filepath.FromSlash(escPath), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}

	var zip bytes.Buffer
	if err := modzip.CreateFromDir(&zip, mv, dir); err != nil {
		return err
	}
	stamp, err := infoTime()
	if err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    string
	}{version, stamp.UTC().Format(time.RFC3339)})
	if err != nil {
		return err
	}
	for ext, data := range map[string][]byte{".zip": zip.Bytes(), ".mod": gomod, ".info": info} {
		if err := os.WriteFile(filepath.Join(at, escVersion+ext), data, 0o644); err != nil {
			return err
		}
	}
	return addToList(filepath.Join(at, "list"), version)
}

func infoTime() (time.Time, error) {
	epoch := os.Getenv("SOURCE_DATE_EPOCH")
	if epoch == "" {
		return time.Now(), nil
	}
	s, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: %w", epoch, err)
	}
	return time.Unix(s, 0), nil
}

// addToList keeps the versions a proxy lists for the module, one a line, sorted, each once.
func addToList(file, version string) error {
	b, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	versions := strings.Fields(string(b))
	if !slices.Contains(versions, version) {
		versions = append(versions, version)
	}
	semver.Sort(versions)
	return os.WriteFile(file, []byte(strings.Join(versions, "\n")+"\n"), 0o644)
}
