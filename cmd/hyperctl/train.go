package main

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hyperctl/hyperctl/cmd/hyperctl/internal/rundir"
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/ppo"
)

// trainFlags are the flags of `hyperctl train`.
type trainFlags struct {
	env, controller, config, out string
	transferFrom                 string
	seed                         int64
	iterations, threads          int
	resume, force                bool
}

func newTrainCmd(a *app) *cobra.Command {
	f := &trainFlags{}
	cmd := &cobra.Command{
		Use:   "train --env NAME [flags]",
		Short: "Train PPO on an environment while a controller tunes its hyperparameters",
		Long: `train runs PPO on one environment. Before every iteration the controller
(default: hypercontroller) chooses the tuned hyperparameters; 'fixed' trains
with the configured ones. Defaults come from the built-in configs/<env>.toml;
--config replaces them and the flags override both.

Outputs in --out (default runs/<env>-<controller>-seed<N>):
  config.toml    the resolved config
  train.csv      one row per iteration, flushed as it is written
  eval.csv       one row per deterministic evaluation
  checkpoint/    the latest checkpoint (every checkpoint_every iterations and on SIGINT/SIGTERM)
  summary.json   written at the end; marks the run finished

A killed run continues with --resume, with no lost or duplicated rows.`,
		Example: `  hyperctl train --env halfcheetah
  hyperctl train --env reacher --controller gpucb --seed 3 --iterations 200 --out runs/reacher-gpucb-3
  hyperctl train --env reacher --out runs/r --resume`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			run, err := resolveConfig(cmd, f)
			if err != nil {
				return err
			}
			out := f.out
			if out == "" {
				out = filepath.Join("runs", fmt.Sprintf("%s-%s-seed%d", run.Env, run.Controller.Name, run.Seed))
			}
			return trainRun(cmd.Context(), a, cmd, run, out, f.resume, f.force)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.env, "env", "", "environment short name or Gymnasium id (see 'hyperctl envs')")
	fl.StringVar(&f.controller, "controller", "", "controller name (see 'hyperctl controllers'), or fixed; default from the config")
	fl.StringVar(&f.config, "config", "", "TOML config file; default: the built-in configs/<env>.toml")
	fl.Int64Var(&f.seed, "seed", 0, "seed (overrides the config)")
	fl.IntVar(&f.iterations, "iterations", 0, "PPO iterations (overrides the config)")
	fl.StringVar(&f.out, "out", "", "output folder (default runs/<env>-<controller>-seed<N>)")
	fl.IntVar(&f.threads, "threads", 0, "libtorch threads (overrides ppo.threads; 0 keeps the config)")
	fl.BoolVar(&f.resume, "resume", false, "continue the unfinished run in --out (starts it if --out is empty; does nothing if finished)")
	fl.BoolVar(&f.force, "force", false, "overwrite a finished or unfinished run in --out")
	fl.StringVar(&f.transferFrom, "transfer-from", "", "deltabo: folder of finished train/compare runs to transfer from (sets [controller.deltabo] transfer_from)")
	return cmd
}

