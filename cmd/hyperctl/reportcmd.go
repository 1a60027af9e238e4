package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyperctl/hyperctl/cmd/hyperctl/internal/seeds"
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/experiment/analysis"
	"github.com/hyperctl/hyperctl/experiment/randompolicy"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// Report output formats (--format).
const (
	formatMarkdown = "markdown"
	formatJSON     = "json"
	formatCSV      = "csv"
)

func newReportCmd(a *app) *cobra.Command {
	var out, focus, reference, format, score string
	var resamples, randomEpisodes int
	var bootSeed uint64
	var traces, envNames, ctrlNames, published []string
	var seedSpec string
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Tables and plots (like the paper's Figures 1 and 2) from a compare folder or any run folders",
		Long: `report reads DIR: a compare folder (made by 'hyperctl compare'), a single
run folder, or any folder with run folders below it (found recursively; a
run is named by its config.toml, or by its folder in a compare's
<env>/<controller>/seed<N> layout). It writes, into --out (default
DIR/report):

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
- with --published, each controller's IQM of its scores beside a score
  published for the environment (rl-zoo: RL Baselines3 Zoo's tuned PPO;
  or your own, ENV=SCORE), with how many runs reach it, and a dotted line
  at that score in the evaluation panels of the figures.
- performance_profile.png: per controller, the fraction of runs whose
  normalised score exceeds τ, with 95 % bootstrap bands.
- PNG figures: median training reward and evaluation return against
  controller time and against wall time (log x axis, the paper's Figure 1),
  against frames trained (fig3), and box plots at the final iteration (the
  paper's Figure 2); with --trace lr,..., each key's value at every
  iteration of every run against frames (<env>_trace_<key>.png): how a
  controller moved it, and where runs without one held it.

It works on partial results and lists missing or unfinished runs, and says
why a finished seed or a section is left out. --envs, --controllers and
--seeds narrow it to some of DIR's runs (the statistics too).

--format says what is printed: markdown (default) the report; json every
table (per run, per environment and controller, the aggregate, the verdict)
as one JSON document, also written to report.json; csv the per-environment
table, with runs.csv, controllers.csv and aggregate.csv written beside
report.md. Undefined numbers are null in JSON, empty in CSV.

--score judge scores each run by the mean of its judge.json (written by
'hyperctl judge', for a compare's runs 'hyperctl judge DIR/*/*/*': its
policy-final, by default, on at least 50 fresh episodes, seeds no training
or selection used) instead of its evaluation return at the matched budget,
in the score columns, the statistics and the against-reference section. A
finished run without a usable judge.json is left out of them, listed with
the reason and the judge command that gives it one; the JSON tables say
"score": "judge" and hold the judge score in their *_at_budget fields.`,
		Example: `  hyperctl report runs/cmp
  hyperctl report runs/halfcheetah-hypercontroller-seed0
  hyperctl report runs --format json | jq '.runs[] | {env, controller, seed, eval_return_at_budget}'
  hyperctl report runs/cmp --format csv > table.csv
  hyperctl report runs/cmp --score judge --out runs/cmp/report-judge
  hyperctl report runs/cmp --published rl-zoo
  hyperctl report runs/cmp --envs halfcheetah --seeds 2 --trace lr \
      --out runs/cmp/halfcheetah-seed2`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains([]string{formatMarkdown, formatJSON, formatCSV}, format) {
				return usagef("--format %q: want markdown, json or csv", format)
			}
			if !slices.Contains(analysis.Scores, score) {
				return usagef("--score %q: want %s", score, strings.Join(analysis.Scores, " or "))
			}
			for _, key := range traces {
				if _, err := ppoconfig.LookupHyperKey(key); err != nil {
					return usagef("--trace %s: %v", key, err)
				}
			}
			var sel analysis.Selection
			if seedSpec != "" {
				var err error
				if sel.Seeds, err = seeds.Parse(seedSpec); err != nil {
					return usagef("report: --seeds %q: %v", seedSpec, err)
				}
			}
			sel.Envs, sel.Controllers = envNames, ctrlNames
			if isDryRun(cmd.Context()) {
				return nil
			}
			set, err := analysis.Load(args[0])
			if err != nil {
				return err
			}
			if err := set.Select(sel); err != nil {
				return usagef("report: %s: --%v", args[0], err)
			}
			if len(set.Runs) == 0 {
				msg := fmt.Sprintf("report: no run with data in %s: a run folder holds train.csv with at least one row, searched for in %s and every folder below it", args[0], args[0])
				if len(set.Problems) > 0 {
					msg += "; unreadable: " + strings.Join(set.Problems, "; ")
				}
				return errors.New(msg)
			}
			for _, f := range [][2]string{{"focus", focus}, {"reference", reference}} {
				if cmd.Flags().Changed(f[0]) && !slices.Contains(set.Controllers(), f[1]) {
					return usagef("report: --%s %q: no such controller in %s (it has %s)", f[0], f[1], args[0], strings.Join(set.Controllers(), ", "))
				}
			}
			set.Focus, set.Reference, set.Score, set.Traces = focus, reference, score, traces
			if err := set.SetPublished(published); err != nil {
				return usagef("report: --published: %v", err)
			}
			if resamples < 1 {
				return &usageError{err: fmt.Errorf("report: --resamples %d: want at least 1", resamples)}
			}
			if randomEpisodes < 1 {
				return &usageError{err: fmt.Errorf("report: --random-episodes %d: want at least 1", randomEpisodes)}
			}
			set.Bootstrap = analysis.Bootstrap{Resamples: resamples, Seed: bootSeed}
			start := time.Now()
			set.Random = analysis.RandomBaselines(cmd.Context(), set.Envs(), randomEpisodes)
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
			switch format {
			case formatMarkdown:
				err = set.Markdown(cmd.OutOrStdout())
			case formatJSON, formatCSV:
				var t *analysis.Tables
				if t, err = set.Tables(); err != nil {
					return err
				}
				if format == formatJSON {
					var path string
					if path, err = t.WriteJSON(out); err == nil {
						files = append(files, path)
						err = t.JSON(cmd.OutOrStdout())
					}
				} else {
					var more []string
					if more, err = t.WriteCSV(out); err == nil {
						files = append(files, more...)
						err = t.ControllersTable(cmd.OutOrStdout())
					}
				}
			}
			if err != nil {
				return err
			}
			for _, f := range files {
				a.log.Info().Str("file", f).Msg("wrote")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "output folder (default DIR/report)")
	cmd.Flags().StringVar(&format, "format", formatMarkdown, "what to print: markdown, json (every table; also report.json) or csv (the per-environment table; also runs.csv, controllers.csv, aggregate.csv)")
	cmd.Flags().StringVar(&score, "score", analysis.ScoreBudget, "a run's score: budget (its evaluation return at the matched budget) or judge (its judge.json mean, fresh episodes; runs without one are left out)")
	cmd.Flags().StringVar(&focus, "focus", "", "controller whose rank the summary reports (default: the folder's only controller, else "+configs.DefaultController+")")
	cmd.Flags().StringVar(&reference, "reference", analysis.DefaultReference, "row every controller is compared with, seed by seed, at the matched budget (the \"Against\" section; skipped when the folder lacks it)")
	cmd.Flags().IntVar(&resamples, "resamples", analysis.DefaultResamples, "bootstrap resamples per confidence interval")
	cmd.Flags().Uint64Var(&bootSeed, "bootstrap-seed", 0, "seed of the bootstrap resampling")
	cmd.Flags().StringSliceVar(&traces, "trace", nil, "hyperparameters to plot at every iteration against frames, one figure per environment and key (<env>_trace_<key>.png), e.g. lr,entropy_coef")
	cmd.Flags().StringSliceVar(&envNames, "envs", nil, "only these environments of DIR")
	cmd.Flags().StringSliceVar(&ctrlNames, "controllers", nil, "only these controllers of DIR")
	cmd.Flags().StringVar(&seedSpec, "seeds", "", "only these seeds of DIR, e.g. 0-4 or 0,3")
	cmd.Flags().StringSliceVar(&published, "published", nil, "scores to show each row beside, per environment: "+analysis.RLZoo+" (RL Baselines3 Zoo's tuned PPO) or ENV=SCORE, e.g. "+analysis.RLZoo+",swimmer=300")
	cmd.Flags().IntVar(&randomEpisodes, "random-episodes", randompolicy.DefaultEpisodes, "episodes of the uniformly random policy whose mean return is the 0 of the normalised scores")
	return cmd
}
