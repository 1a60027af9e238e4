package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/hyperctl/hyperctl/cmd/hyperctl/internal/seeds"
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/experiment/analysis"
	"github.com/hyperctl/hyperctl/experiment/slurm"
)

type compareFlags struct {
	envs, controllers, seeds, config, out string
	transferFrom                          string
	sets                                  []string // --set, passed to every run
	jobs, iterations                      int
	frames                                int64
	framesSet                             bool // --frames was given (0 included: it clears the config's budget)
	force                                 bool
	backend                               string
	slurm                                 slurm.Options // --backend slurm
	dryRun                                bool
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
	fl.StringVar(&f.config, "config", "", "TOML config used for every run (its env is replaced per run); default: configs/<env>.toml")
	fl.StringArrayVar(&f.sets, "set", nil, "set a config key of every run, KEY=VALUE (repeatable), as train --set")
	fl.StringVar(&f.out, "out", "", "output folder (required)")
	fl.IntVar(&f.jobs, "jobs", runtime.NumCPU(), "runs in parallel; each gets NumCPU/jobs threads (at least 1)")
	fl.IntVar(&f.iterations, "iterations", 0, "PPO iterations per run (overrides the config)")
	fl.Int64Var(&f.frames, "frames", 0, "frame budget per run: each stops after the first iteration that reaches it (overrides the config's frames)")
	fl.BoolVar(&f.force, "force", false, "accept a different matrix in an existing --out (the manifest is rewritten)")
	fl.StringVar(&f.transferFrom, "transfer-from", "", "folder of finished runs for the controllers that transfer from earlier runs (deltabo); passed to their 'hyperctl train'")
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

type job struct {
	env, ctrl string // ctrl is the matrix's entry, NAME or NAME@PRESET
	seed      int64
	dir       string
}

// splitVariant splits a --controllers entry NAME@PRESET into the
// controller's name and its presets ("" without @).
func splitVariant(entry string) (name, preset string) {
	name, preset, _ = strings.Cut(entry, "@")
	return name, preset
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
		name, preset := splitVariant(c)
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
		if f.transferFrom == "" {
			return usagef("--transfer-from: want a folder of finished runs")
		}
		if !slices.ContainsFunc(ctrls, func(c string) bool { n, _ := splitVariant(c); return supportsTransfer(n) }) {
			return usagef("--transfer-from: none of --controllers %s transfers from earlier runs (deltabo does)", strings.Join(ctrls, ","))
		}
		abs, err := filepath.Abs(f.transferFrom)
		if err != nil {
			return usagef("--transfer-from %s: %v", f.transferFrom, err)
		}
		f.transferFrom = abs
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
	if cmd.Flags().Changed("iterations") && f.iterations < 1 {
		return usagef("--iterations: want an integer >= 1, got %d", f.iterations)
	}
	f.framesSet = cmd.Flags().Changed("frames")
	if f.framesSet && f.frames < 0 {
		return usagef("--frames: want an integer >= 0 (0: no frame budget), got %d", f.frames)
	}
	// The resolved iteration count goes in the manifest.
	iters, frames := configs.Base().Iterations, configs.Base().Frames
	if f.config != "" {
		r, err := configs.Load(f.config)
		if err != nil {
			return err
		}
		iters, frames = r.Iterations, r.Frames
	}
	if f.iterations != 0 {
		iters = f.iterations
	}
	if f.framesSet {
		frames = f.frames
	}
	// Every run's config must resolve (a frame budget the iteration cap
	// cannot reach, a preset that does not fit its controller) before any
	// run starts.
	updateThreads := 1 // the most ppo.update_threads of any run
	for _, e := range envNames {
		for _, c := range ctrls {
			r, err := f.checkRun(e, c)
			if err != nil {
				return fmt.Errorf("compare: %s/%s: %w", e, c, err)
			}
			updateThreads = max(updateThreads, r.PPO.UpdateThreads)
		}
	}
	if threads := jobThreads(f.jobs); f.backend != backendSlurm && updateThreads > threads {
		a.log.Warn().Int("update_threads", updateThreads).Int("jobs", f.jobs).Int("cpus", runtime.NumCPU()).
			Msgf("compare: ppo.update_threads = %d with --jobs %d on %d CPUs gives each run %d CPU(s): the update's threads would compete with the other jobs' runs and make them slower (results/ppo/README.md); use --jobs %d or update_threads = 1",
				updateThreads, f.jobs, runtime.NumCPU(), threads, max(1, runtime.NumCPU()/updateThreads))
	}
	man := analysis.Manifest{Envs: envNames, Controllers: ctrls, Seeds: seedList, Iterations: iters, Frames: frames, Command: "hyperctl " + strings.Join(os.Args[1:], " ")}
	man, err = mergeManifest(f.out, man, f.force)
	if err != nil {
		return err
	}
	if f.backend == backendSlurm && f.dryRun {
		return runCompareSlurm(ctx, a, cmd, f, man)
	}
	if err := rundir.CheckWritable(f.out); err != nil {
		return err
	}
	if err := writeManifest(f.out, man); err != nil {
		return err
	}
	if f.backend == backendSlurm {
		return runCompareSlurm(ctx, a, cmd, f, man)
	}

	var jobs []job
	skipped := 0
	for _, e := range envNames {
		for _, c := range ctrls {
			for _, s := range seedList {
				dir := filepath.Join(f.out, e, c, fmt.Sprintf("seed%d", s))
				st, err := rundir.Inspect(dir)
				if err != nil {
					return err
				}
				if st == rundir.Finished {
					skipped++
					continue
				}
				jobs = append(jobs, job{env: e, ctrl: c, seed: s, dir: dir})
			}
		}
	}
	total := skipped + len(jobs)
	a.log.Info().Int("runs", total).Int("finished", skipped).Int("to_run", len(jobs)).Int("jobs", f.jobs).Msg("compare")
	if len(jobs) == 0 {
		fmt.Fprintf(cmd.OutOrStdout(), "compare: all %d runs in %s are finished; nothing to do. Next: hyperctl report %s\n", total, f.out, f.out)
		return nil
	}
	threads := jobThreads(f.jobs)
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("compare: cannot find the hyperctl executable: %w", err)
	}

	prog := newCompareProgress(cmd, a, jobs, skipped, iters, frames)
	queue := make(chan job)
	var mu sync.Mutex
	var failed []string
	done := 0
	var wg sync.WaitGroup
	for w := 0; w < min(f.jobs, len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				start := time.Now()
				err := runTrainJob(ctx, a.log, self, j, f, threads)
				mu.Lock()
				done++
				ev := a.log.Info()
				if prog.active() {
					ev = a.log.Debug() // the bar shows the progress
				}
				if err != nil {
					failed = append(failed, fmt.Sprintf("%s/%s/seed%d: %v", j.env, j.ctrl, j.seed, err))
					ev = a.log.Error().Err(err)
				}
				ev.Str("env", j.env).Str("controller", j.ctrl).Int64("seed", j.seed).
					Float64("took_s", time.Since(start).Round(100*time.Millisecond).Seconds()).Int("done", done).Int("of", len(jobs)).Msg("run finished")
				mu.Unlock()
				prog.runDone()
			}
		}()
	}
