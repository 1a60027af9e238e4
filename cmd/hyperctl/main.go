// Command hyperctl tunes the hyperparameters of reinforcement-learning
// training while it trains. Run `hyperctl --help` for the subcommands.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/internal/ground/words"
)

func main() {
	setKernels(os.Args[1:])
	// SIGHUP (the terminal of a compare closed) ends a run like SIGTERM:
	// the checkpoint, policy-final and the "interrupted" line.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	os.Exit(execute(ctx, os.Args[1:]))
}

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // a runtime failure
	exitUsage   = 2 // a bad flag or an unknown name
	exitLocked  = 3 // the run folder (or serve's --state) is locked by another writer (compare waits and retries)
)

// dryRunKey marks a context whose commands stop once their flags and
// config are checked, before any work (withDryRun).
type dryRunKey struct{}

// withDryRun returns ctx for a dry run: train, compare, population, eval,
// render and report check their flags, and train and compare resolve their
// configs, then return without training, reading runs or writing anything.
// The test of the examples checks with it those it cannot run (Slurm's).
func withDryRun(ctx context.Context) context.Context {
	return context.WithValue(ctx, dryRunKey{}, true)
}

// isDryRun reports whether ctx is a dry run's (withDryRun).
func isDryRun(ctx context.Context) bool { return ctx.Value(dryRunKey{}) != nil }

// shrink is empty but in the test that runs every example
// (helpexamples_test.go): there it makes each command's work small and
// keeps it in this process.
var shrink struct {
	run        configs.Override                                           // every run's config, after the flags (a --preset after it)
	population func(*populationFlags)                                     // a population's frames, after the checks
	train      func(ctx context.Context, dir string, args []string) error // a compare's run (matrix.Local.Train)
	member     func(out string) func(ctx context.Context, g, k int) error // a population's members (population.Options.Train)
}

// flagWords are the settings of words.Worded errors as flags.
var flagWords = words.Words{Resume: "--resume", Force: "--force", Out: "--out", Continue: "hyperctl train --out %s --resume",
	ResumeIn: "--out %s --resume", ForceIn: "--out %s --force", Resuming: "train --resume",
	Retrain: "hyperctl train --config %s --out NEW_FOLDER", Kernels: "--kernels pinned or native",
	Population: "`hyperctl population`", RunPopulation: "run that command on the population folder",
	Policy: "--policy %s", Video: "--capture-video", Set: "--set", Controller: "--controller", TransferFrom: "--transfer-from DIR",
	Episodes: "--episodes", Seed: "--seed", Ready: "--ready", CPUsPerTask: "--cpus-per-task", MaxParallel: "--max-parallel",
	Partition: "--partition", Mem: "--mem", Time: "--time", SbatchArg: "--sbatch-arg", DryRun: "--dry-run",
	Listen: "--listen", TokenFile: "--token-file", AddrFile: "--addr-file"}

// execute runs the CLI and returns the process exit code: 0 on success, 2 for
// usage errors (a resume that would change its run's config, a config
// that --set or --preset break, a taken --out without --resume or --force
// included), 3
// when the run folder is being written by another process,
// 1 for other runtime failures.
func execute(ctx context.Context, args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ue *usageError
	if errors.As(err, &ue) && ue.cmd != "" {
		// Named once, by its command, with that command's help.
		sayTo(os.Stderr, "%s: %s\nRun '%s --help' for usage.\n", ue.cmd, words.Say(ue.err, flagWords), ue.cmd)
		return exitUsage
	}
	sayTo(os.Stderr, "hyperctl: %s\n", words.Say(err, flagWords)) // the library's advice, in flags
	var le *rundir.LockedError
	if errors.As(err, &le) {
		return exitLocked
	}
	// cobra reports an unknown subcommand as a plain error: a usage error
	// too, as are a resume that would change its run's config and a run
	// folder the flags do not say what to do with.
	var me *rundir.ConfigMismatchError
	var re *rundir.ReuseError
	if ue != nil || errors.As(err, &me) || errors.As(err, &re) || strings.HasPrefix(err.Error(), "unknown command") {
		fmt.Fprintln(os.Stderr, "Run 'hyperctl --help' for usage.")
		return exitUsage
	}
	return exitFailure
}
