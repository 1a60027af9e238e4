package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/experiment/run"
)

// trainOptions are the flags of `hyperctl train` and the run they resolve
// to. The command validates the flags (Validate), resolves the config
// (Complete) and trains (Run).
type trainOptions struct {
	env, controller, config, out string
	transferFrom, preset         string
	sets                         []string // --set KEY=VALUE
	seed, frames                 int64
	iterations, threads          int
	resume, force                bool
	captureVideo                 bool
	captureVideoEvery            int

	run        configs.Run // the resolved config (Complete)
	outDefault bool        // out is the default folder, not --out's
}

func newTrainCmd(a *app) *cobra.Command {
	o := &trainOptions{}
	cmd := &cobra.Command{
		Use:   "train --env NAME [flags]",
		Short: "Train PPO on an environment while a controller tunes its hyperparameters",
		Long: `train runs PPO on one environment. With a controller (--controller),
it chooses the tuned hyperparameters as the run trains; 'fixed', the default,
trains with the configured ones (no controller beat them in the deciding
matrix of docs/study.md). Defaults come from the built-in configs/<env>.toml;
--config replaces them and the flags override both; --set KEY=VALUE sets
any key of the config, checked and reported as the same key in a file.

Outputs in --out (default runs/<env>-<controller>-seed<N>, or
runs/<env>-<controller>@<preset>-seed<N> with --preset; when that folder holds
a finished run, another config's run or one being written, each launch
takes the next free of <default>-run2, <default>-run3, ... and a log line
says which):
  config.toml    the resolved config
  train.csv      one row per iteration, flushed as it is written
  eval.csv       one row per deterministic evaluation
  checkpoint/    the two latest checkpoints, checksummed (every
                 checkpoint_every iterations and on SIGINT/SIGTERM)
  summary.json   written at the end; marks the run finished
  policy-final.safetensors/.json
                 the latest policy (every evaluation and at the end)
  policy-best.safetensors/.json
                 the policy with the highest evaluation return so far
  events.out.tfevents.*
                 TensorBoard events (tensorboard --logdir DIR)
  .lock          held by the writing process (a second writer exits with
                 code 3)
  videos/        with --capture-video: iter<N>.mp4, a deterministic episode of
                 the policy evaluated after iteration N (0-based, as eval.csv),
                 reset with the run's seed, at every K-th evaluation and
                 the last

A killed run continues with --out DIR --resume (the config comes from
DIR/config.toml) exactly as if it had never stopped: train.csv and eval.csv
end up identical to an uninterrupted run's (timing columns aside), with no
lost or duplicated rows. --capture-video is not part of the config: give it
again with --resume to keep recording (the videos after the checkpoint are
recorded again, so none is missing or twice).

--frames N gives the run a frame budget: it stops after the first iteration
that reaches N frames (--iterations, or the config's, still caps it and must
allow it), and fixed's lr anneals over the N frames.

--preset switches on documented deviations from the paper (see
docs/study.md and docs/configs.md), names joined by +:
` + configs.PresetDoc(),
		Example: `  hyperctl train --env halfcheetah
  hyperctl train --env reacher --controller gpucb --seed 3 --iterations 200 --out runs/reacher-gpucb-3
  hyperctl train --out runs/reacher-gpucb-3 --resume
  hyperctl train --env halfcheetah --controller hypercontroller --frames 1e6 --preset rl
  hyperctl train --env halfcheetah --controller hypercontroller --set controller.hypercontroller.d=5`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(cmd); err != nil {
				return err
			}
			if err := o.Complete(cmd); err != nil {
				return err
			}
			if isDryRun(cmd.Context()) {
				return nil
			}
			return o.Run(cmd.Context(), a, cmd)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.env, "env", "", "environment short name or Gymnasium id (see 'hyperctl envs')")
	fl.StringVar(&o.controller, "controller", "", "controller name (see 'hyperctl controllers'), or fixed; default from the config")
	fl.StringVar(&o.config, "config", "", "TOML config file; default: the built-in configs/<env>.toml")
	fl.Int64Var(&o.seed, "seed", 0, "seed (overrides the config)")
	fl.IntVar(&o.iterations, "iterations", 0, "PPO iterations (overrides the config)")
	fl.Var(configs.NewFramesValue(&o.frames, 0), "frames", "frame budget: stop after the first iteration that reaches it (overrides the config's frames; 0: none; 1000000 or 1e6)")
	fl.StringArrayVar(&o.sets, "set", nil, "set a config key, KEY=VALUE (repeatable), e.g. --set ppo.lr=1e-4 --set controller.hypercontroller.d=5; checked as in a config file and recorded in config.toml")
	fl.StringVar(&o.preset, "preset", "", "apply presets to the config: "+strings.Join(configs.PresetNames(), ", ")+" (joined by +)")
	fl.StringVar(&o.out, "out", "", "output folder (default runs/<env>-<controller>-seed<N>, or the next free of its -run2, -run3, ... when that one is taken)")
	fl.IntVar(&o.threads, "threads", 0, "libtorch threads (overrides ppo.threads; 0 keeps the config)")
	fl.BoolVar(&o.resume, "resume", false, "continue the unfinished run in --out (starts it if --out is empty; does nothing if finished)")
	fl.BoolVar(&o.force, "force", false, "overwrite a finished or unfinished run in --out")
	fl.BoolVar(&o.captureVideo, "capture-video", false, fmt.Sprintf("record an evaluation episode (%dx%d) into OUT/videos/ at every K-th evaluation and the last (needs ffmpeg)", run.VideoWidth, run.VideoHeight))
	fl.IntVar(&o.captureVideoEvery, "capture-video-every", run.DefaultVideoEvery, "K of --capture-video: record at evaluations 0, K, 2K, ... (counted from 0)")
	fl.StringVar(&o.transferFrom, "transfer-from", "", "deltabo: folder of finished train/compare runs to transfer from (sets [controller.deltabo] transfer_from)")
	return cmd
}

