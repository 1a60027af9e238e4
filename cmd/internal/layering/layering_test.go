package layering

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const module = "github.com/hyperctl/hyperctl"

// pkg is what `go list -json` says of a package.
type pkg struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
}

// listModule lists every package of the module with `go list -json`.
func listModule(t *testing.T) []pkg {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goBin, "list", "-json", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages of %s", len(pkgs), module)
	}
	return pkgs
}

// rel returns an import path relative to the module, and false for a path
// outside it.
func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	return strings.CutPrefix(path, module+"/")
}

// Every package has a layer and imports nothing from a layer above its own;
// no package outside cmd/ imports cmd/, in its tests either.
func TestImportsPointDown(t *testing.T) {
	cmdLayer, _ := Of("cmd")
	for _, p := range listModule(t) {
		from, _ := rel(p.ImportPath)
		lf, ok := Of(from)
		if !ok {
			t.Errorf("%s is in no layer; add it to layering.Layers and to the README's Layout", from)
			continue
		}
		for _, imp := range p.Imports {
			to, in := rel(imp)
			if !in {
				continue
			}
			lt, ok := Of(to)
			if !ok {
				t.Errorf("%s imports %s, which is in no layer", from, to)
			} else if lt > lf {
				t.Errorf("%s (%s) imports %s (%s): an upward import", from, Layers[lf].Name, to, Layers[lt].Name)
			}
		}
		if lf == cmdLayer {
			continue
		}
		for _, imp := range append(append([]string(nil), p.TestImports...), p.XTestImports...) {
			if to, in := rel(imp); in {
				if lt, _ := Of(to); lt == cmdLayer {
					t.Errorf("the tests of %s import %s: nothing outside cmd/ imports cmd/", from, to)
				}
			}
		}
	}
}

// The order catches an upward import, and every pattern names packages.
func TestOf(t *testing.T) {
	for _, c := range []struct {
		path string
		want string
	}{
		{"envs", "environments"}, {"envs/statecodec", "environments"}, {"controller", "the controller interface and driver"},
		{"kalman", "kalman"}, {"ppo/policy/video", "ppo"}, {"controller/hypercontroller", "the methods"},
		{"baselines/deltabo", "the methods"}, {"configs/rundir", "configs and the run folder"},
		{"controller/service/proto/hyperctl/v1", "the service"}, {"experiment/run", "experiment"}, {"cmd/hyperctl", "cmd"},
	} {
		l, ok := Of(c.path)
		if !ok || Layers[l].Name != c.want {
			t.Errorf("Of(%q) = %d, %v; want %s", c.path, l, ok, c.want)
		}
	}
	if _, ok := Of("controllers"); ok {
		t.Error(`Of("controllers") matched a layer`)
	}
}
