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

	"github.com/hyperctl/hyperctl/configs/rundir"
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
// configs, then return without training, reading runs or writing anything
// (the test of --help's examples uses it).
func withDryRun(ctx context.Context) context.Context {
	return context.WithValue(ctx, dryRunKey{}, true)
}

// isDryRun reports whether ctx is a dry run's (withDryRun).
func isDryRun(ctx context.Context) bool {
	v, _ := ctx.Value(dryRunKey{}).(bool)
	return v
}

// execute runs the CLI and returns the process exit code: 0 on success, 2 for
// usage errors (a resume that would change its run's config included), 3
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
		sayTo(os.Stderr, "%s: %v\nRun '%s --help' for usage.\n", ue.cmd, ue.err, ue.cmd)
		return exitUsage
	}
	sayTo(os.Stderr, "hyperctl: %v\n", err)
	var le *rundir.LockedError
	if errors.As(err, &le) {
		return exitLocked
	}
	// cobra reports an unknown subcommand as a plain error: a usage error
	// too, as is a resume that would change its run's config.
	var me *rundir.ConfigMismatchError
	if ue != nil || errors.As(err, &me) || strings.HasPrefix(err.Error(), "unknown command") {
		fmt.Fprintln(os.Stderr, "Run 'hyperctl --help' for usage.")
		return exitUsage
	}
	return exitFailure
}
