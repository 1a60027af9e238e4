package rundir

import (
	"errors"
	"fmt"
	"testing"
)

// The errors that advise a setting speak Go by themselves and a command
// line's flags through In.
func TestWorded(t *testing.T) {
	flags := Words{Resume: "--resume", Force: "--force", Out: "--out", Continue: "hyperctl train --out %s --resume"}
	for _, tc := range []struct {
		err       Worded
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
		{&AdviceError{Msg: "runs/a has no usable checkpoint; start it over with {force} or use another {out}:\n", Err: errors.New("checkpoint: bad")},
			"runs/a has no usable checkpoint; start it over with Options.Force or use another Options.Out:\ncheckpoint: bad",
			"runs/a has no usable checkpoint; start it over with --force or use another --out:\ncheckpoint: bad"},
	} {
		if got := tc.err.Error(); got != tc.goText {
			t.Errorf("Error() = %q, want %q", got, tc.goText)
		}
		if got := tc.err.In(flags); got != tc.flagsText {
			t.Errorf("In(flags) = %q, want %q", got, tc.flagsText)
		}
		var w Worded
		if !errors.As(fmt.Errorf("train: %w", tc.err), &w) {
			t.Errorf("%T is not found as Worded through a wrap", tc.err)
		}
	}
}
