package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hyperctl/hyperctl/cmd/hyperctl/internal/seeds"
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/experiment/slurm"
	"github.com/hyperctl/hyperctl/internal/ground/termtext"
)

type compareFlags struct {
	envs, controllers, seeds, out string
	spec                          matrix.Spec // --config, --set, --iterations, --frames, --transfer-from
	jobs                          int
	force                         bool
	backend                       string
	slurm                         slurm.Options // --backend slurm
	dryRun                        bool
}

func newCompareCmd(a *app) *cobra.Command {
	f := &compareFlags{}
	cmd := &cobra.Command{
		Use:   "compare --env NAMES --controllers NAMES --seeds SPEC --out DIR [flags]",
		Short: "Run several controllers over the same seeds (resumable: re-run until complete)",
		Long: `compare runs the matrix environments × controllers × seeds, one 'hyperctl train'
process per run, with a bounded pool of --jobs workers. Every controller gets
the same seeds. Each run lands in DIR/<env>/<controller>/seed<N>; finished runs
are skipped and unfinished ones resumed, so a compare can be re-run until it is
complete. 'fixed' means PPO with no controller. Then: hyperctl report DIR.

A controller may carry presets, NAME@PRESET (e.g. hypercontroller@rl,
hypercontroller@intercept+kframe): its runs get 'hyperctl train --preset
PRESET' and land in DIR/<env>/NAME@PRESET/seed<N>, so variants of one method
sit side by side in one report. With --frames every run stops at the same
frame budget, for a comparison at equal experience.

--backend slurm submits the runs to Slurm instead, as one job array (one
task per missing or failed run) and returns; 'hyperctl status DIR' follows
them and re-running the same command submits only what is missing or failed.
DIR, the config and the hyperctl binary must be on a filesystem the compute
nodes share, at the same paths.`,
		Example: `  hyperctl compare --env halfcheetah --controllers hypercontroller,gpucb,pb2,hyperband,random,randomstart,fixed --seeds 0-9 --out runs/cmp
  hyperctl compare --env reacher,pusher --controllers hypercontroller,random --seeds 0-4 --iterations 200 --jobs 2 --out runs/small
  hyperctl compare --env pusher --controllers hypercontroller,hypercontroller@rl,fixed --seeds 0-4 --frames 1000000 --out runs/opts
  hyperctl compare --env halfcheetah --controllers hypercontroller,fixed --seeds 0-9 --out /shared/cmp --backend slurm --time 02:00:00 --cpus-per-task 2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCompare(cmd.Context(), a, cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.envs, "env", "", "comma-separated environments (see 'hyperctl envs')")
	fl.StringVar(&f.controllers, "controllers", "", "comma-separated controllers (see 'hyperctl controllers'), fixed for none")
	fl.StringVar(&f.seeds, "seeds", "0-4", "seeds: ranges and lists, e.g. 0-9 or 0,3,7-9")
	fl.StringVar(&f.spec.Config, "config", "", "TOML config used for every run (its env is replaced per run); default: configs/<env>.toml")
	fl.StringArrayVar(&f.spec.Sets, "set", nil, "set a config key of every run, KEY=VALUE (repeatable), as train --set")
	fl.StringVar(&f.out, "out", "", "output folder (required)")
	fl.IntVar(&f.jobs, "jobs", runtime.NumCPU(), "runs in parallel; each gets NumCPU/jobs threads (at least 1)")
	fl.IntVar(&f.spec.Iterations, "iterations", 0, "PPO iterations per run (overrides the config)")
	fl.Var(configs.NewFramesValue(&f.spec.Frames, 0), "frames", "frame budget per run: each stops after the first iteration that reaches it (overrides the config's frames)")
	fl.BoolVar(&f.force, "force", false, "accept a different matrix in an existing --out (the manifest is rewritten)")
	fl.StringVar(&f.spec.TransferFrom, "transfer-from", "", "folder of finished runs for the controllers that transfer from earlier runs (deltabo); passed to their 'hyperctl train'")
	fl.StringVar(&f.backend, "backend", "local", "where the runs run: local (a pool of --jobs processes) or slurm (one job array, submitted with sbatch)")
	addSlurmFlags(fl, f)
	return cmd
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func runCompare(ctx context.Context, a *app, cmd *cobra.Command, f *compareFlags) error {
	if f.out == "" {
		return usagef("compare: --out is required")
	}
	envNames := splitList(f.envs)
	if len(envNames) == 0 {
		return usagef("compare: --env is required")
	}
	for i, e := range envNames {
		spec, err := envs.Lookup(e)
		if err != nil {
			return envError("--env", e)
		}
		envNames[i] = spec.Name
	}
	ctrls := splitList(f.controllers)
	if len(ctrls) == 0 {
		return usagef("compare: --controllers is required")
	}
	for i, c := range ctrls {
		c = strings.ToLower(c)
		ctrls[i] = c
		if slices.Contains(ctrls[:i], c) {
			return usagef("--controllers: %s is listed twice", c)
		}
		name, preset := matrix.SplitVariant(c)
		if strings.Contains(c, "@") {
			if err := configs.CheckPresetFor(name, preset); err != nil {
				return usagef("--controllers: %s: %v", c, err)
			}
		}
		if name == configs.Fixed {
			continue
		}
		if _, err := controller.Lookup(name); err != nil {
			return controllerError("--controllers", name)
		}
	}
	if cmd.Flags().Changed("transfer-from") {
		if f.spec.TransferFrom == "" {
			return usagef("--transfer-from: want a folder of finished runs")
		}
		if !slices.ContainsFunc(ctrls, func(c string) bool { n, _ := matrix.SplitVariant(c); return configs.SupportsTransfer(n) }) {
			return usagef("--transfer-from: none of --controllers %s transfers from earlier runs (deltabo does)", strings.Join(ctrls, ","))
		}
		abs, err := filepath.Abs(f.spec.TransferFrom)
		if err != nil {
			return usagef("--transfer-from %s: %v", f.spec.TransferFrom, err)
		}
		f.spec.TransferFrom = abs
	}
	seedList, err := seeds.Parse(f.seeds)
	if err != nil {
		return usagef("--seeds: %v", err)
	}
	if f.jobs < 1 {
		return usagef("--jobs: want an integer >= 1, got %d", f.jobs)
	}
	if err := checkBackendFlags(cmd, f); err != nil {
		return err
	}
	if cmd.Flags().Changed("iterations") && f.spec.Iterations < 1 {
		return usagef("--iterations: want an integer >= 1, got %d", f.spec.Iterations)
	}
	f.spec.FramesSet = cmd.Flags().Changed("frames")
	// The resolved iteration count goes in the manifest.
	iters, frames, err := f.spec.Length()
	if err != nil {
		return err
	}
	// Every run's config must resolve (a frame budget the iteration cap
	// cannot reach, a preset that does not fit its controller) before any
	// run starts.
	updateThreads := 1 // the most ppo.update_threads of any run
	for _, e := range envNames {
		for _, c := range ctrls {
			r, err := f.spec.Resolve(e, c)
			if err = configFault(f.spec.Config, e, err); err != nil {
				var ue *usageError
				if errors.As(err, &ue) {
					return usagef("compare: %s/%s: %w", e, c, ue.err)
				}
				return fmt.Errorf("compare: %s/%s: %w", e, c, err)
			}
			updateThreads = max(updateThreads, r.PPO.UpdateThreads)
		}
	}
	if threads := matrix.JobThreads(f.jobs); f.backend != backendSlurm && updateThreads > threads {
		a.log.Warn().Int("update_threads", updateThreads).Int("jobs", f.jobs).Int("cpus", runtime.NumCPU()).
			Msgf("compare: ppo.update_threads = %d with --jobs %d on %d CPUs gives each run %d CPU(s): the update's threads would compete with the other jobs' runs and make them slower (results/ppo/README.md); use --jobs %d or update_threads = 1",
				updateThreads, f.jobs, runtime.NumCPU(), threads, max(1, runtime.NumCPU()/updateThreads))
	}
	man := matrix.Manifest{Envs: envNames, Controllers: ctrls, Seeds: seedList, Iterations: iters, Frames: frames, Command: "hyperctl " + strings.Join(os.Args[1:], " ")}
	if man, err = matrix.Merge(f.out, man, f.force); err != nil || isDryRun(ctx) {
		return err
	}
	self, err := executable()
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	var be matrix.Backend = matrix.Local{Binary: self, Jobs: f.jobs, Log: a.log, Bar: a.terminal(cmd), Train: shrink.train}
	if f.backend == backendSlurm {
		be = slurm.Backend{Binary: self, Options: f.slurm, DryRun: f.dryRun, Log: a.log}
	}
	c := matrix.Compare{Out: f.out, Manifest: man, Spec: f.spec}
	if !f.dryRun {
		if err := rundir.CheckWritable(f.out); err != nil {
			return err
		}
		if err := matrix.WriteManifest(f.out, man); err != nil {
			return err
		}
	}
	return be.Run(ctx, c, termtext.Writer(cmd.OutOrStdout()))
}
