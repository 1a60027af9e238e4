package cgofree

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/hyperctl/hyperctl"

// root is the repository, from this package's folder.
const root = "../../.."

// pkg is what `go list -json` says of a package.
type pkg struct {
	ImportPath                string
	Standard                  bool
	CgoFiles                  []string
	Deps                      []string
	TestImports, XTestImports []string
}

// goCmd runs the go command in the repository with env added and returns
// its standard output.
func goCmd(t *testing.T, env []string, args ...string) []byte {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goBin, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s (%v): %v\n%s", strings.Join(args, " "), env, err, stderr.String())
	}
	return out
}

// listed is the cgo_free array of scripts/check.sh: its package patterns.
func listed(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "scripts", "check.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^cgo_free=\(([^)]*)\)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("scripts/check.sh has no line cgo_free=(...)")
	}
	return strings.Fields(string(m[1]))
}

// packages lists patterns (with cgo, as `go list` sees them by default)
// and, with -deps, everything they import.
func packages(t *testing.T, deps bool, patterns ...string) []pkg {
	t.Helper()
	args := []string{"list", "-json"}
	if deps {
		args = append(args, "-deps", "-test")
	}
	out := goCmd(t, []string{"CGO_ENABLED=1"}, append(args, patterns...)...)
	var ps []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		ps = append(ps, p)
	}
	return ps
}

// TestListedBuildWithoutCgo builds every package of the list, and its
// tests, with CGO_ENABLED=0 (`go test -run` of no test: compiled, not run).
func TestListedBuildWithoutCgo(t *testing.T) {
	pats := listed(t)
	goCmd(t, []string{"CGO_ENABLED=0"}, append([]string{"test", "-count=1", "-run", "^$"}, pats...)...)
}

// TestListWhole: every package of the module whose code and tests reach no
// package with cgo files (outside the standard library, which builds
// without cgo) is on the list, and nothing on the list reaches one.
func TestListWhole(t *testing.T) {
	cgo := map[string]bool{} // non-standard packages with cgo files
	deps := map[string][]string{}
	for _, p := range packages(t, true, "./...") {
		if !p.Standard && len(p.CgoFiles) > 0 {
			cgo[p.ImportPath] = true
		}
		deps[p.ImportPath] = p.Deps
	}
	if len(cgo) == 0 {
		t.Fatal("no package with cgo files: go list is not reporting them")
	}
	reaches := func(path string) bool {
		return cgo[path] || slices.ContainsFunc(deps[path], func(d string) bool { return cgo[d] })
	}
	inList := map[string]bool{}
	for _, p := range packages(t, false, listed(t)...) {
		inList[p.ImportPath] = true
	}
	for _, p := range packages(t, false, "./...") {
		free := !reaches(p.ImportPath)
		for _, imp := range append(p.TestImports, p.XTestImports...) {
			free = free && !reaches(imp)
		}
		name := strings.TrimPrefix(p.ImportPath, module+"/")
		switch {
		case free && !inList[p.ImportPath]:
			t.Errorf("%s builds and tests without cgo: add it to cgo_free in scripts/check.sh", name)
		case !free && inList[p.ImportPath]:
			t.Errorf("%s (or its tests) reaches cgo code: take it off cgo_free in scripts/check.sh, or cut the import", name)
		}
	}
}