// Validate checks the flags on their own; every failure is a usage error.
func (o *trainOptions) Validate(cmd *cobra.Command) error {
	if o.env == "" && o.config == "" && !(o.resume && o.out != "") {
		return usagef("train: --env or --config is required (or --out DIR --resume, which takes them from DIR/config.toml)")
	}
	if o.env != "" {
		spec, err := envs.Lookup(o.env)
		if err != nil {
			return envError("--env", o.env)
		}
		o.env = spec.Name
	}
	if o.resume && o.force {
		return usagef("train: --resume and --force contradict each other: --resume continues the run in --out, --force starts it over; give one")
	}
	changed := cmd.Flags().Changed
	if changed("controller") && o.controller != configs.Fixed {
		if _, err := controller.Lookup(o.controller); err != nil {
			return controllerError("--controller", o.controller)
		}
	}
	if changed("seed") && o.seed < 0 {
		return usagef("--seed: want an integer >= 0, got %d", o.seed)
	}
	if changed("iterations") && o.iterations < 1 {
		return usagef("--iterations: want an integer >= 1, got %d", o.iterations)
	}
	if changed("threads") && o.threads < 0 {
		return usagef("--threads: want an integer >= 0, got %d", o.threads)
	}
	if changed("preset") {
		if err := configs.CheckPreset(o.preset); err != nil {
			return usagef("--preset: %v", err)
		}
	}
	if changed("capture-video-every") && !o.captureVideo {
		return usagef("--capture-video-every: only with --capture-video")
	}
	if o.captureVideoEvery < 1 {
		return usagef("--capture-video-every: want an integer >= 1, got %d", o.captureVideoEvery)
	}
	return nil
}

