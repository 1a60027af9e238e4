package matrix

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hyperctl/hyperctl/configs/rundir"
)

// TestNewTrainDir: a free default folder is claimed (created); one that
// holds a finished run, or a run whose config cannot be read as this one,
// passes to the first free -runN folder and says why.
func TestNewTrainDir(t *testing.T) {
	for _, c := range []struct {
		name    string
		prepare func(t *testing.T, base string) // the default folder's content
		suffix  string
		why     string
	}{
		{"free", func(*testing.T, string) {}, "", ""},
		{"empty folder", func(t *testing.T, base string) { mkdir(t, base) }, "", ""},
		{"finished run", func(t *testing.T, base string) { write(t, filepath.Join(base, rundir.SummaryFile)) }, "-run2", "holds a finished run"},
		{"run of another config", func(t *testing.T, base string) { write(t, filepath.Join(base, rundir.ConfigFile)) }, "-run2", "holds a run of another config"},
		{"finished, then a finished -run2", func(t *testing.T, base string) {
			write(t, filepath.Join(base, rundir.SummaryFile))
			write(t, filepath.Join(base+"-run2", rundir.SummaryFile))
		}, "-run3", "holds a finished run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := filepath.Join(t.TempDir(), "runs", TrainDir("reacher", "fixed", 0))
			c.prepare(t, base)
			dir, why, err := NewTrainDir(base, "comparable")
			if err != nil {
				t.Fatal(err)
			}
			if dir != base+c.suffix || why != c.why {
				t.Fatalf("got %s (%q), want %s (%q)", dir, why, base+c.suffix, c.why)
			}
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				t.Fatalf("%s not claimed: %v", dir, err)
			}
		})
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path string) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}
