package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	popmethod "github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/experiment/population"
	"github.com/hyperctl/hyperctl/experiment/run"
	"github.com/hyperctl/hyperctl/experiment/slurm"
)

// A population is its own command, not `train --population N`: train
// writes one run folder (--out, --resume, --force, one summary), a
// population writes a folder of member runs plus its log and is continued
// by running the same command again, as compare is.

type populationFlags struct {
	env, method, config, preset, out, backend string
	readyGiven                                bool
	size, jobs, iterations                    int
	seed, frames, ready                       int64
	quantile, resample                        float64
	// PBT and PB2's options against early selection, halving's rungs.
	selection, init         string
	firstExploit, minFrames int64
	eta                     int
	slurm                   slurm.Options
}

func newPopulationCmd(a *app) *cobra.Command {
	f := &populationFlags{}
	cmd := &cobra.Command{
		Use:   "population --env NAME [--method pbt|pb2|mfpbt|random|halving] [--size N] [--frames F] [--ready R] [--out DIR] [flags]",
		Short: "Population-based training: PBT, PB2, MF-PBT, random search or successive halving with a real population (resumable: run again to continue)",
		Long: `population trains --size members of PPO at once. Every --ready frames (a
generation) each member pauses with its checkpoint written; the bottom 25 %
by score (the mean return of its last 10 training episodes) copy a top-25 %
member's complete state (exploit) and move its hyperparameters (explore):
PBT perturbs each by ×0.8 or ×1.2 or resamples it (probability 0.25), PB2
picks them by GP-UCB over (time, score, hyperparameters) → score change on
the population's data. Then the next generation trains.

--first-exploit F (pbt, pb2) exploits nobody before every member has
trained F frames; --selection ttest (pbt, pb2) replaces the quantiles by
Jaderberg et al.'s t-test: each member copies a member drawn at random when
that member's last 10 training episode returns are significantly better
(Welch, p < 0.05); members then record every episode's return in
episodes.csv. --method mfpbt is MF-PBT: two sub-populations of size/2
(size a multiple of 8) evolving every 1 and 10 ready points, with
asymmetric migration. --method random trains --size configurations drawn
at random for the whole budget in one generation, without exploits.
--method halving is synchronous successive halving: every member trains to
the first rung, the top 1/--eta continue from their checkpoints to the
next, and so on up to --frames (rungs at --frames/eta^k, at least
--min-frames); the result says the frames used. --init same starts every
member at the config's values, so the members differ only in seed (halving
over seeds of one configuration).

DIR holds one ordinary run folder per member, DIR/<env>/<method>/seed<S>
(S = seed·size + k), so 'hyperctl status DIR' and 'hyperctl report DIR'
read it, and the population log DIR/population.jsonl: every member's score
at every ready point, every exploit (who copied whom, at which frame) and
every explore (old → new hyperparameters). Killed at any moment, the same
command continues it exactly. The tuned keys are the config's
[[controller.tune]] entries (default: the paper's four).

--backend slurm submits each generation as a job array, one task per
member, and the step after it as a job that depends on the array and
submits the next generation: no process stays on the login node.`,
		Example: `  hyperctl population --env halfcheetah --method pb2 --size 8 --frames 1000000 --ready 50000 --jobs 2 --out runs/pop
  hyperctl population --env reacher --method pbt --size 4 --frames 200000 --ready 20000 --out runs/pbt --backend slurm --time 01:00:00
  hyperctl population --env halfcheetah --method pbt --first-exploit 400000 --selection ttest --size 8 --out runs/pbt-late
  hyperctl population --env halfcheetah --method halving --eta 3 --size 8 --out runs/sha`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPopulation(cmd.Context(), a, cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.env, "env", "", "environment (see 'hyperctl envs')")
	fl.StringVar(&f.method, "method", popmethod.PB2, "population method: "+strings.Join(popmethod.Methods(), ", "))
	fl.IntVar(&f.size, "size", 8, "members")
	fl.Var(configs.NewFramesValue(&f.frames, defaultPopulationFrames), "frames", "frame budget of every member")
	fl.Var(configs.NewFramesValue(&f.ready, defaultPopulationFrames/population.DefaultGenerations), "ready", "frames per generation: members exploit and explore every this many frames")
	fl.Int64Var(&f.seed, "seed", 0, "population seed: member k trains with seed seed·size + k, and every random draw of the steps derives from it")
	fl.StringVar(&f.config, "config", "", "TOML config of the members (its env is replaced by --env); default: configs/<env>.toml")
	fl.StringVar(&f.preset, "preset", "", "presets applied to the members' config (see 'hyperctl train --help')")
	fl.IntVar(&f.iterations, "iterations", 0, "iterations cap of every member (default: the config's)")
	fl.Float64Var(&f.quantile, "quantile", 0.25, "fraction of members in the bottom (copying) and top (copied) quantiles")
	fl.Float64Var(&f.resample, "resample", 0.25, "pbt: probability of resampling a hyperparameter instead of perturbing it")
	fl.Var(configs.NewFramesValue(&f.firstExploit, 0), "first-exploit", "pbt, pb2: no member is exploited before every member has trained this many frames (0: from the first ready point)")
	fl.StringVar(&f.selection, "selection", popmethod.SelectTruncation, "pbt, pb2: exploit selection, truncation (bottom quantile copies top quantile) or ttest (copy a random member whose last 10 episode returns are significantly better, Welch p < 0.05)")
	fl.StringVar(&f.init, "init", "random", "members' first hyperparameters: random (member 0 at the config's values, the others drawn from the tuned space) or same (all at the config's values, differing only in seed)")
	fl.IntVar(&f.eta, "eta", popmethod.DefaultEta, "halving: reduction factor: the top 1/eta of each rung's members continue to the next")
	fl.Var(configs.NewFramesValue(&f.minFrames, 1), "min-frames", "halving: the least frames of the first rung (1: as many rungs as --size allows, 1 + floor(log_eta size))")
	fl.StringVar(&f.out, "out", "", "population folder (default runs/<env>-<method>-<size>-seed<S>, or the next free of its -run2, -run3, ... when that one holds a finished or another population)")
	fl.IntVar(&f.jobs, "jobs", defaultJobs(), "members trained at once (local backend)")
	fl.StringVar(&f.backend, "backend", backendLocal, "where members train: local (a pool of --jobs processes) or slurm")
	fl.StringVar(&f.slurm.Partition, "partition", "", "slurm: partition")
	fl.StringVar(&f.slurm.Time, "time", "", "slurm: time limit per member task and per step job, HH:MM:SS")
	fl.IntVar(&f.slurm.CPUsPerTask, "cpus-per-task", 1, "slurm: CPUs per member, also its threads")
	fl.StringVar(&f.slurm.Mem, "mem", "", "slurm: memory per member, e.g. 2G")
	fl.IntVar(&f.slurm.MaxParallel, "max-parallel", 0, "slurm: at most this many members at once (0: no limit)")
	fl.StringArrayVar(&f.slurm.SbatchArgs, "sbatch-arg", nil, "slurm: an extra sbatch option, e.g. --sbatch-arg=--account=proj (repeatable)")
	cmd.AddCommand(newPopulationMemberCmd(a), newPopulationStepCmd(a))
	return cmd
}

// The default of --frames; --ready's divides it into
// population.DefaultGenerations generations of 50,000 frames.
const defaultPopulationFrames = 1_000_000

// defaultJobs is compare's default: one member per core.
func defaultJobs() int { return max(1, matrix.JobThreads(1)) }

// check validates the flags; every failure is a usage error naming the flag.
func (f *populationFlags) check(cmd *cobra.Command) error {
	if f.env == "" {
		return usagef("population: --env is required")
	}
	f.readyGiven = cmd.Flags().Changed("ready")
	spec, err := envs.Lookup(f.env)
	if err != nil {
		return envError("--env", f.env)
	}
	f.env = spec.Name
	f.method = strings.ToLower(f.method)
	if !slices.Contains(popmethod.Methods(), f.method) {
		return usagef("--method %q: want one of %s", f.method, strings.Join(popmethod.Methods(), ", "))
	}
	switch {
	case f.size < 2 || f.size > population.MaxSize:
		return usagef("--size: want an integer in [2, %d] members, got %d", population.MaxSize, f.size)
	case f.frames < 1:
		return usagef("--frames: want a frame budget >= 1, got %d", f.frames)
	case f.readyGiven && f.method != popmethod.Halving && f.method != popmethod.RandomSearch && (f.ready < 1 || f.ready > f.frames):
		return usagef("--ready: want an integer in [1, --frames = %d], got %d", f.frames, f.ready)
	case f.seed < 0:
		return usagef("--seed: want an integer >= 0, got %d", f.seed)
	case cmd.Flags().Changed("iterations") && f.iterations < 1:
		return usagef("--iterations: want an integer >= 1, got %d", f.iterations)
	case !(f.quantile > 0 && f.quantile <= 0.5):
		return usagef("--quantile: want a fraction in (0, 0.5], got %v", f.quantile)
	case !(f.resample >= 0 && f.resample <= 1):
		return usagef("--resample: want a probability in [0, 1], got %v", f.resample)
	case cmd.Flags().Changed("resample") && f.method != popmethod.PBT:
		return usagef("--resample: only with --method pbt")
	case cmd.Flags().Changed("quantile") && f.method != popmethod.PBT && f.method != popmethod.PB2:
		return usagef("--quantile: only with --method pbt or pb2")
	case cmd.Flags().Changed("first-exploit") && f.method != popmethod.PBT && f.method != popmethod.PB2:
		return usagef("--first-exploit: only with --method pbt or pb2")
	case f.firstExploit > f.frames: // the frames parser refuses negatives
		return usagef("--first-exploit: want a frame in [0, --frames = %d], got %d", f.frames, f.firstExploit)
	case cmd.Flags().Changed("selection") && f.method != popmethod.PBT && f.method != popmethod.PB2:
		return usagef("--selection: only with --method pbt or pb2")
	case f.selection != popmethod.SelectTruncation && f.selection != popmethod.SelectTTest:
		return usagef("--selection %q: want %s or %s", f.selection, popmethod.SelectTruncation, popmethod.SelectTTest)
	case (cmd.Flags().Changed("eta") || cmd.Flags().Changed("min-frames")) && f.method != popmethod.Halving:
		return usagef("--eta, --min-frames: only with --method halving")
	case f.init != "random" && f.init != "same":
		return usagef("--init %q: want random or same", f.init)
	case f.eta < 2:
		return usagef("--eta: want an integer >= 2, got %d", f.eta)
	case f.minFrames < 1 || f.minFrames > f.frames:
		return usagef("--min-frames: want a frame in [1, --frames = %d], got %d", f.frames, f.minFrames)
	case cmd.Flags().Changed("ready") && (f.method == popmethod.Halving || f.method == popmethod.RandomSearch):
		return usagef("--ready: not with --method %s (%s)", f.method, map[string]string{popmethod.Halving: "its generations are the rungs that --eta and --min-frames set", popmethod.RandomSearch: "it trains one generation of --frames"}[f.method])
	case f.jobs < 1:
		return usagef("--jobs: want an integer >= 1, got %d", f.jobs)
	}
	if set := popmethod.DefaultSettings(f.method); set.ValidateSize(f.size) != nil {
		return usagef("--%v", set.ValidateSize(f.size)) // "size: …" names the field
	}
	if f.method == popmethod.Halving {
		if rungs, err := popmethod.Rungs(f.size, f.eta, f.minFrames, f.frames); err == nil && len(rungs) < 2 {
			return usagef("--size %d, --eta %d, --min-frames %d: one rung, so successive halving would stop no member; want --size >= --eta and --min-frames <= --frames/--eta = %d",
				f.size, f.eta, f.minFrames, f.frames/int64(f.eta))
		}
	}
	if f.preset != "" {
		if err := configs.CheckPreset(f.preset); err != nil {
			return usagef("--preset: %v", err)
		}
	}
	cf := &compareFlags{backend: f.backend, slurm: f.slurm}
	return checkBackendFlags(cmd, cf)
}

// define resolves the members' config and the population's definition.
func (f *populationFlags) define() (population.Definition, configs.Run, error) {
	// The members' controller is the population's: the config's tuned
	// keys are its space.
	set := []configs.Override{func(r *configs.Run) { r.Env, r.Frames, r.Controller.Name = f.env, f.frames, configs.Population }}
	if f.iterations > 0 {
		set = append(set, func(r *configs.Run) { r.Iterations = f.iterations })
	}
	if shrink.run != nil {
		set = append(set, shrink.run)
	}
	base, err := loadConfig(f.config, f.env, set)
	if err != nil {
		return population.Definition{}, base, err
	}
	if f.preset != "" {
		// Presets are applied to the members' config, population's.
		if err := configs.ApplyPreset(&base, f.preset); err != nil {
			return population.Definition{}, base, usagef("--preset: %v", err)
		}
	}
	if !f.readyGiven && f.ready > f.frames && f.method != popmethod.Halving && f.method != popmethod.RandomSearch {
		// The default does not fit --frames: say so, with a value that does.
		r, ok, err := population.SuggestReady(base, f.frames)
		if err != nil {
			return population.Definition{}, base, err
		}
		if !ok {
			return population.Definition{}, base, usagef("--ready: its default, %d frames per generation, is more than --frames %d, which is less than one iteration of the members: raise --frames", f.ready, f.frames)
		}
		return population.Definition{}, base, usagef("--ready: its default, %d frames per generation, is more than --frames %d; give --ready, e.g. --ready %d (up to %d generations, each at least one iteration)", f.ready, f.frames, r, population.DefaultGenerations)
	}
	spec := population.Spec{Method: f.method, Size: f.size, Seed: f.seed, Frames: f.frames, Ready: f.ready,
		Quantile: f.quantile, Resample: f.resample, FirstExploit: f.firstExploit, SameStart: f.init == "same", Command: "hyperctl " + strings.Join(os.Args[1:], " ")}
	spec.Selection, spec.Eta, spec.MinFrames = f.selection, f.eta, f.minFrames
	def, run, err := population.Define(base, spec)
	if errors.As(err, new(*population.SpecError)) {
		return def, run, usagef("population: %w", err)
	} else if err != nil {
		return def, run, fmt.Errorf("population: %w", err)
	}
	return def, run, nil
}

func runPopulation(ctx context.Context, a *app, cmd *cobra.Command, f *populationFlags) error {
	if err := f.check(cmd); err != nil {
		return err
	}
	if shrink.population != nil {
		shrink.population(f)
	}
	def, run, err := f.define()
	if err != nil {
		return err
	}
	if f.out == "" {
		base := population.DefaultDir(def)
		var why string
		if f.out, why, err = population.NewDir(base, def); err != nil {
			return err
		}
		if f.out != base {
			a.log.Info().Str("default", base).Str("out", f.out).Msgf("the default folder %s %s; this population goes to %s", base, why, f.out)
		}
	}
	if isDryRun(ctx) {
		return nil
	}
	abs, err := filepath.Abs(f.out)
	if err != nil {
		return usagef("--out %s: %v", f.out, err)
	}
	f.out = abs
	self, err := executable()
	if err != nil {
		return fmt.Errorf("population: %w", err)
	}
	if f.backend == backendSlurm {
		if def.Backend, err = json.Marshal(population.Backend{Binary: self, Options: f.slurm}); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fmt.Errorf("population: --out %s: %w", f.out, err)
	}
	if err := population.Init(f.out, def, run); err != nil {
		return err
	}
	if old, err := population.ReadDefinition(f.out); err == nil && old.ReceiverRandom != def.ReceiverRandom {
		a.log.Warn().Str("out", f.out).Msg("population: defined by an older hyperctl, whose exploited members took their donor's random state with its weights; it continues under that rule (docs/populations.md)")
	}
	if r, _, err := population.ReadResultLegacy(f.out); err == nil { // a finished population is only read
		return population.PrintResult(cmd.OutOrStdout(), f.out, r, "already finished")
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if f.backend == backendSlurm {
		return submitPopulation(ctx, cmd, f.out)
	}
	a.log.Info().Str("method", def.Settings.Method).Int("size", def.Size).Int("generations", def.Generations()).Int64("ready", def.Ready).
		Int("jobs", f.jobs).Str("out", f.out).Msg("population")
	o := population.Options{Out: f.out, Jobs: f.jobs, Log: a.log, Binary: self, Term: a.terminal(cmd)}
	if shrink.member != nil {
		o.Train = shrink.member(f.out)
	}
	res, err := population.Run(ctx, o)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("population interrupted; run the same command again to continue")
		}
		return err
	}
	return population.PrintResult(cmd.OutOrStdout(), f.out, res, "finished")
}