feed:
	for _, j := range jobs {
		select {
		case queue <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	prog.finish()
	if ctx.Err() != nil {
		return fmt.Errorf("compare interrupted after %d of %d runs; re-run the same command to continue", done, len(jobs))
	}
	if len(failed) > 0 {
		sort.Strings(failed)
		return fmt.Errorf("compare: %d of %d runs failed (their logs are train.log in each run folder):\n  %s", len(failed), len(jobs), strings.Join(failed, "\n  "))
	}
	fmt.Fprintf(cmd.OutOrStdout(), "compare: %s done (%s already finished). Next: hyperctl report %s\n", plural(len(jobs), "run", "runs"), plural(skipped, "was", "were"), f.out)
	return nil
}

// jobThreads is the number of threads each of jobs local runs gets: the
// CPUs shared out, at least 1.
func jobThreads(jobs int) int { return max(1, runtime.NumCPU()/jobs) }

// checkRun resolves the config of the runs of env and a --controllers
// entry as their 'hyperctl train' will (the flags compare passes on).
func (f *compareFlags) checkRun(env, entry string) (configs.Run, error) {
	name, preset := splitVariant(entry)
	set := []configs.Override{func(r *configs.Run) { r.Env, r.Controller.Name = env, name }}
	if f.iterations > 0 {
		set = append(set, func(r *configs.Run) { r.Iterations = f.iterations })
	}
	if f.framesSet {
		set = append(set, func(r *configs.Run) { r.Frames = f.frames })
	}
	if len(f.sets) > 0 {
		set = append(set, configs.WithSet(f.sets...))
	}
	if preset != "" {
		set = append(set, configs.WithPreset(preset))
	}
	if f.config != "" {
		return configs.Load(f.config, set...)
	}
	return configs.Default(env, set...)
}

// mergeManifest checks the matrix against the one already in out: a
// different one is refused unless force. The Slurm jobs recorded there are
// kept, so status still sees them.
func mergeManifest(out string, m analysis.Manifest, force bool) (analysis.Manifest, error) {
	path := filepath.Join(out, analysis.ManifestFile)
	if b, err := os.ReadFile(path); err == nil {
		var old analysis.Manifest
		if json.Unmarshal(b, &old) == nil {
			if !force && (!slices.Equal(old.Envs, m.Envs) || !slices.Equal(old.Controllers, m.Controllers) || !slices.Equal(old.Seeds, m.Seeds) || old.Iterations != m.Iterations || old.Frames != m.Frames) {
				return m, fmt.Errorf("compare: %s holds a different matrix (envs %v, controllers %v, seeds %v, %d iterations, frame budget %d); use another --out, or --force to adopt the new one",
					out, old.Envs, old.Controllers, old.Seeds, old.Iterations, old.Frames)
			}
			m.SlurmJobs = old.SlurmJobs
		}
	}
	return m, nil
}

// writeManifest records the matrix.
func writeManifest(out string, m analysis.Manifest) error { return analysis.WriteManifest(out, m) }

// trainArgs are the `hyperctl train` arguments of one run of the matrix,
// for both backends (the caller adds --threads).
// ctrl is the matrix's entry, NAME or NAME@PRESET.
func trainArgs(f *compareFlags, env, ctrl string, seed int64, dir string) []string {
	name, preset := splitVariant(ctrl)
	args := []string{"--env", env, "--controller", name, "--seed", strconv.FormatInt(seed, 10), "--out", dir, "--resume"}
	if f.config != "" {
		args = append(args, "--config", f.config)
	}
	if f.iterations > 0 {
		args = append(args, "--iterations", strconv.Itoa(f.iterations))
	}
	if f.framesSet {
		args = append(args, "--frames", strconv.FormatInt(f.frames, 10))
	}
	for _, a := range f.sets {
		args = append(args, "--set", a)
	}
	if preset != "" {
		args = append(args, "--preset", preset)
	}
	if f.transferFrom != "" && supportsTransfer(name) {
		args = append(args, "--transfer-from", f.transferFrom)
	}
	return args
}

// lockPoll is how often compare checks whether a locked run folder is free.
const lockPoll = 250 * time.Millisecond

// waitUnlocked returns when no other process holds dir's writer lock (or
// ctx ends), logging once that it waits and for which pid.
func waitUnlocked(ctx context.Context, log zerolog.Logger, dir string) error {
	lastPID := -1
	for {
		pid, held, err := rundir.Holder(dir)
		if err != nil {
			return err
		}
		if !held {
			return nil
		}
		if pid != lastPID {
			log.Warn().Str("run", dir).Int("pid", pid).Msg("the run folder is locked by another writer; waiting for it to end")
			lastPID = pid
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}

// runTrainJob runs one `hyperctl train --resume` as a child process, its
// output going to the run folder's train.log. It first waits while another
// process writes the folder (an orphan of an earlier compare, a train
// started by hand), and again if the child finds the folder locked
// (exit code 3). Cancellation sends SIGINT so the child checkpoints before
// exiting; if compare dies, the child gets SIGTERM (Pdeathsig, Linux) and
// checkpoints too.
func runTrainJob(ctx context.Context, log zerolog.Logger, self string, j job, f *compareFlags, threads int) error {
	return runFolderJob(ctx, log, self, j.dir, append([]string{"train"}, trainArgs(f, j.env, j.ctrl, j.seed, j.dir)...), threads)
}

// runFolderJob runs `hyperctl ARGS --threads N` as a child process that
// writes the run folder dir, as runTrainJob describes.
func runFolderJob(ctx context.Context, log zerolog.Logger, self, dir string, args []string, threads int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for {
		if err := waitUnlocked(ctx, log, dir); err != nil {
			return err
		}
		err := runChild(ctx, self, dir, args, threads)
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == exitLocked {
			continue // another writer took the folder meanwhile: wait for it
		}
		return err
	}
}

// runChild runs `hyperctl --log-format json ARGS --threads N`, its output
// appended to dir's train.log.
func runChild(ctx context.Context, self, dir string, cmdArgs []string, threads int) error {
	logf, err := os.OpenFile(filepath.Join(dir, rundir.LogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	args := append(append([]string{"--log-format", "json"}, cmdArgs...), "--threads", strconv.Itoa(threads))
	c := exec.Command(self, args...)
	c.Stdout, c.Stderr = logf, logf
	c.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(threads), "OMP_NUM_THREADS="+strconv.Itoa(threads))
	c.SysProcAttr = childProcAttr()
	// The parent-death signal fires when the thread that started the child
	// exits, not the process: keep this goroutine on its thread until the
	// child has ended.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := c.Start(); err != nil {
		return err
	}
	waitDone := make(chan error, 1)
	go func() { waitDone <- c.Wait() }()
	select {
	case err := <-waitDone:
		if err != nil {
			return fmt.Errorf("%w (see %s)", err, filepath.Join(dir, rundir.LogFile))
		}
		return nil
	case <-ctx.Done():
		_ = c.Process.Signal(syscall.SIGINT)
		select {
		case <-waitDone:
		case <-time.After(60 * time.Second):
			_ = c.Process.Kill()
			<-waitDone
		}
		return ctx.Err()
	}
}

// plural words n with the singular or plural form: "1 run", "5 runs", "1
// was", "0 were".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