// resolveConfig loads the config (file or built-in default) and applies the
// command-line overrides. Bad flags are usage errors; bad files are runtime
// errors naming the file.
func resolveConfig(cmd *cobra.Command, f *trainFlags) (configs.Run, error) {
	var run configs.Run
	var err error
	switch {
	case f.config != "":
		run, err = configs.Load(f.config)
		if err != nil {
			return run, err
		}
		if f.env != "" {
			spec, lerr := envs.Lookup(f.env)
			if lerr != nil {
				return run, usagef("--env: %v", lerr)
			}
			run.Env = spec.Name
		}
	case f.env != "":
		spec, lerr := envs.Lookup(f.env)
		if lerr != nil {
			return run, usagef("--env: %v", lerr)
		}
		run, err = configs.Default(spec.Name)
		if err != nil {
			return run, err
		}
	default:
		return run, usagef("train: --env or --config is required")
	}
	spec, err := envs.Lookup(run.Env)
	if err != nil {
		return run, fmt.Errorf("config %s: env: %w", f.config, err)
	}
	run.Env = spec.Name
	if cmd.Flags().Changed("controller") {
		if f.controller != configs.Fixed {
			if _, err := controller.Lookup(f.controller); err != nil {
				return run, usagef("--controller: %v, %s", err, configs.Fixed)
			}
		}
		run.Controller.Name = f.controller
	}
	if cmd.Flags().Changed("seed") {
		if f.seed < 0 {
			return run, usagef("--seed: want an integer >= 0, got %d", f.seed)
		}
		run.Seed = f.seed
	}
	if cmd.Flags().Changed("iterations") {
		if f.iterations < 1 {
			return run, usagef("--iterations: want an integer >= 1, got %d", f.iterations)
		}
		run.Iterations = f.iterations
	}
	if cmd.Flags().Changed("threads") {
		if f.threads < 0 {
			return run, usagef("--threads: want an integer >= 0, got %d", f.threads)
		}
		run.PPO.Threads = f.threads
	}
	if err := run.Validate(); err != nil {
		return run, fmt.Errorf("resolved config: %w", err)
	}
	if cmd.Flags().Changed("transfer-from") {
		if err := applyTransferFrom(&run, f.transferFrom); err != nil {
			return run, err
		}
	}
	// Record the chosen method's settings (defaults when the file has no
	// table), so config.toml alone reproduces the run.
	if name := run.Controller.Name; name != configs.Fixed {
		s, err := run.Controller.MethodSettings(name)
		if err != nil {
			return run, err
		}
		run.Controller.Settings[name] = s
	}
	return run, nil
}

// transferSetter is implemented by the settings of controllers that
// transfer from earlier runs (deltabo).
type transferSetter interface {
	SetTransferFrom(dir, objective string)
}

// supportsTransfer reports whether a registered controller takes
// --transfer-from.
func supportsTransfer(name string) bool {
	e, err := controller.Lookup(name)
	if err != nil {
		return false
	}
	_, ok := e.Defaults().(transferSetter)
	return ok
}

// applyTransferFrom is --transfer-from: it sets the controller's source
// folder (made absolute, so config.toml stays valid from any directory) and
// the objective its source runs must have logged (this run's).
func applyTransferFrom(run *configs.Run, dir string) error {
	name := run.Controller.Name
	if name == configs.Fixed || !supportsTransfer(name) {
		return usagef("--transfer-from: only for controllers that transfer from earlier runs (deltabo); this run's controller is %s", name)
	}
	if dir == "" {
		return usagef("--transfer-from: want a folder of finished runs")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return usagef("--transfer-from %s: %v", dir, err)
	}
	s, err := run.Controller.MethodSettings(name)
	if err != nil {
		return err
	}
	obj, err := controller.ParseObjective(run.Controller.Objective)
	if err != nil {
		return err
	}
	s.(transferSetter).SetTransferFrom(abs, obj.String())
	if run.Controller.Settings == nil {
		run.Controller.Settings = map[string]controller.Settings{}
	}
	run.Controller.Settings[name] = s
	return nil
}

// trainHeader is train.csv's header; the four tunable hyperparameters are
// always logged, tuned or not.
var trainHeader = []string{"iteration", "frames", "wall_time_s", "controller_time_s", "train_reward", "objective",
	"episodes", "mean_episode_return", "batch_size", "clip", "gae_lambda", "lr", "rejected_updates"}

var evalHeader = []string{"iteration", "frames", "wall_time_s", "controller_time_s", "eval_return", "eval_steps"}

// progressState is what a checkpoint records besides the trainer and the
// controller, so a resumed run continues its clocks and objective.
type progressState struct {
	Iteration  int     // iterations completed
	WallS      float64 // cumulative wall time, s
	CtrlS      float64 // cumulative controller time, s
	PrevReward float64 // R_{t−1} for the objective column
	HavePrev   bool
	LastEval   float64
	HaveEval   bool
}

// checkpointFile holds everything in one file, written atomically.
type checkpointFile struct {
	Version    int
	Progress   progressState
	Trainer    []byte
	Controller []byte
}

const checkpointName = "checkpoint.bin"

