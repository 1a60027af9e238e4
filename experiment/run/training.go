// Package training runs one PPO training run into its run folder (see
// package rundir): it builds the trainer and the controller from a resolved
// config, applies the folder's reuse rules, resumes from its checkpoint,
// appends the train.csv and eval.csv rows and the TensorBoard events, keeps
// the policies (policy-final, policy-best), writes checkpoints and, at the
// end, the summary. `hyperctl train` is its command-line front end.
package run

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/configs/safefile"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/ppo"
	"github.com/hyperctl/hyperctl/ppo/policy"
)

// Monitor follows a run's progress (a progress bar, log lines).
type Monitor interface {
	// Start is called once before training, with the iteration the run
	// starts from (0, or the checkpoint's) and the run's length, and the
	// frames collected so far and the frame budget (0: none).
	Start(from, total int, frames, frameBudget int64)
	// Iteration is called after every iteration.
	Iteration(p rundir.Progress, rep ppo.Report)
	// Finish is called once when training stops, finished or not.
	Finish()
}

// Options configure Train.
type Options struct {
	Out     string         // the run folder
	Resume  bool           // continue the unfinished run in Out
	Force   bool           // overwrite the run in Out
	Log     zerolog.Logger // where warnings and progress events go
	Monitor Monitor        // optional
	Version string         // hyperctl's version, recorded in the policies
	Video   *VideoOptions  // record evaluation episodes into videos/ (nil: none)

	// Given is the configuration of the tuned keys of a population member
	// (controller name configs.Population) for this generation; such a run
	// needs it, and any other run refuses it.
	Given controller.Config
	// Until pauses the run after the first iteration at which it has
	// collected Until frames (0: never), when that is before its end: the
	// checkpoint and policy-final are written and Train returns with
	// Result.Paused, without a summary. A run whose checkpoint already
	// holds Until frames returns at once. A population trains its members
	// generation by generation this way.
	Until int64
	// Episodes records every finished training episode's return in the
	// run folder's episodes.csv (rundir.EpisodeLog), for a population's
	// t-test selection.
	Episodes bool
}

// Result says what Train did.
type Result struct {
	// AlreadyFinished: Out holds a finished run and Resume was asked without
	// Force, so nothing was done.
	AlreadyFinished bool
	// Summary is the finished run's summary.json.
	Summary rundir.Summary
	// Paused: the run stopped at Options.Until, checkpointed; Frames is
	// what it has collected.
	Paused bool
	Frames int64
}

// errPaused stops ppo.Run at Options.Until.
var errPaused = errors.New("paused at the frame target")

