package matrix

import (
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// TestWordedErrors: matrix's refusals name Options fields by themselves
// and, in the command line's words, read as hyperctl prints them.
func TestWordedErrors(t *testing.T) {
	flags := words.Words{Out: "--out", Force: "--force", ResumeIn: "--out %s --resume", ForceIn: "--out %s --force"}
	out := t.TempDir()
	if err := WriteManifest(out, Manifest{Envs: []string{"reacher"}, Controllers: []string{"fixed"}, Seeds: []int64{0}, Iterations: 3}); err != nil {
		t.Fatal(err)
	}
	_, mergeErr := Merge(out, Manifest{Envs: []string{"hopper"}, Controllers: []string{"fixed"}, Seeds: []int64{0}, Iterations: 3}, false)
	_, _, freeErr := FirstFree("runs/a", func(string) (string, error) { return "taken", nil })
	for _, tc := range []struct {
		name  string
		err   error
		flags string
	}{
		{"stopped run", &StoppedRunError{Dir: "runs/x"},
			"train: runs/x holds a stopped run of this config; continue it with --out runs/x --resume, or start it over with --out runs/x --force"},
		{"different matrix", mergeErr,
			"compare: " + out + " holds a different matrix (envs [reacher], controllers [fixed], seeds [0], 3 iterations, frame budget 0); use another --out, or --force to adopt the new one"},
		{"no free folder", freeErr, "runs/a and 9999 folders after it are taken; give --out"},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if got := words.Say(tc.err, flags); got != tc.flags {
			t.Errorf("%s: in flags %q, want %q", tc.name, got, tc.flags)
		}
		if s := tc.err.Error(); strings.Contains(s, "--") || !strings.Contains(s, "Options.") {
			t.Errorf("%s: %q names a flag or no Options field", tc.name, s)
		}
	}
}
