package rundir

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hyperctl/hyperctl/internal/ground/words"
)

// TestWorded: the run folder's refusals and stops speak Go by themselves
// and a command line's flags through In and words.Say.
func TestWorded(t *testing.T) {
	flags := words.Words{Resume: "--resume", Force: "--force", Out: "--out", Continue: "hyperctl train --out %s --resume"}
	for _, tc := range []struct {
		err       words.Worded
		goText    string
		flagsText string
	}{
		{&ReuseError{Dir: "runs/a", Finished: true},
			"runs/a holds a finished run; use Options.Force to overwrite it or Options.Out for another folder",
			"runs/a holds a finished run; use --force to overwrite it or --out for another folder"},
		{&ReuseError{Dir: "runs/a"},
			"runs/a holds an unfinished run; use Options.Resume to continue it or Options.Force to start over",
			"runs/a holds an unfinished run; use --resume to continue it or --force to start over"},
		{&StoppedError{Dir: "runs/a", Iteration: 7},
			"interrupted at iteration 7; checkpoint written; continue with: run.Train with Options.Out = runs/a and Options.Resume set",
			"interrupted at iteration 7; checkpoint written; continue with: hyperctl train --out runs/a --resume"},
		{&ConfigMismatchError{Dir: "runs/a", Diff: "- seed = 0\n+ seed = 1\n"},
			"runs/a was started with a different config; refusing to mix them. Continue it with the config it was started with, use Options.Force to start it over, or Options.Out for another folder.\n(- in the folder, + now):\n- seed = 0\n+ seed = 1",
			"runs/a was started with a different config; refusing to mix them. Continue it with the config it was started with, use --force to start it over, or --out for another folder.\n(- in the folder, + now):\n- seed = 0\n+ seed = 1"},
	} {
		if got := tc.err.Error(); got != tc.goText {
			t.Errorf("Error() = %q, want %q", got, tc.goText)
		}
		if got := words.Say(fmt.Errorf("train: %w", tc.err), flags); got != "train: "+tc.flagsText {
			t.Errorf("Say = %q, want %q", got, "train: "+tc.flagsText)
		}
	}
	var w words.Worded
	if !errors.As(fmt.Errorf("train: %w", &ReuseError{Dir: "runs/a"}), &w) {
		t.Error("ReuseError is not found as Worded through a wrap")
	}
}