// Train runs plan, a config resolved by package configs, into opts.Out. It
// refuses to reuse a folder against the rules of rundir.Decide, and to
// resume a run started with another config. Cancelling ctx stops training
// between iterations; the checkpoint is then written and the error says how
// to continue.
//
// Train holds the run folder's writer lock (rundir.Acquire) from start to
// end: if another process is writing the folder, it returns at once with a
// *rundir.LockedError naming that process.
func Train(ctx context.Context, plan *configs.Plan, opts Options) (Result, error) {
	out, log := opts.Out, opts.Log
	lock, err := rundir.Acquire(out)
	if err != nil {
		return Result{}, fmt.Errorf("train: %w", err)
	}
	defer lock.Release()
	state, err := rundir.Inspect(out)
	if err != nil {
		return Result{}, err
	}
	reuse, err := rundir.Decide(out, state, opts.Resume, opts.Force)
	if err != nil {
		return Result{}, fmt.Errorf("train: %w", err)
	}
	if reuse == rundir.Nothing || reuse == rundir.Continue {
		// A finished run is "nothing to do" only for the config it ran
		// with: another one is refused with the difference, as for an
		// unfinished run.
		old, err := configs.ResolveFile(filepath.Join(out, rundir.ConfigFile))
		if err != nil {
			return Result{}, fmt.Errorf("train --resume: %w", err)
		}
		if err := rundir.CheckSameConfig(out, old.Comparable, plan.Comparable); err != nil {
			return Result{}, fmt.Errorf("train --resume: %w", err)
		}
	}
	if reuse == rundir.Nothing {
		return Result{AlreadyFinished: true}, nil
	}
	if opts.Video != nil {
		if err := CheckVideo(plan.Env); err != nil {
			return Result{}, fmt.Errorf("train: %w", err)
		}
	}
	if err := rundir.CheckWritable(out); err != nil {
		return Result{}, err
	}
	if reuse == rundir.Overwrite {
		if err := rundir.Clear(out); err != nil {
			return Result{}, err
		}
	}

	// Build the trainer and the controller before writing anything else, so
	// a failure here leaves the folder as it was.
	tr, err := ppo.New(plan.Env, plan.PPO, plan.Seed, ppo.WithLogger(log))
	if err != nil {
		return Result{}, fmt.Errorf("train: %w", err)
	}
	defer tr.Close()
	ctl, err := buildController(plan.Controller, opts.Given, log)
	if err != nil {
		return Result{}, fmt.Errorf("train: %w", err)
	}

	var ps rundir.Progress
	var ckptDir string // the folder of the checkpoint resumed from
	if reuse == rundir.Continue {
		ck, rd, err := rundir.ReadCheckpoint(out)
		if err != nil {
			return Result{}, fmt.Errorf("train --resume: %w", err)
		}
		if rd.Refused != nil {
			log.Warn().Str("refused", rd.Refused.Error()).Str("using", rd.Path).Int("iteration", ck.Progress.Iteration).
				Msg("the newest checkpoint failed its check; falling back to the previous checkpoint (the rows after it are redone)")
		}
		if ck != nil {
			if err := tr.Restore(ck.Trainer); err != nil {
				return Result{}, fmt.Errorf("train --resume: %w", err)
			}
			if ctl != nil {
				if err := ctl.Restore(ck.Controller); err != nil {
					return Result{}, fmt.Errorf("train --resume: %w", err)
				}
			}
			ps, ckptDir = ck.Progress, rd.Dir
			log.Info().Str("out", out).Str("checkpoint", rd.Path).Int("iteration", ps.Iteration).Msg("resuming from checkpoint")
		} else {
			log.Info().Str("out", out).Msg("no checkpoint yet: starting the run over")
		}
	}
	runOpts := plan.Run
	if ps.Iteration >= runOpts.Iterations {
		return Result{}, fmt.Errorf("train --resume: checkpoint is at iteration %d of %d but the run has no summary; remove %s or use --force", ps.Iteration, runOpts.Iterations, out)
	}
	if pausesAt(runOpts, opts.Until, tr.Frames()) {
		return Result{Paused: true, Frames: tr.Frames()}, nil
	}
	if err := safefile.WriteAtomic(filepath.Join(out, rundir.ConfigFile), []byte(plan.Text)); err != nil {
		return Result{}, err
	}
	logged := plan.Logged
	tlog, err := rundir.OpenTrainLog(out, logged, ps.Iteration)
	if err != nil {
		return Result{}, err
	}
	defer tlog.Close()
	elog, err := rundir.OpenEvalLog(out, ps.Iteration)
	if err != nil {
		return Result{}, err
	}
	defer elog.Close()
	var eplog *rundir.EpisodeLog
	if opts.Episodes {
		if eplog, err = rundir.OpenEpisodeLog(out, ps.Iteration); err != nil {
			return Result{}, err
		}
		defer eplog.Close()
	}
	vids, err := startVideos(out, reuse, ps.Iteration, plan.Seed, opts)
	if err != nil {
		return Result{}, err
	}
	art, err := openArtifacts(out, ckptDir, plan, tr, reuse == rundir.Continue, opts.Version)
	if err != nil {
		return Result{}, err
	}
	defer art.close()

	log.Info().Str("env", plan.Env).Str("controller", plan.ControllerName()).Int64("seed", plan.Seed).
		Int("iterations", runOpts.Iterations).Int64("frames", runOpts.Frames).Int("from", ps.Iteration).Str("networks", tr.Networks()).Str("out", out).Msg("training")

	checkpoint := func() error {
		if tr.Iteration() != ps.Iteration {
			// Never pair a trainer with logs of another iteration: the
			// previous checkpoint stays.
			return fmt.Errorf("checkpoint: the trainer is at iteration %d, the logs at %d", tr.Iteration(), ps.Iteration)
		}
		c := rundir.Checkpoint{Progress: ps}
		var err error
		if c.Trainer, err = tr.Snapshot(); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		if ctl != nil {
			if c.Controller, err = ctl.Snapshot(); err != nil {
				return fmt.Errorf("checkpoint: %w", err)
			}
		}
		if err := rundir.WriteCheckpoint(out, c); err != nil {
			return err
		}
		return art.checkpoint()
	}
	if opts.Monitor != nil {
		opts.Monitor.Start(ps.Iteration, runOpts.Iterations, tr.Frames(), runOpts.Frames)
	}
	// R_{t−1}, for train.csv's objective column and the summary, has one
	// home per run: the driver's state when there is a controller (saved in
	// its snapshot), the checkpoint's progress when there is none. prev
	// follows it while the run goes.
	var prev, havePrev = ps.PrevReward, ps.HavePrev
	if ctl != nil {
		prev, havePrev = ctl.Previous()
	}
	segStart := time.Now()
	baseWall := ps.WallS
	lastFrames := tr.Frames()
	each := func(rep ppo.Report) error {
		st := rep.Stats
		ps.WallS = baseWall + time.Since(segStart).Seconds()
		ps.CtrlS += rep.ControllerTime.Seconds()
		hv, err := st.Hyper.ValuesOf(logged)
		if err != nil {
			return err
		}
		row := rundir.TrainRow{Iteration: st.Iteration, Frames: st.TotalFrames, WallTimeS: ps.WallS, ControllerTimeS: ps.CtrlS,
			TrainReward: st.Reward, Episodes: len(st.Returns), Hyper: hv, Rejected: tr.Rejected()}
		row.Objective, row.HaveObjective = plan.Objective.Value(st.Result(), prev, havePrev)
		prev, havePrev = st.Reward, true
		if ctl == nil {
			ps.PrevReward, ps.HavePrev = prev, havePrev
		}
		for _, r := range st.Returns {
			row.MeanReturn += r
		}
		if len(st.Returns) > 0 {
			row.MeanReturn /= float64(len(st.Returns))
		}
		if eplog != nil {
			if err := eplog.Append(st.Iteration, st.TotalFrames, st.Returns); err != nil {
				return err
			}
		}
		if err := tlog.Append(row); err != nil {
			return err
		}
		if err := art.iteration(rep, row); err != nil {
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
			var sq float64
			for _, r := range rep.Eval.Returns {
				sq += (r - rep.Eval.Mean) * (r - rep.Eval.Mean)
			}
			std := 0.0
			if n := len(rep.Eval.Returns); n > 0 {
				std = math.Sqrt(sq / float64(n))
			}
			if err := elog.Append(rundir.EvalRow{Iteration: st.Iteration, Frames: st.TotalFrames, WallTimeS: ps.WallS, ControllerTimeS: ps.CtrlS,
				Return: rep.Eval.Mean, Steps: steps, Episodes: len(rep.Eval.Returns), Std: std}); err != nil {
				return err
			}
			ps.LastEval, ps.HaveEval = rep.Eval.Mean, true
			if vids != nil {
				last := st.Iteration == runOpts.Iterations-1 || runOpts.BudgetReached(st.TotalFrames)
				if err := vids.evaluated(ctx, st.Iteration, last, art.policy); err != nil {
					return err
				}
			}
		}
		ps.Iteration = st.Iteration + 1
		lastFrames = st.TotalFrames
		pause := ps.Iteration < runOpts.Iterations && pausesAt(runOpts, opts.Until, lastFrames)
		if pause || ps.Iteration%plan.CheckpointEvery == 0 && ps.Iteration < runOpts.Iterations && !runOpts.BudgetReached(lastFrames) {
			if err := checkpoint(); err != nil {
				return err
			}
		}
		if opts.Monitor != nil {
			opts.Monitor.Iteration(ps, rep)
		}
		if pause {
			return errPaused
		}
		return nil
	}
	err = ppo.Run(ctx, tr, ctl, runOpts, each)
	if opts.Monitor != nil {
		opts.Monitor.Finish()
	}
	if errors.Is(err, errPaused) {
		if ferr := art.final(); ferr != nil {
			return Result{}, fmt.Errorf("train: paused at iteration %d; checkpoint written, but %s failed: %w", ps.Iteration, policy.Final, ferr)
		}
		return Result{Paused: true, Frames: lastFrames}, nil
	}
	if err != nil {
		if ctx.Err() != nil {
			if cerr := checkpoint(); cerr != nil {
				return Result{}, fmt.Errorf("train: interrupted at iteration %d, and the checkpoint failed: %w", ps.Iteration, cerr)
			}
			if ferr := art.final(); ferr != nil {
				return Result{}, fmt.Errorf("train: interrupted at iteration %d; checkpoint written, but %s failed: %w", ps.Iteration, policy.Final, ferr)
			}
			return Result{}, fmt.Errorf("train: interrupted at iteration %d; checkpoint written; continue with: hyperctl train --out %s --resume", ps.Iteration, out)
		}
		return Result{}, fmt.Errorf("train: %w", err)
	}
	sum := rundir.Summary{
		Env: plan.Env, Controller: plan.ControllerName(), Seed: plan.Seed, Iterations: ps.Iteration, FrameBudget: runOpts.Frames,
		Frames: lastFrames, WallTimeS: ps.WallS, ControllerTimeS: ps.CtrlS, FinalTrainReward: prev,
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
		if cfg, ok := ctl.Current(); ok {
			sum.FinalHyper = ctl.Space().Map(cfg)
		}
	}
	if err := art.final(); err != nil {
		return Result{}, err
	}
	if err := rundir.WriteSummary(out, sum); err != nil {
		return Result{}, err
	}
	_ = rundir.RemoveCheckpoint(out)
	return Result{Summary: sum}, nil
}

