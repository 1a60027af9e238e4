package population

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/ppo/policy"
)

// PolicyRun keeps a run folder, refuses what is no folder, and for a
// folder that holds no run itself lists the runs below it that keep the
// policy and gives the command that picks one.
func TestPolicyRun(t *testing.T) {
	root := t.TempDir()
	write := func(path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmp, bare, empty := filepath.Join(root, "cmp"), filepath.Join(root, "bare"), filepath.Join(root, "empty")
	write(filepath.Join(cmp, "a", rundir.ConfigFile))
	_, meta := policy.Paths(filepath.Join(cmp, "a"), policy.Best)
	write(meta)
	for _, run := range []string{filepath.Join(cmp, "a"), filepath.Join(cmp, "b"), filepath.Join(bare, "a")} {
		write(filepath.Join(run, rundir.TrainCSV)) // a run, unfinished
	}
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	command := func(pick string) string { return "hyperctl eval " + pick }
	for _, c := range []struct {
		name, dir, want, err string
	}{
		{"a run", filepath.Join(cmp, "a"), filepath.Join(cmp, "a"), ""},
		{"missing", filepath.Join(root, "absent"), "", "run folder " + filepath.Join(root, "absent")},
		{"a file", meta, "", "is a file, not a folder"},
		{"nothing below", empty, "", empty + " holds no run: a run folder holds the config.toml that train writes first"},
		{"runs below", cmp, "", "but 2 runs below it, 1 with its policy-best: a (unfinished). Give one of them, e.g.\n  hyperctl eval " + filepath.Join(cmp, "a")},
		{"none keeps it", bare, "", "but 1 run below it, none of which keeps its policy-best"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := PolicyRun(os.Stderr, c.dir, policy.Best, command)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("PolicyRun(%s) = %q, %v; want an error with %q", c.dir, got, err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("PolicyRun(%s) = %q, %v; want %q", c.dir, got, err, c.want)
			}
		})
	}
}
