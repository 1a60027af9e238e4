package matrix

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
)

// Compare is one compare folder to fill: its matrix and what its runs
// share. The manifest is written before a backend runs it.
type Compare struct {
	Out      string // the compare folder, as the user named it
	Manifest Manifest
	Spec     Spec
}

// Backend runs the unfinished runs of a compare (Local), or submits them
// (the Slurm backend, package slurm), and tells w what it did and what to
// do next.
type Backend interface {
	Run(ctx context.Context, c Compare, w io.Writer) error
}

// Local is the backend that trains the runs on this machine: a pool of
// Jobs workers, each running one `hyperctl train --resume` child at a time
// (RunFolder) with JobThreads(Jobs) threads. Finished runs are skipped.
type Local struct {
	Binary string // the hyperctl executable
	Jobs   int    // runs at once (>= 1)
	Log    zerolog.Logger
	// Bar is the terminal of the progress bar (nil: no bar; the pool logs
	// one line per run at info level instead of debug).
	Bar *os.File
	// Train (optional) runs `hyperctl ARGS` into the run folder dir in
	// this process instead of a RunFolder child: tests may train in
	// process, as population.Options.Train lets a population's members.
	Train func(ctx context.Context, dir string, args []string) error
}

// Run implements Backend.
func (l Local) Run(ctx context.Context, c Compare, w io.Writer) error {
	var todo []Cell
	var dirs []string
	skipped := 0
	for _, cell := range c.Manifest.Cells() {
		dir := filepath.Join(c.Out, cell.Dir())
		st, err := rundir.Inspect(dir)
		if err != nil {
			return err
		}
		if st == rundir.Finished {
			skipped++
			continue
		}
		todo, dirs = append(todo, cell), append(dirs, dir)
	}
	total := skipped + len(todo)
	l.Log.Info().Int("runs", total).Int("finished", skipped).Int("to_run", len(todo)).Int("jobs", l.Jobs).Msg("compare")
	if len(todo) == 0 {
		fmt.Fprintf(w, "compare: %s; nothing to do. Next: hyperctl report %s\n", allFinished(total, c.Out), c.Out)
		return nil
	}
	lock, err := safefile.AcquireShared(c.Out, CompareLockFile) // status: its runs wait for these workers
	if err != nil {
		return fmt.Errorf("compare %s: %w", c.Out, err)
	}
	defer lock.Release()
	threads := JobThreads(l.Jobs)
	train := l.Train
	if train == nil {
		train = func(ctx context.Context, dir string, args []string) error {
			return RunFolder(ctx, l.Log, l.Binary, dir, args, threads)
		}
	}
	prog := newCompareProgress(l.Bar, dirs, skipped, c.Manifest.Iterations, c.Manifest.Frames)
	queue := make(chan int)
	var mu sync.Mutex
	var failed []string
	done := 0
	var wg sync.WaitGroup
	for range min(l.Jobs, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range queue {
				cell, dir := todo[i], dirs[i]
				start := time.Now()
				err := train(ctx, dir, append([]string{"train"}, c.Spec.TrainArgs(cell, dir)...))
				mu.Lock()
				done++
				ev := l.Log.Info()
				if prog.active() {
					ev = l.Log.Debug() // the bar shows the progress
				}
				if err != nil {
					failed = append(failed, fmt.Sprintf("%s: %v", cell, err))
					ev = l.Log.Error().Err(err)
				}
				ev.Str("env", cell.Env).Str("controller", cell.Controller).Int64("seed", cell.Seed).
					Float64("took_s", time.Since(start).Round(100*time.Millisecond).Seconds()).Int("done", done).Int("of", len(todo)).Msg("run finished")
				mu.Unlock()
				prog.runDone(i)
			}
		}()
	}
feed:
	for i := range todo {
		select {
		case queue <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	prog.finish()
	if ctx.Err() != nil {
		return fmt.Errorf("compare interrupted after %d of %d runs; re-run the same command to continue", done, len(todo))
	}
	if len(failed) > 0 {
		sort.Strings(failed)
		return fmt.Errorf("compare: %d of %d runs failed (their logs are train.log in each run folder):\n  %s", len(failed), len(todo), strings.Join(failed, "\n  "))
	}
	fmt.Fprintf(w, "compare: %s done (%s already finished). Next: hyperctl report %s\n", Plural(len(todo), "run", "runs"), Plural(skipped, "was", "were"), c.Out)
	return nil
}

// allFinished says that every one of the total runs in out is finished:
// "the 1 run in out is finished", "all 3 runs in out are finished".
func allFinished(total int, out string) string {
	if total == 1 {
		return fmt.Sprintf("the %s in %s is finished", Plural(total, "run", "runs"), out)
	}
	return fmt.Sprintf("all %s in %s are finished", Plural(total, "run", "runs"), out)
}

// Plural words n with the singular or plural form: "1 run", "5 runs", "1
// was", "0 were".
func Plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
