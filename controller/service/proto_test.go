package service

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedCodeIsCurrent regenerates the Go code of the committed
// .proto files (scripts/gen-proto.sh, as `make proto` does) into a temp dir
// and fails when the committed code differs: run `make proto`.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	if _, err := exec.LookPath("protoc"); err != nil {
		t.Skip("protoc not installed (scripts/setup.sh installs Debian's protobuf-compiler)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed: gen-proto.sh lists the committed .proto files with git")
	}
	out := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "gen-proto.sh"), out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen-proto.sh: %v\n%s", err, b)
	}
	var checked int
	err = filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		if !strings.HasPrefix(rel, "controller/service/") {
			return nil // another package's generated code; its own test checks it
		}
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Errorf("%s: generated but not committed (run `make proto`): %v", rel, err)
			return nil
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run `make proto` and commit the result", rel)
		}
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 3 {
		t.Fatalf("checked %d generated files, want service.pb.go, service.connect.go and state.pb.go", checked)
	}
}