func writeCheckpoint(dir string, tr *ppo.Trainer, ctl *controller.Controller, ps progressState) error {
	var c checkpointFile
	c.Version, c.Progress = 1, ps
	var err error
	if c.Trainer, err = tr.Snapshot(); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if ctl != nil {
		if c.Controller, err = ctl.Snapshot(); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(c); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	cdir := filepath.Join(dir, rundir.CheckpointDir)
	if err := os.MkdirAll(cdir, 0o755); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return rundir.WriteFileAtomic(filepath.Join(cdir, checkpointName), buf.Bytes())
}

func readCheckpoint(dir string) (*checkpointFile, error) {
	path := filepath.Join(dir, rundir.CheckpointDir, checkpointName)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read checkpoint: %w", err)
	}
	var c checkpointFile
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&c); err != nil {
		return nil, fmt.Errorf("checkpoint %s is unreadable: %w", path, err)
	}
	if c.Version != 1 {
		return nil, fmt.Errorf("checkpoint %s: version %d, want 1", path, c.Version)
	}
	return &c, nil
}

// comparableConfig is a config's text with machine-only settings (threads)
// neutralised, for the --resume check.
func comparableConfig(r configs.Run) (string, error) {
	r.PPO.Threads = 0
	return r.Encode()
}

// clearRun removes a previous run's files (only the ones train writes).
func clearRun(dir string) error {
	for _, n := range []string{rundir.SummaryFile, rundir.TrainCSV, rundir.EvalCSV, rundir.ConfigFile} {
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("overwrite %s: %w", dir, err)
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, rundir.CheckpointDir)); err != nil {
		return fmt.Errorf("overwrite %s: %w", dir, err)
	}
	return nil
}

