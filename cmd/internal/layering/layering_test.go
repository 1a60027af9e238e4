package layering

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/hyperctl/hyperctl"

// pkg is what `go list -json` says of a package.
type pkg struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
}

// platforms are the settings the module is listed under: this machine's,
// then others, so that files built only elsewhere have their imports
// checked too (the _other.go files: !linux on darwin, !unix on windows;
// files for the race detector).
var platforms = []struct{ env, flags []string }{
	{},
	{env: []string{"GOOS=darwin", "CGO_ENABLED=1"}},
	{env: []string{"GOOS=windows", "CGO_ENABLED=1"}},
	{flags: []string{"-tags=race"}},
}

// listModule lists every package of the module with `go list -json` under
// each of platforms; a package's imports are the union over them.
func listModule(t *testing.T) []pkg {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	var pkgs []pkg
	index := map[string]int{}
	for _, pl := range platforms {
		env := append(pl.env, pl.flags...) // for the messages
		cmd := exec.Command(goBin, append(append([]string{"list", "-json"}, pl.flags...), module+"/...")...)
		cmd.Env = append(os.Environ(), pl.env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list (%v): %v\n%s", env, err, stderr.String())
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var p pkg
			if err := dec.Decode(&p); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("go list output (%v): %v", env, err)
			}
			i, ok := index[p.ImportPath]
			if !ok {
				index[p.ImportPath] = len(pkgs)
				pkgs = append(pkgs, p)
				continue
			}
			q := &pkgs[i]
			q.Imports = union(q.Imports, p.Imports)
			q.TestImports = union(q.TestImports, p.TestImports)
			q.XTestImports = union(q.XTestImports, p.XTestImports)
		}
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages of %s", len(pkgs), module)
	}
	return pkgs
}

// union is a with the elements of b it lacks appended.
func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

// rel returns an import path relative to the module, and false for a path
// outside it.
func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	return strings.CutPrefix(path, module+"/")
}

// Every package has a layer and imports nothing from a layer above its own
// (on Linux and off it); no package outside cmd/ imports cmd/, in its tests
// either; and every pattern of Layers names at least one package, so a
// moved or misspelt folder cannot leave a layer silently empty.
func TestImportsPointDown(t *testing.T) {
	cmdLayer, _ := Of("cmd")
	pkgs := listModule(t)
	for _, l := range Layers {
		for _, pat := range l.Patterns {
			if !slices.ContainsFunc(pkgs, func(p pkg) bool { r, _ := rel(p.ImportPath); return matches(pat, r) }) {
				t.Errorf("layer %q: pattern %q matches no package of the module; fix or remove it", l.Name, pat)
			}
		}
	}
	for _, p := range pkgs {
		from, _ := rel(p.ImportPath)
		lf, ok := Of(from)
		if !ok {
			t.Errorf("%s is in no layer; add it to layering.Layers, to the README's layer order, and to the packages of docs/development.md", from)
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

// The order catches an upward import.
func TestOf(t *testing.T) {
	for _, c := range []struct {
		path string
		want string
	}{
		{"internal/ground/safefile", "ground"}, {"internal/ground/statecodec", "ground"}, {"internal/ground/suggest", "ground"}, {"configs/groundwork", "configs and the run folder"},
		{"envs", "environments"}, {"envs/box2d", "environments"}, {"controller", "the controller interface and driver"},
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

// The most specific pattern decides, whatever the order of the layers:
// internal/ground/... wins over configs/... and controller/service/... over
// controller, also with the layers listed top first.
func TestOfMostSpecific(t *testing.T) {
	saved := Layers
	defer func() { Layers = saved }()
	for _, order := range []string{"bottom first", "top first"} {
		if order == "top first" {
			Layers = slices.Clone(saved)
			slices.Reverse(Layers)
		}
		for _, c := range []struct{ path, want string }{
			{"internal/ground/safefile", "ground"},
			{"configs/rundir", "configs and the run folder"},
			{"controller/service/internal/curves", "the service"},
			{"controller/hypercontroller", "the methods"},
			{"controller", "the controller interface and driver"},
		} {
			if l, ok := Of(c.path); !ok || Layers[l].Name != c.want {
				t.Errorf("%s: Of(%q) = %d, %v; want %s", order, c.path, l, ok, c.want)
			}
		}
	}
}