// submitPopulation submits the current generation's chain unless the
// population's jobs are already queued.
func submitPopulation(ctx context.Context, cmd *cobra.Command, out string) error {
	sub, q, err := population.Submit(ctx, slurm.ExecRunner{}, out)
	if err != nil {
		return err
	}
	if len(q) > 0 {
		say(cmd, "population: its jobs %s are in Slurm's queue; nothing submitted. Follow with: hyperctl status %s\n", strings.Join(q, ", "), out)
		return nil
	}
	say(cmd, "population: submitted generation %d: members as job array %s, the step after it as job %s (it submits the next generation). Follow with: hyperctl status %s\n",
		sub.Generation, sub.Array, sub.Step, out)
	return nil
}

// newPopulationMemberCmd is the work of one member in one generation (a
// Slurm array task), or without --generation and --member a worker of the
// local pool, which trains the members the pool asks for.
func newPopulationMemberCmd(a *app) *cobra.Command {
	var out string
	var g, k, threads int
	cmd := &cobra.Command{
		Use:    "member --out DIR [--generation G --member K]",
		Short:  "Train one member of a population through one generation, or serve a pool (run by 'hyperctl population')",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o := population.MemberOptions{Threads: threads, Log: a.log, Version: versionString(), Train: run.TrainMember}
			if out != "" && g == -1 && k == -1 {
				return population.ServeMembers(cmd.Context(), out, o)
			} else if out == "" || g < 0 || k < 0 {
				return usagef("population member: --out, --generation >= 0 and --member >= 0 are required")
			}
			return population.TrainMember(cmd.Context(), out, g, k, o)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "population folder")
	cmd.Flags().IntVar(&g, "generation", -1, "generation")
	cmd.Flags().IntVar(&k, "member", -1, "member")
	cmd.Flags().IntVar(&threads, "threads", 0, "libtorch threads and environment workers (0: the config's)")
	return cmd
}

