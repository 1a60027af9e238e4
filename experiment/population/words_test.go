package population

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// TestWordedErrors: population's refusals of a folder name Options.Out,
// and its score of a member without an episode Spec.Ready, by themselves
// and, in the command line's words, read as hyperctl prints them.
func TestWordedErrors(t *testing.T) {
	flags := words.Words{Out: "--out", Force: "--force", Ready: "--ready"}
	out, member := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	noEpisode := "iteration,frames,wall_time_s,controller_time_s,train_reward,objective,episodes,mean_episode_return,batch_size,rejected_updates\n0,64,0.1,0,-1,,0,,64,0\n"
	if err := os.WriteFile(filepath.Join(member, rundir.TrainCSV), []byte(noEpisode), 0o644); err != nil {
		t.Fatal(err)
	}
	_, scoreErr := Score(member)
	unsealed := os.ErrInvalid
	for _, tc := range []struct {
		name   string
		err    error
		goWord string
		flags  string
	}{
		{"not a population", checkEmpty(out), "Options.Out",
			"--out " + out + " holds files but no population.json, so it is not a population (it holds notes.txt); use another --out, an empty or new folder"},
		{"unsealed", &words.AdviceError{Err: unsealed, After: unsealedAdvice}, "Options.Out",
			"invalid argument; an unfinished population written before population files were sealed cannot be continued with its files checked: start it over in another --out"},
		{"no score", fmt.Errorf("population: member 0: %w", scoreErr), "Spec.Ready",
			"population: member 0: score: " + member + ": no training episode finished in 64 frames, so the member has no score; raise --ready (or the batch size)"},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if got := words.Say(tc.err, flags); got != tc.flags {
			t.Errorf("%s: in flags %q, want %q", tc.name, got, tc.flags)
		}
		if s := tc.err.Error(); strings.Contains(s, "--") || !strings.Contains(s, tc.goWord) {
			t.Errorf("%s: %q names a flag or not %s", tc.name, s, tc.goWord)
		}
	}
}