// trainRun prepares the run folder and trains.
func trainRun(ctx context.Context, a *app, cmd *cobra.Command, run configs.Run, out string, resume, force bool) error {
	state, err := rundir.Inspect(out)
	if err != nil {
		return err
	}
	cfgText, err := run.Encode()
	if err != nil {
		return err
	}
	switch {
	case state == rundir.Finished && resume && !force:
		fmt.Fprintf(cmd.OutOrStdout(), "train: the run in %s is already finished; nothing to do (use --force to train it again)\n", out)
		return nil
	case state == rundir.Finished && !force:
		return fmt.Errorf("train: %s holds a finished run; use --force to overwrite it or --out for another folder", out)
	case state == rundir.Unfinished && !resume && !force:
		return fmt.Errorf("train: %s holds an unfinished run; use --resume to continue it or --force to start over", out)
	case state == rundir.Unfinished && resume && !force:
		old, err := configs.Load(filepath.Join(out, rundir.ConfigFile))
		if err != nil {
			return fmt.Errorf("train --resume: %w", err)
		}
		a1, err1 := comparableConfig(old)
		a2, err2 := comparableConfig(run)
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		if d := rundir.ConfigDiff(a1, a2); d != "" {
			return fmt.Errorf("train --resume: %s was started with a different config; refusing to mix them.\n(- in the folder, + now):\n%s", out, d)
		}
	}
	if err := rundir.CheckWritable(out); err != nil {
		return err
	}
	if force && state != rundir.Empty {
		if err := clearRun(out); err != nil {
			return err
		}
		state = rundir.Empty
	}

	// Build the trainer and the controller before writing anything else, so
	// a failure here leaves the folder as it was.
	log := a.log
	tr, err := ppo.New(run.Env, run.PPO, run.Seed, ppo.WithLogger(log))
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	defer tr.Close()
	var ctl *controller.Controller
	var space controller.Space
	if run.Controller.Name != configs.Fixed {
		space, err = run.Controller.Space()
		if err != nil {
			return fmt.Errorf("train: %w", err)
		}
		// Settings adapted to the run, interval = "auto" resolved.
		settings, opts, err := run.ControllerSetup()
		if err != nil {
			return fmt.Errorf("train: %w", err)
		}
		if run.Controller.Interval == configs.IntervalAuto {
			log.Info().Int("interval", opts.Interval).Msg(`controller.interval = "auto" resolved`)
		}
		ctl, err = controller.Build(run.Controller.Name, settings, space, opts)
		if err != nil {
			return fmt.Errorf("train: %w", err)
		}
	}
	objective, _ := controller.ParseObjective(run.Controller.Objective)

	var ps progressState
	if state == rundir.Unfinished {
		ck, err := readCheckpoint(out)
		if err != nil {
			return err
		}
		if ck != nil {
			if err := tr.Restore(ck.Trainer); err != nil {
				return fmt.Errorf("train --resume: %w", err)
			}
			if ctl != nil {
				if err := ctl.Restore(ck.Controller); err != nil {
					return fmt.Errorf("train --resume: %w", err)
				}
			}
			ps = ck.Progress
			log.Info().Str("out", out).Int("iteration", ps.Iteration).Msg("resuming from checkpoint")
		} else {
			log.Info().Str("out", out).Msg("no checkpoint yet: starting the run over")
		}
	}
	if ps.Iteration >= run.Iterations {
		return fmt.Errorf("train --resume: checkpoint is at iteration %d of %d but the run has no summary; remove %s or use --force", ps.Iteration, run.Iterations, out)
	}
	if err := rundir.WriteFileAtomic(filepath.Join(out, rundir.ConfigFile), []byte(cfgText)); err != nil {
		return err
	}
	tcsv, err := rundir.OpenCSV(filepath.Join(out, rundir.TrainCSV), trainHeader, ps.Iteration)
	if err != nil {
		return err
	}
	defer tcsv.Close()
	ecsv, err := rundir.OpenCSV(filepath.Join(out, rundir.EvalCSV), evalHeader, ps.Iteration)
	if err != nil {
		return err
	}
	defer ecsv.Close()

	log.Info().Str("env", run.Env).Str("controller", run.Controller.Name).Int64("seed", run.Seed).
		Int("iterations", run.Iterations).Int("from", ps.Iteration).Str("networks", tr.Networks()).Str("out", out).Msg("training")

	prog := newProgress(cmd, a, run.Iterations, ps.Iteration)
	segStart := time.Now()
	baseWall := ps.WallS
	var lastFrames int64
	each := func(rep ppo.Report) error {
		st := rep.Stats
		ps.WallS = baseWall + time.Since(segStart).Seconds()
		ps.CtrlS += rep.ControllerTime.Seconds()
		obj := ""
		switch {
		case objective == controller.Reward:
			obj = fmtF(st.Reward)
		case ps.HavePrev && objective == controller.Delta:
			obj = fmtF(st.Reward - ps.PrevReward)
		case ps.HavePrev && objective == controller.DeltaPerSecond:
			obj = fmtF((st.Reward - ps.PrevReward) / math.Max(st.Elapsed.Seconds(), 1e-9))
		}
		ps.PrevReward, ps.HavePrev = st.Reward, true
		meanRet := ""
		if len(st.Returns) > 0 {
			s := 0.0
			for _, r := range st.Returns {
				s += r
			}
			meanRet = fmtF(s / float64(len(st.Returns)))
		}
		if err := tcsv.Append(st.Iteration, st.TotalFrames, ps.WallS, ps.CtrlS, st.Reward, obj,
			len(st.Returns), meanRet, st.BatchSize, st.Clip, st.GAELambda, st.LR, tr.Rejected()); err != nil {
			return err
		}
		if rep.Eval != nil {
			steps := 0
			for _, l := range rep.Eval.Lengths {
				steps += l
			}
			if len(rep.Eval.Lengths) > 0 {
				steps /= len(rep.Eval.Lengths)
			}
			if err := ecsv.Append(st.Iteration, st.TotalFrames, ps.WallS, ps.CtrlS, rep.Eval.Mean, steps); err != nil {
				return err
			}
			ps.LastEval, ps.HaveEval = rep.Eval.Mean, true
		}
		ps.Iteration = st.Iteration + 1
		lastFrames = st.TotalFrames
		if ps.Iteration%run.CheckpointEvery == 0 && ps.Iteration < run.Iterations {
			if err := writeCheckpoint(out, tr, ctl, ps); err != nil {
				return err
			}
		}
		prog.update(ps, st, rep)
		return nil
	}
	err = ppo.Run(ctx, tr, ctl, run.PPO, ppo.RunOptions{Iterations: run.Iterations, EvalEvery: run.EvalEvery}, each)
	prog.finish()
	if err != nil {
		if ctx.Err() != nil {
			if cerr := writeCheckpoint(out, tr, ctl, ps); cerr != nil {
				return fmt.Errorf("train: interrupted at iteration %d, and the checkpoint failed: %w", ps.Iteration, cerr)
			}
			return fmt.Errorf("train: interrupted at iteration %d; checkpoint written; continue with: hyperctl train --out %s --resume (plus the same --env/--config flags)", ps.Iteration, out)
		}
		return fmt.Errorf("train: %w", err)
	}
	sum := rundir.Summary{
		Env: run.Env, Controller: run.Controller.Name, Seed: run.Seed, Iterations: run.Iterations,
		Frames: lastFrames, WallTimeS: ps.WallS, ControllerTimeS: ps.CtrlS, FinalTrainReward: ps.PrevReward,
		RejectedUpdates: tr.Rejected(),
	}
	if ps.WallS > 0 {
		sum.FramesPerSecond = float64(lastFrames) / ps.WallS
	}
	if ps.HaveEval {
		v := ps.LastEval
		sum.FinalEvalReturn = &v
	}
	if ctl != nil {
		sum.FinalHyper = space.Map(mustSuggested(ctl))
	}
	if err := rundir.WriteSummary(out, sum); err != nil {
		return err
	}
	_ = os.RemoveAll(filepath.Join(out, rundir.CheckpointDir))
	evalStr := "-"
	if sum.FinalEvalReturn != nil {
		evalStr = fmtF(*sum.FinalEvalReturn)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "train: done: %s with %s, seed %d: %d iterations, %d frames in %.1f s (%.0f frames/s); final training reward %s, final evaluation return %s; controller time %.4f s; outputs in %s\n",
		run.Env, run.Controller.Name, run.Seed, run.Iterations, lastFrames, ps.WallS, sum.FramesPerSecond, fmtF(sum.FinalTrainReward), evalStr, ps.CtrlS, out)
	return nil
}

