package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyperctl/hyperctl/cmd/hyperctl/internal/randompolicy"
	"github.com/hyperctl/hyperctl/cmd/hyperctl/internal/report"
)

func newReportCmd(a *app) *cobra.Command {
	var out, focus, reference string
	var resamples, randomEpisodes int
	var bootSeed uint64
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Tables and plots (like the paper's Figures 1 and 2) from a compare folder",
		Long: `report reads DIR (made by 'hyperctl compare') and writes, into --out
(default DIR/report):

- report.md: a summary naming the leader of each environment and the rank of
  --focus; aggregated over environments, each controller's interquartile
  mean (IQM) of normalised scores and its probability of improvement over
  the --reference row, with 95 % stratified-bootstrap CIs (--resamples,
  --bootstrap-seed), and the verdict of the rule that picks the default
  controller; per environment, the median and interquartile range of the final
  training reward and final evaluation return, controller time per 1000
  iterations, total wall time and number of seeds; and, at equal experience,
  the evaluation return at a matched frame budget (the fewest frames any
  finished run of the environment trained on), the frames trained, and the
  final minus the best evaluation return of each run (stability); and, when
  the folder has the --reference row (default fixed), each controller
  against it at the matched budget: on how many environments its median is
  higher, on how many seeds, and its probability of improvement.
  A score is a run's evaluation return at the matched budget; normalised,
  0 is a uniformly random policy's mean return (--random-episodes episodes,
  run by this command) and 1 the reference row's IQM.
- performance_profile.png: per controller, the fraction of runs whose
  normalised score exceeds τ, with 95 % bootstrap bands.
- PNG figures: median training reward and evaluation return against
  controller time and against wall time (log x axis, the paper's Figure 1),
  against frames trained (fig3), and box plots at the final iteration (the
  paper's Figure 2).

It works on partial results and lists missing or unfinished runs. The tables
are also printed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, err := report.Load(args[0])
			if err != nil {
				return err
			}
			if len(set.Runs) == 0 {
				return fmt.Errorf("report: no runs with data in %s (expected %s/<env>/<controller>/seed<N>/train.csv)", args[0], args[0])
			}
			if cmd.Flags().Changed("focus") && !slices.Contains(set.Controllers(), focus) {
				return &usageError{err: fmt.Errorf("report: --focus %q: no such controller in %s (it has %s)", focus, args[0], strings.Join(set.Controllers(), ", "))}
			}
			set.Focus = focus
			if cmd.Flags().Changed("reference") && !slices.Contains(set.Controllers(), reference) {
				return &usageError{err: fmt.Errorf("report: --reference %q: no such controller in %s (it has %s)", reference, args[0], strings.Join(set.Controllers(), ", "))}
			}
			set.Reference = reference
			if resamples < 1 {
				return &usageError{err: fmt.Errorf("report: --resamples %d: want at least 1", resamples)}
			}
			if randomEpisodes < 1 {
				return &usageError{err: fmt.Errorf("report: --random-episodes %d: want at least 1", randomEpisodes)}
			}
			set.Bootstrap = report.Bootstrap{Resamples: resamples, Seed: bootSeed}
			start := time.Now()
			set.Random = randomBaselines(cmd.Context(), set.Envs(), randomEpisodes)
			for _, env := range set.Envs() {
				rb := set.Random[env]
				if rb.Err != nil {
					a.log.Warn().Str("env", env).Err(rb.Err).Msg("no random-policy return: the environment is left out of the aggregate")
					continue
				}
				a.log.Info().Str("env", env).Float64("mean", rb.Mean).Float64("stderr", rb.StdErr).Int("episodes", rb.Episodes).Msg("random-policy return")
			}
			a.log.Info().Float64("elapsed_s", time.Since(start).Seconds()).Msg("random-policy returns")
			if out == "" {
				out = filepath.Join(args[0], "report")
			}
			files, err := set.Write(out)
			if err != nil {
				return err
			}
			if err := set.Markdown(cmd.OutOrStdout()); err != nil {
				return err
			}
			for _, f := range files {
				a.log.Info().Str("file", f).Msg("wrote")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output folder (default DIR/report)")
	cmd.Flags().StringVar(&focus, "focus", report.DefaultFocus, "controller whose rank the summary reports")
	cmd.Flags().StringVar(&reference, "reference", report.DefaultReference, "row every controller is compared with, seed by seed, at the matched budget (the \"Against\" section; skipped when the folder lacks it)")
	cmd.Flags().IntVar(&resamples, "resamples", report.DefaultResamples, "bootstrap resamples per confidence interval")
	cmd.Flags().Uint64Var(&bootSeed, "bootstrap-seed", 0, "seed of the bootstrap resampling")
	cmd.Flags().IntVar(&randomEpisodes, "random-episodes", randompolicy.DefaultEpisodes, "episodes of the uniformly random policy whose mean return is the 0 of the normalised scores")
	return cmd
}

// randomBaselines estimates a uniformly random policy's return on each
// environment, one goroutine per environment (an unknown environment gets
// the error instead).
func randomBaselines(ctx context.Context, names []string, episodes int) map[string]report.RandomBaseline {
	out := make(map[string]report.RandomBaseline, len(names))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			est, err := randompolicy.Return(ctx, name, episodes, randompolicy.DefaultSeed)
			rb := report.RandomBaseline{Mean: est.Mean, StdErr: est.StdErr, Episodes: est.Episodes, Seed: est.Seed, Err: err}
			mu.Lock()
			out[name] = rb
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}