// pausesAt reports whether a run pausing at until frames stops once it
// has collected frames: until is set, reached, and before the run's own
// frame budget ends it.
func pausesAt(run ppo.RunOptions, until, frames int64) bool {
	return until > 0 && frames >= until && !run.BudgetReached(frames)
}

// buildController builds the planned controller (nil for the fixed
// controller), with the sources of a transferring one read. A population
// member's controller runs the given configuration.
func buildController(cp *configs.ControllerPlan, given controller.Config, log zerolog.Logger) (*controller.Controller, error) {
	name := configs.Fixed
	if cp != nil {
		name = cp.Name
	}
	if (name == configs.Population) != (given != nil) {
		if given == nil {
			return nil, fmt.Errorf("controller %s: a population member trains only under `hyperctl population`, which gives it its hyperparameters for each generation; run that command on the population folder", configs.Population)
		}
		return nil, fmt.Errorf("a configuration is given, but the controller is %s, not %s", name, configs.Population)
	}
	if cp == nil {
		return nil, nil
	}
	if given != nil {
		return controller.New(cp.Name, population.NewGiven(given), cp.Space, cp.Options)
	}
	if cp.IntervalAuto {
		log.Info().Int("interval", cp.Options.Interval).Msg(`controller.interval = "auto" resolved`)
	}
	settings, err := withTransfer(cp.Settings, cp.Space)
	if err != nil {
		return nil, err
	}
	ctl, err := controller.Build(cp.Name, settings, cp.Space, cp.Options)
	if err == nil && cp.Options.Interval > 1 {
		if _, ok := ctl.Method().(controller.Trials); ok {
			log.Info().Int("interval", cp.Options.Interval).Msgf("%s chooses at every iteration (each choice is one update's); controller.interval does not apply", cp.Name)
		}
	}
	return ctl, err
}