// Complete resolves the run: the config (file or built-in default) with the
// flags applied, validated once; the --transfer-from folder; the chosen
// method's settings, recorded so config.toml alone reproduces the run; and
// the default --out. Bad files are runtime errors naming the file.
func (o *trainOptions) Complete(cmd *cobra.Command) error {
	changed := cmd.Flags().Changed
	var set []configs.Override
	var setFlags []string // the flag of each override in set
	if o.env != "" {
		set = append(set, func(r *configs.Run) { r.Env = o.env })
		setFlags = append(setFlags, "--env "+o.env)
	}
	if changed("controller") {
		set = append(set, func(r *configs.Run) { r.Controller.Name = o.controller })
		setFlags = append(setFlags, "--controller "+o.controller)
	}
	if changed("seed") {
		set = append(set, func(r *configs.Run) { r.Seed = o.seed })
		setFlags = append(setFlags, fmt.Sprintf("--seed %d", o.seed))
	}
	if changed("iterations") {
		set = append(set, func(r *configs.Run) { r.Iterations = o.iterations })
		setFlags = append(setFlags, fmt.Sprintf("--iterations %d", o.iterations))
	}
	if changed("threads") {
		set = append(set, func(r *configs.Run) { r.PPO.Threads = o.threads })
		setFlags = append(setFlags, fmt.Sprintf("--threads %d", o.threads))
	}
	if changed("frames") {
		set = append(set, func(r *configs.Run) { r.Frames = o.frames })
		setFlags = append(setFlags, fmt.Sprintf("--frames %d", o.frames))
	}
	if len(o.sets) > 0 {
		set = append(set, configs.WithSet(o.sets...))
		setFlags = append(setFlags, "--set "+strings.Join(o.sets, " --set "))
	}
	if changed("preset") {
		set = append(set, configs.WithPreset(o.preset))
		setFlags = append(setFlags, "--preset "+o.preset)
	}
	if shrink.run != nil {
		set, setFlags = append(set, shrink.run), append(setFlags, "the test's shrink")
	}
	if o.config == "" && o.env == "" {
		// --out DIR --resume alone: the folder's config.toml has everything.
		p := filepath.Join(o.out, rundir.ConfigFile)
		if _, err := os.Stat(p); err != nil {
			return usagef("train --resume: %s has no %s to resume from; give --env or --config", o.out, rundir.ConfigFile)
		}
		o.config = p
	}
	var err error
	if o.run, err = loadConfig(o.config, o.env, set); err != nil {
		return err
	}
	if err := o.resumeFromFolder(set, setFlags); err != nil {
		return err
	}
	run := &o.run
	spec, err := envs.Lookup(run.Env)
	if err != nil {
		return fmt.Errorf("config %s: env: %w", o.config, err)
	}
	run.Env = spec.Name
	if changed("transfer-from") {
		if err := applyTransferFrom(run, o.transferFrom); err != nil {
			return err
		}
	}
	if err := run.RecordSettings(); err != nil {
		return err
	}
	if o.out == "" {
		o.out, o.outDefault = defaultOut(*run, o.preset), true
	}
	return nil
}

// loadConfig loads the config file (the built-in one of env without
// one) with the flags' overrides set; a failure is configFault's.
func loadConfig(file, env string, set []configs.Override) (configs.Run, error) {
	r, err := configs.LoadOrDefault(file, env, set...)
	return r, configFault(file, env, err)
}

// configFault is err, a failure to load the config file (the built-in one
// of env without one) with the command's flags applied, as a usage error
// (exit code 2) when the flags (--set, --preset, --frames, ...) broke it
// (configs.OverridesBroke). A config that is bad on its own stays a
// runtime error naming its file.
func configFault(file, env string, err error) error {
	if configs.OverridesBroke(file, env, err) {
		return &usageError{err: err}
	}
	return err
}

// resumeFromFolder applies the one rule of a resumed run: it continues
// with the config it was started with. When --resume finds a run in its
// folder (--out, or the default folder of the flags' run), that run's
// config.toml is the base the flags apply to, unless --config names
// another file; any change to the run, by a flag (threads aside, a machine
// setting) or by the --config file, is refused by rundir.CheckSameConfig,
// the one message for every such refusal: it names the flags and shows
// each changed key with its table, as a usage error (exit code 2).
func (o *trainOptions) resumeFromFolder(set []configs.Override, setFlags []string) error {
	if !o.resume {
		return nil
	}
	out := o.out
	if out == "" {
		out = defaultOut(o.run, o.preset)
	}
	p := filepath.Join(out, rundir.ConfigFile)
	if _, err := os.Stat(p); err != nil {
		return nil // nothing to resume: the run starts from the flags
	}
	was, err := configs.ResolveFile(p)
	if err != nil {
		return fmt.Errorf("train --resume: %w", err)
	}
	base := p
	if o.config != "" {
		base = o.config
	}
	baseRun, err := configs.Load(base)
	if err != nil {
		return fmt.Errorf("train --resume: %w", err)
	}
	basePlan, err := baseRun.ResolveRecorded()
	if err != nil {
		return fmt.Errorf("train --resume: %w", err)
	}
	var changing []string
	if basePlan.Comparable != was.Comparable {
		changing = append(changing, "--config "+o.config)
	}
	for i, f := range set {
		r, err := configs.Load(base, f)
		if err != nil {
			return usagef("train --resume: %s does not fit the run in %s: %w", setFlags[i], out, err)
		}
		if rp, err := r.ResolveRecorded(); err != nil {
			return err
		} else if rp.Comparable != basePlan.Comparable {
			changing = append(changing, setFlags[i])
		}
	}
	run, err := configs.Load(base, set...)
	if err != nil {
		return fmt.Errorf("train --resume: %w", err)
	}
	now, err := run.ResolveRecorded()
	if err != nil {
		return err
	}
	if err := rundir.CheckSameConfig(out, was.Comparable, now.Comparable, changing...); err != nil {
		return &usageError{err: err}
	}
	o.run, o.config = run, base
	return nil
}

