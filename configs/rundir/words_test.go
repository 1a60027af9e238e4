package rundir

import (
	"errors"
	"fmt"
	"testing"
)

// The errors that advise a setting speak Go by themselves and a command
// line's flags through In.
func TestWorded(t *testing.T) {
	flags := Words{Resume: "--resume", Force: "--force", Out: "--out", Continue: "hyperctl train --out %s --resume",
		Resuming: "train --resume", Retrain: "hyperctl train --config %s --out NEW_FOLDER", Kernels: "--kernels pinned or native",
		Population: "`hyperctl population`", RunPopulation: "run that command on the population folder", Video: "--capture-video"}
	inner := &AdviceError{Msg: "{resuming}: ", Err: errors.New("no exact resume"), After: ": use {kernels} or {force}"}
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
		{&AdviceError{Msg: "runs/a stopped. Continue it with: {continue}", Path: "runs/a"},
			"runs/a stopped. Continue it with: run.Train with Options.Out = runs/a and Options.Resume set",
			"runs/a stopped. Continue it with: hyperctl train --out runs/a --resume"},
		{&AdviceError{Msg: "train it again: {retrain}", Path: "runs/a/config.toml"},
			"train it again: run.Train of the plan of runs/a/config.toml with a new Options.Out",
			"train it again: hyperctl train --config runs/a/config.toml --out NEW_FOLDER"},
		{&AdviceError{Msg: "only under {population}; {run-population}"},
			"only under population.Run; call it with Options.Out the population folder",
			"only under `hyperctl population`; run that command on the population folder"},
		{&AdviceError{Msg: "{video}: ", Err: errors.New("ffmpeg not found on PATH")},
			"Options.Video: ffmpeg not found on PATH",
			"--capture-video: ffmpeg not found on PATH"},
		// An advice around another one says both in the same words.
		{&AdviceError{Msg: "member 0: ", Err: fmt.Errorf("train: %w", inner), After: ". Or use another {out}"},
			"member 0: train: train: resume: no exact resume: use ppo.ApplyKernels with ppo.KernelsPinned or ppo.KernelsNative or Options.Force. Or use another Options.Out",
			"member 0: train: train --resume: no exact resume: use --kernels pinned or native or --force. Or use another --out"},
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

// Say puts the first Worded error of a chain in w's words and leaves an
// error without one as it is.
func TestSay(t *testing.T) {
	flags := Words{Resume: "--resume", Force: "--force", Out: "--out"}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("train: %w", &ReuseError{Dir: "runs/a"}),
			"train: runs/a holds an unfinished run; use --resume to continue it or --force to start over"},
		{errors.New("plain"), "plain"},
	} {
		if got := Say(tc.err, flags); got != tc.want {
			t.Errorf("Say(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
