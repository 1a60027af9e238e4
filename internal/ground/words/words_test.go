package words

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// flags are a command line's words, as hyperctl's.
var flags = Words{Resume: "--resume", Force: "--force", Out: "--out", Continue: "hyperctl train --out %s --resume",
	ResumeIn: "--out %s --resume", ForceIn: "--out %s --force",
	Resuming: "train --resume", Retrain: "hyperctl train --config %s --out NEW_FOLDER", Kernels: "--kernels pinned or native",
	Population: "`hyperctl population`", RunPopulation: "run that command on the population folder",
	Policy: "--policy %s", Video: "--capture-video",
	Set: "--set", Controller: "--controller", TransferFrom: "--transfer-from DIR", Episodes: "--episodes", Seed: "--seed",
	Ready: "--ready", CPUsPerTask: "--cpus-per-task", MaxParallel: "--max-parallel", Partition: "--partition",
	Mem: "--mem", Time: "--time", SbatchArg: "--sbatch-arg", DryRun: "--dry-run", Listen: "--listen", TokenFile: "--token-file", AddrFile: "--addr-file"}

// TestWorded: an AdviceError speaks Go by itself and a command line's
// flags through In.
func TestWorded(t *testing.T) {
	inner := &AdviceError{Msg: "{resuming}: ", Err: errors.New("no exact resume"), After: ": use {kernels} or {force}"}
	for _, tc := range []struct {
		err       Worded
		goText    string
		flagsText string
	}{
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
		{&AdviceError{Msg: "runs/a has no policy-best; {policy} loads the other", Policy: "final"},
			"runs/a has no policy-best; LoadPolicy with the name policy-final loads the other",
			"runs/a has no policy-best; --policy final loads the other"},
		// An advice around another one says both in the same words.
		{&AdviceError{Msg: "member 0: ", Err: fmt.Errorf("train: %w", inner), After: ". Or use another {out}"},
			"member 0: train: train: resume: no exact resume: use ppo.ApplyKernels with ppo.KernelsPinned or ppo.KernelsNative or Options.Force. Or use another Options.Out",
			"member 0: train: train --resume: no exact resume: use --kernels pinned or native or --force. Or use another --out"},
		// The settings of the other packages.
		{&AdviceError{Msg: `{set} "ppo.lr": want KEY=VALUE`},
			`configs.WithSet "ppo.lr": want KEY=VALUE`, `--set "ppo.lr": want KEY=VALUE`},
		{&AdviceError{Msg: "{mem} \"4X\": want a size; {time}: too short", Err: errors.New("x"), After: " ({cpus-per-task}, {max-parallel}, {partition}, {sbatch-arg}, {dry-run})"},
			`slurm.Options.Mem "4X": want a size; slurm.Options.Time: too shortx (slurm.Options.CPUsPerTask, slurm.Options.MaxParallel, slurm.Options.Partition, slurm.Options.SbatchArgs, slurm.Backend.DryRun)`,
			`--mem "4X": want a size; --time: too shortx (--cpus-per-task, --max-parallel, --partition, --sbatch-arg, --dry-run)`},
		{&AdviceError{Msg: "give {listen} another address, or {token-file}; {addr-file}"},
			"give RunConfig.Listen another address, or RunConfig.TokenFile; RunConfig.AddrFile",
			"give --listen another address, or --token-file; --addr-file"},
		{&AdviceError{Msg: "{episodes}, {seed}, {ready}, {controller}, {transfer-from}"},
			"episodes, seed, Spec.Ready, an Override that sets Controller.Name, configs.SetTransferFrom",
			"--episodes, --seed, --ready, --controller, --transfer-from DIR"},
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

// TestFillEveryWord: every plain field of Words has a placeholder that
// Fill replaces (the five formats have theirs in AdviceError), and Go
// names every setting without a flag.
func TestFillEveryWord(t *testing.T) {
	formats := map[string]bool{"Continue": true, "ResumeIn": true, "ForceIn": true, "Retrain": true, "Policy": true}
	var w Words
	v := reflect.ValueOf(&w).Elem()
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if g := reflect.ValueOf(Go).Field(i).String(); g == "" || strings.Contains(g, "--") {
			t.Errorf("Go.%s = %q: want a Go name", name, g)
		}
		if formats[name] {
			continue
		}
		v.Field(i).SetString("<" + name + ">")
		n := 0
		for j := 0; j+1 < len(w.pairs()); j += 2 {
			if w.pairs()[j+1] == "<"+name+">" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("Words.%s has %d placeholders, want 1", name, n)
		}
		v.Field(i).SetString("")
	}
	if got := flags.Fill("use {force} or {set}; {continue} stays"); got != "use --force or --set; {continue} stays" {
		t.Errorf("Fill = %q", got)
	}
}

// TestSay: Say puts the first Worded error of a chain in w's words and
// leaves an error without one as it is.
func TestSay(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("train: %w", &AdviceError{Msg: "use {resume} or {force}"}), "train: use --resume or --force"},
		{fmt.Errorf("compare: %w", &AdviceError{Msg: "{mem} \"x\": want a size"}), `compare: --mem "x": want a size`},
		{errors.New("plain"), "plain"},
	} {
		if got := Say(tc.err, flags); got != tc.want {
			t.Errorf("Say(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
