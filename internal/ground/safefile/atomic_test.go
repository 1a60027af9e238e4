package safefile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteModes: run outputs follow the umask, as other tools' outputs
// do; private state is 0600 whatever the umask.
func TestWriteModes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		write func(string, []byte) error
		want  os.FileMode
	}{{"public", WriteAtomic, 0o644}, {"private", WritePrivate, 0o600}} {
		path := filepath.Join(dir, tc.name)
		for range 2 { // created, then replaced
			if err := tc.write(path, []byte("x")); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != tc.want {
				t.Fatalf("%s: mode %o, want %o", tc.name, got, tc.want)
			}
		}
	}
}
