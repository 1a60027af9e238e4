package tbpb_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedCodeIsFresh regenerates the Go code of the committed .proto
// files (scripts/gen-proto.sh, protoc + the protoc-gen-go pinned in go.mod)
// into a temporary folder and fails when this package's committed code
// differs: run `make proto` after editing event.proto.
func TestGeneratedCodeIsFresh(t *testing.T) {
	if _, err := exec.LookPath("protoc"); err != nil {
		t.Skip("protoc is absent (scripts/setup.sh installs protobuf-compiler)")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is absent: gen-proto.sh lists the committed .proto files with git")
	}
	out := t.TempDir()
	cmd := exec.Command("bash", filepath.Join("..", "..", "..", "scripts", "gen-proto.sh"), out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen-proto.sh: %v\n%s", err, b)
	}
	want, err := os.ReadFile(filepath.Join(out, "experiment", "tbevents", "tbpb", "event.pb.go"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("event.pb.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("experiment/tbevents/tbpb/event.pb.go is stale: run `make proto` (scripts/gen-proto.sh) and commit the result")
	}
}
