package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadRegular(small, 5); err != nil || string(b) != "hello" {
		t.Fatalf("small file: %q, %v", b, err)
	}
	cases := []struct {
		path string
		max  int64
		want string
	}{
		{small, 4, "is too large: 5 bytes, the limit is 4"},
		{"/dev/zero", 1 << 20, "/dev/zero is not a regular file (a character device)"},
		{dir, 1 << 20, "is not a regular file (a directory)"},
		{fifo, 1 << 20, "is not a regular file (a named pipe)"},
	}
	for _, c := range cases {
		_, err := ReadRegular(c.path, c.max)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.path, err, c.want)
		}
	}
	if _, err := ReadRegular(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}
