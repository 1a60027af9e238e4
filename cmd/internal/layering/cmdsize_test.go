package layering

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxCmdLines bounds cmd/: it wires flags to experiment/, so what grows
// there belongs in a package a Go program can import.
const maxCmdLines = 3000

// generated is Go's marker of a generated file.
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// TestCmdSize: the non-test, non-generated Go files under cmd/ hold at
// most maxCmdLines lines together.
func TestCmdSize(t *testing.T) {
	root := filepath.Join("..", "..") // cmd/, from cmd/internal/layering
	lines, files := 0, 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil || generated.Match(src) {
			return err
		}
		files++
		lines += bytes.Count(src, []byte("\n"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("found %d Go files under cmd/; the walk is broken", files)
	}
	if lines > maxCmdLines {
		t.Errorf("cmd/ holds %d non-test lines in %d files, more than %d: move what is not flag wiring into experiment/ or configs/", lines, files, maxCmdLines)
	}
	t.Logf("cmd/: %d non-test lines in %d files", lines, files)
}