// newPopulationStepCmd is the step after a generation, as a Slurm job: it
// exploits and explores, then submits the next generation (or, after the
// last, writes the result).
func newPopulationStepCmd(a *app) *cobra.Command {
	var out string
	var g int
	cmd := &cobra.Command{
		Use:    "step --out DIR --generation G",
		Short:  "The exploit/explore step after a generation, then the next generation's submission (a Slurm job of 'hyperctl population --backend slurm')",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" || g < 0 {
				return usagef("population step: --out and --generation >= 0 are required")
			}
			return populationStep(cmd, a, out, g)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "population folder")
	cmd.Flags().IntVar(&g, "generation", -1, "the generation that ended")
	return cmd
}

func populationStep(cmd *cobra.Command, a *app, out string, g int) error {
	c, err := population.ChainStep(cmd.Context(), slurm.ExecRunner{}, out, g, os.Getenv("SLURM_JOB_ID"))
	if c.Stepped {
		a.log.Info().Int("generation", g).Msg("population: step done")
	}
	switch {
	case err != nil:
		return err
	case c.Result != nil:
		return population.PrintResult(cmd.OutOrStdout(), out, *c.Result, "finished")
	case len(c.Queued) > 0:
		a.log.Warn().Strs("jobs", c.Queued).Msg("population: jobs of this population are queued already; the next generation is not submitted twice")
	case c.Next != nil:
		a.log.Info().Int("generation", g+1).Str("array", c.Next.Array).Str("step", c.Next.Step).Msg("population: next generation submitted")
	}
	return nil
}
