package population

import (
	"os"
	"path/filepath"
	"testing"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
)

// TestNewDir: a population started without --out takes its default
// folder when it is free, empty or holds this population unfinished (the
// same command continues it), and the next free -runN folder when it
// holds this population finished, another population or anything else.
func TestNewDir(t *testing.T) {
	def := Definition{Format: FormatVersion, Env: "reacher", Settings: popmethod.DefaultSettings(popmethod.PB2), Size: 4, Seed: 2,
		Frames: 1000, Ready: 300, Tuned: []string{"lr"}, Config: "env = \"reacher\"\n"}
	if got, want := DefaultDir(def), filepath.Join("runs", "reacher-pb2-4-seed2"); got != want {
		t.Fatalf("DefaultDir %s, want %s", got, want)
	}
	other := def
	other.Ready = 200
	write := func(t *testing.T, dir string, d Definition, finished bool) {
		t.Helper()
		if err := WriteDefinition(dir, d); err != nil {
			t.Fatal(err)
		}
		if finished {
			if err := os.WriteFile(filepath.Join(dir, ResultFile), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name    string
		prepare func(t *testing.T, base string)
		want    string // the suffix of the folder picked
		why     string
	}{
		{"free", func(t *testing.T, base string) {}, "", ""},
		{"empty", func(t *testing.T, base string) { os.MkdirAll(base, 0o755) }, "", ""},
		{"this population unfinished", func(t *testing.T, base string) { write(t, base, def, false) }, "", ""},
		{"this population finished", func(t *testing.T, base string) { write(t, base, def, true) }, "-run2", "holds this population, finished"},
		{"another population", func(t *testing.T, base string) { write(t, base, other, false) }, "-run2", "holds another population"},
		{"a train run", func(t *testing.T, base string) {
			os.MkdirAll(base, 0o755)
			os.WriteFile(filepath.Join(base, "train.csv"), []byte("x\n"), 0o644)
		}, "-run2", "holds something other than a population"},
		{"finished, then another", func(t *testing.T, base string) {
			write(t, base, def, true)
			write(t, base+"-run2", other, false)
		}, "-run3", "holds this population, finished"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := filepath.Join(t.TempDir(), "reacher-pb2-4-seed2")
			c.prepare(t, base)
			dir, why, err := NewDir(base, def)
			if err != nil || dir != base+c.want || why != c.why {
				t.Fatalf("NewDir: %s, %q, %v; want %s, %q", dir, why, err, base+c.want, c.why)
			}
		})
	}
}