// mustSuggested returns the configuration in force at the end of the run.
func mustSuggested(ctl *controller.Controller) controller.Config {
	c, err := ctl.Suggest()
	if err != nil {
		return nil
	}
	return c
}

func fmtF(v float64) string { return fmt.Sprintf("%.6g", v) }

// progress shows a bar on a terminal and periodic log lines otherwise.
type progress struct {
	bar     *progressbar.ProgressBar
	a       *app
	total   int
	lastLog time.Time
}

func newProgress(cmd *cobra.Command, a *app, total, start int) *progress {
	p := &progress{a: a, total: total, lastLog: time.Now()}
	if f, ok := cmd.ErrOrStderr().(*os.File); ok && term.IsTerminal(int(f.Fd())) && a.logFormat != "json" {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(f),
			progressbar.OptionSetDescription("training"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionSetWidth(30),
		)
		_ = p.bar.Set(start)
	}
	return p
}

func (p *progress) update(ps progressState, st ppo.IterStats, rep ppo.Report) {
	fps := 0.0
	if ps.WallS > 0 {
		fps = float64(st.TotalFrames) / ps.WallS
	}
	eval := "-"
	if ps.HaveEval {
		eval = fmt.Sprintf("%.1f", ps.LastEval)
	}
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("frames %d | %.0f f/s | reward %.3f | eval %s", st.TotalFrames, fps, st.Reward, eval))
		_ = p.bar.Set(ps.Iteration)
		return
	}
	if time.Since(p.lastLog) >= 10*time.Second || ps.Iteration == p.total || rep.Eval != nil {
		p.lastLog = time.Now()
		ev := p.a.log.Info().Int("iteration", ps.Iteration).Int("of", p.total).Int64("frames", st.TotalFrames).
			Float64("frames_per_s", math.Round(fps)).Float64("train_reward", st.Reward)
		if ps.HaveEval {
			ev = ev.Float64("eval_return", ps.LastEval)
		}
		if it := ps.Iteration; it > 0 && ps.WallS > 0 {
			ev = ev.Str("eta", time.Duration(ps.WallS/float64(it)*float64(p.total-it)*float64(time.Second)).Round(time.Second).String())
		}
		ev.Msg("progress")
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		fmt.Fprintln(os.Stderr)
	}
}
