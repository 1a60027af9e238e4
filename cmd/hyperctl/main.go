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
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:]))
}

// run executes the CLI and returns the process exit code: 0 on success, 2 for
// usage errors, 1 for runtime failures.
func run(ctx context.Context, args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintf(os.Stderr, "hyperctl: %v\n", err)
	var ue *usageError
	// cobra reports an unknown subcommand as a plain error: a usage error too.
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") {
		fmt.Fprintln(os.Stderr, "Run 'hyperctl --help' for usage.")
		return 2
	}
	return 1
}