// defaultOut is --out's default for run: runs/<env>-<controller>-seed<N>,
// or runs/<env>-<controller>@<preset>-seed<N>, as compare names a
// variant's folder.
func defaultOut(run configs.Run, preset string) string {
	name := run.Controller.Name
	if preset != "" {
		name += "@" + preset
	}
	return filepath.Join("runs", matrix.TrainDir(run.Env, name, run.Seed))
}

// Run trains into --out and reports the outcome.
func (o *trainOptions) Run(ctx context.Context, a *app, cmd *cobra.Command) error {
	plan, err := o.run.Resolve()
	if err != nil {
		return err
	}
	if o.outDefault && !o.resume && !o.force {
		base := o.out
		var why string
		if o.out, why, err = matrix.NewTrainDir(base, plan.Comparable); err != nil {
			if errors.As(err, new(*matrix.StoppedRunError)) {
				return &usageError{err: err}
			}
			return err
		}
		if o.out != base {
			a.log.Info().Str("default", base).Str("out", o.out).Msgf("the default folder %s %s; this run goes to %s", base, why, o.out)
		}
	}
	opts := run.Options{
		Out: o.out, Resume: o.resume, Force: o.force, Log: a.log, Monitor: run.NewTrainProgress(cmd.ErrOrStderr(), a.log, a.logFormat == "json"), Version: versionString(),
	}
	if o.captureVideo {
		opts.Video = &run.VideoOptions{Every: o.captureVideoEvery}
	}
	res, err := run.Train(ctx, plan, opts)
	if err != nil {
		return err
	}
	if res.AlreadyFinished {
		say(cmd, "train: the run in %s is already finished; nothing to do (use --force to train it again)\n", o.out)
		return nil
	}
	sum := res.Summary
	evalStr := "-"
	if sum.FinalEvalReturn != nil {
		evalStr = fmtF(*sum.FinalEvalReturn)
	}
	budget := ""
	if sum.FrameBudget > 0 {
		budget = fmt.Sprintf(" (budget %d)", sum.FrameBudget)
	}
	say(cmd, "train: done: %s with %s, seed %d: %s, %d frames%s in %.1f s (%.0f frames/s); final training reward %s, final evaluation return %s; controller time %.4f s; outputs in %s\n",
		sum.Env, sum.Controller, sum.Seed, matrix.Plural(sum.Iterations, "iteration", "iterations"), sum.Frames, budget, sum.WallTimeS, sum.FramesPerSecond, fmtF(sum.FinalTrainReward), evalStr, sum.ControllerTimeS, o.out)
	return nil
}

// applyTransferFrom is --transfer-from: it sets the controller's source
// folder (made absolute, so config.toml stays valid from any directory) and
// the objective its source runs must have logged (this run's).
func applyTransferFrom(r *configs.Run, dir string) error {
	name := r.Controller.Name
	if name == configs.Fixed || !configs.SupportsTransfer(name) {
		return usagef("--transfer-from: only for controllers that transfer from earlier runs (deltabo); this run's controller is %s", name)
	}
	if dir == "" {
		return usagef("--transfer-from: want a folder of finished runs")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return usagef("--transfer-from %s: %v", dir, err)
	}
	return configs.SetTransferFrom(r, abs)
}

func fmtF(v float64) string { return fmt.Sprintf("%.6g", v) }
