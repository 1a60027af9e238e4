package population

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/configs/rundir"
)

// TestWordedErrors: population's refusals of a folder name Options.Out by
// themselves and, in the command line's words, read as hyperctl prints
// them.
func TestWordedErrors(t *testing.T) {
	flags := rundir.Words{Out: "--out", Force: "--force"}
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	unsealed := os.ErrInvalid
	for _, tc := range []struct {
		name  string
		err   error
		flags string
	}{
		{"not a population", checkEmpty(out),
			"--out " + out + " holds files but no population.json, so it is not a population (it holds notes.txt); use another --out, an empty or new folder"},
		{"unsealed", &rundir.AdviceError{Err: unsealed, After: unsealedAdvice},
			"invalid argument; an unfinished population written before population files were sealed cannot be continued with its files checked: start it over in another --out"},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if got := rundir.Say(tc.err, flags); got != tc.flags {
			t.Errorf("%s: in flags %q, want %q", tc.name, got, tc.flags)
		}
		if s := tc.err.Error(); strings.Contains(s, "--") || !strings.Contains(s, "Options.Out") {
			t.Errorf("%s: %q names a flag or not Options.Out", tc.name, s)
		}
	}
}
