// Package tbeventstest decodes event files with TensorBoard's own message
// definitions, for tests: it runs scripts/read_tb_events.py, which compiles
// TensorBoard's .proto files from ../shared/reference/tensorboard with
// protoc, checks every record's CRCs and decodes with Debian's
// python3-protobuf.
package tbeventstest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Event is one decoded event.
type Event struct {
	Step        int64              `json:"step"`
	WallTime    float64            `json:"wall_time"`
	FileVersion string             `json:"file_version"`
	SessionLog  string             `json:"session_log"`
	Scalars     map[string]float64 `json:"scalars"`
}

// File is one decoded file.
type File struct {
	Path    string  `json:"path"`
	Records int     `json:"records"`
	Events  []Event `json:"events"`
}

// root is the repository root (this file is experiment/tbevents/tbeventstest/*.go).
func root() string {
	_, f, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(f), "..", "..", "..")
}

// Decode decodes files, skipping the test with the reason when TensorBoard's
// definitions, protoc or python3-protobuf are absent; a CRC or decoding
// failure fails the test.
func Decode(t *testing.T, files ...string) []File {
	t.Helper()
	src := filepath.Join(root(), "..", "shared", "reference", "tensorboard")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("TensorBoard's definitions are absent (%s)", src)
	}
	if _, err := exec.LookPath("protoc"); err != nil {
		t.Skip("protoc is absent (scripts/setup.sh installs protobuf-compiler)")
	}
	py := "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import google.protobuf").CombinedOutput(); err != nil {
		t.Skipf("%s cannot import google.protobuf (scripts/setup.sh installs python3-protobuf): %v %s", py, err, out)
	}
	args := append([]string{filepath.Join(root(), "scripts", "read_tb_events.py"), "--tensorboard-src", src}, files...)
	cmd := exec.Command(py, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("read_tb_events.py: %v\n%s", err, stderr.String())
	}
	var res struct{ Files []File }
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("read_tb_events.py output: %v", err)
	}
	return res.Files
}
