// Package run runs one PPO training run into its run folder (see
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
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/baselines/population"
	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/experiment/internal/member"
	"github.com/hyperctl/hyperctl/internal/ground/safefile"
	"github.com/hyperctl/hyperctl/internal/ground/words"
	"github.com/hyperctl/hyperctl/ppo"
	"github.com/hyperctl/hyperctl/ppo/policy"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// A population's receiver that keeps its own random state grafts
// snapshots with the trainer's code (experiment/population reads it there).
func init() { member.Graft = ppo.Graft }

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
	Version string         // hyperctl's version, recorded in the policies (empty: Version())
	Video   *VideoOptions  // record evaluation episodes into videos/ (nil: none)

	// member is set by TrainMember alone: a population member's part of
	// its generation.
	member member.Generation
}

// Result says what Train did.
type Result struct {
	// AlreadyFinished: Out holds a finished run and Resume was asked without
	// Force, so nothing was done.
	AlreadyFinished bool
	// Summary is the finished run's summary.json.
	Summary rundir.Summary
	// Paused: the run stopped at its population generation's end
	// (TrainMember), checkpointed; Frames is what it has collected.
	Paused bool
	Frames int64
}

// ErrInexactResume is wrapped by the error of a resume that would redo
// rows with settings other than those they were trained with (a
// population member's lineage, TrainMember).
var ErrInexactResume = member.ErrInexactResume

// errPaused stops ppo.Run at a member's generation end (Generation.Until).
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
//
// Its steps, in order: prepareFolder (the reuse rules), build (trainer and
// controller), resume (from the checkpoint), open (config.toml, the logs,
// videos and policies), then train (iteration after iteration, each one's
// rows, evaluation and checkpoint) and its outcome: paused, interrupted,
// failed or finished (the summary).
func Train(ctx context.Context, plan *configs.Plan, opts Options) (Result, error) {
	_, statErr := os.Stat(opts.Out)
	created := errors.Is(statErr, fs.ErrNotExist)
	lock, err := rundir.Acquire(opts.Out)
	if err != nil {
		return Result{}, fmt.Errorf("train: %w", err)
	}
	opened := false
	defer func() {
		lock.Release()
		if created && !opened { // a failed start leaves no folder behind
			os.RemoveAll(opts.Out)
		}
	}()
	reuse, err := prepareFolder(plan, opts)
	if err != nil || reuse == rundir.Nothing {
		return Result{AlreadyFinished: err == nil}, err
	}
	if opts.Version == "" {
		opts.Version = Version()
	}
	s := &session{plan: plan, opts: opts, out: opts.Out, log: opts.Log, reuse: reuse, runOpts: plan.Run}
	defer s.close()
	if err := s.build(); err != nil {
		return Result{}, err
	}
	if err := s.resume(); err != nil {
		return Result{}, err
	}
	if s.ps.Iteration >= s.runOpts.Iterations {
		return Result{}, fmt.Errorf("train: resume: %w", &words.AdviceError{Msg: fmt.Sprintf("the checkpoint is at iteration %d of %d but the run has no summary; remove %s or use {force}", s.ps.Iteration, s.runOpts.Iterations, s.out)})
	}
	if pausesAt(s.runOpts, opts.member.Until, s.tr.Frames()) {
		return Result{Paused: true, Frames: s.tr.Frames()}, nil
	}
	if err := s.open(); err != nil {
		return Result{}, err
	}
	opened = true
	return s.train(ctx)
}

// TrainMember is Train for a member of a population (experiment/population)
// in the folder out, resumed from its checkpoint: g is its part of the
// generation. It is the population's member.Trainer; paused reports that
// it stopped at g.Until.
func TrainMember(ctx context.Context, plan *configs.Plan, out string, g member.Generation, log zerolog.Logger, version string) (paused bool, err error) {
	res, err := Train(ctx, plan, Options{Out: out, Resume: true, Log: log, Version: version, member: g})
	return res.Paused, err
}

// prepareFolder applies the reuse rules to opts.Out (rundir.Decide): a
// finished or unfinished run is continued, or left alone, only with the
// config it ran with; a video needs its renderer; the folder must be
// writable; an overwritten run is cleared. It returns what to do.
func prepareFolder(plan *configs.Plan, opts Options) (rundir.Plan, error) {
	out := opts.Out
	state, err := rundir.Inspect(out)
	if err != nil {
		return 0, err
	}
	reuse, err := rundir.Decide(out, state, opts.Resume, opts.Force)
	if err != nil {
		return 0, fmt.Errorf("train: %w", err)
	}
	if reuse == rundir.Nothing || reuse == rundir.Continue {
		// A finished run is "nothing to do" only for the config it ran
		// with: another one is refused with the difference, as for an
		// unfinished run.
		old, err := configs.ResolveFile(filepath.Join(out, rundir.ConfigFile))
		if err != nil {
			return 0, fmt.Errorf("train: resume: %w", err)
		}
		if err := rundir.CheckSameConfig(out, old.Comparable, plan.Comparable); err != nil {
			return 0, fmt.Errorf("train: resume: %w", err)
		}
	}
	if reuse == rundir.Nothing {
		return reuse, nil
	}
	if opts.Video != nil {
		if err := CheckVideo(plan.Env); err != nil {
			return 0, fmt.Errorf("train: %w", err)
		}
	}
	if err := rundir.CheckWritable(out); err != nil {
		return 0, err
	}
	if reuse == rundir.Overwrite {
		if err := rundir.Clear(out); err != nil {
			return 0, err
		}
	}
	return reuse, nil
}

// session is one Train call's run once its folder is decided: the trainer
// and controller, where the run is (ps), and the files it appends to.
type session struct {
	plan    *configs.Plan
	opts    Options
	out     string
	log     zerolog.Logger
	reuse   rundir.Plan
	runOpts ppoconfig.RunOptions

	tr      *ppo.Trainer
	ctl     *controller.Controller // nil: the fixed controller
	ps      rundir.Progress
	ckptDir string // the folder of the checkpoint resumed from

	tlog *rundir.TrainLog
	elog *rundir.EvalLog
	eps  *rundir.EpisodeLog // nil unless the member's Generation.Episodes
	vids *videoRecorder
	art  *artifacts

	// R_{t−1}, for train.csv's objective column and the summary, has one
	// home per run: the driver's state when there is a controller (saved in
	// its snapshot), the checkpoint's progress when there is none. prev
	// follows it while the run goes.
	prev       float64
	havePrev   bool
	segStart   time.Time // when this process started training
	baseWall   float64   // the wall time before it (from the checkpoint)
	lastFrames int64     // the frames after the latest iteration
	ph         phases    // where this segment's time went
}

// build makes the trainer and the controller before anything else is
// written, so a failure here leaves the folder as it was.
func (s *session) build() error {
	if err := checkpointable(s.plan.Env); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	tr, err := ppo.New(s.plan.Env, s.plan.PPO, s.plan.Seed, ppo.WithLogger(s.log))
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	s.tr = tr
	if s.ctl, err = buildController(s.plan.Controller, s.opts.member.Given, s.log); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	return nil
}

// checkpointable refuses, before the first iteration, an environment
// whose state cannot be checkpointed (envs.CheckStateSaver): every run
// writes checkpoints.
func checkpointable(name string) error {
	env, err := envs.Make(name)
	if err != nil {
		return err
	}
	defer env.Close()
	return envs.CheckStateSaver(env)
}

// resume restores the trainer and the controller from the folder's newest
// valid checkpoint when the run continues (none yet: it starts over).
func (s *session) resume() error {
	if s.reuse != rundir.Continue {
		return nil
	}
	ck, rd, err := rundir.ReadCheckpoint(s.out)
	if err != nil {
		return fmt.Errorf("train: resume: %w", err)
	}
	if rd.Refused != nil {
		s.log.Warn().Str("refused", rd.Refused.Error()).Str("using", rd.Path).Int("iteration", ck.Progress.Iteration).
			Msg("the newest checkpoint failed its check; falling back to the previous checkpoint (the rows after it are redone)")
	}
	if ck == nil {
		if s.opts.member.Given != nil && s.opts.member.GivenSince > 0 {
			return fmt.Errorf("train: resume: %w: %s has no checkpoint, and starting over with the settings given now would redo %d frames trained with other settings",
				ErrInexactResume, s.out, s.opts.member.GivenSince)
		}
		s.log.Info().Str("out", s.out).Msg("no checkpoint yet: starting the run over")
		return nil
	}
	if err := checkKernels(s.out, ck.Progress.Kernels, ppo.Kernels()); err != nil {
		return err
	}
	if err := s.tr.Restore(ck.Trainer); err != nil {
		return fmt.Errorf("train: resume: %w", err)
	}
	if s.ctl != nil {
		if err := s.ctl.Restore(ck.Controller); err != nil {
			return fmt.Errorf("train: resume: %w", err)
		}
	}
	if err := s.checkGivenSince(rd); err != nil {
		return err
	}
	s.ps, s.ckptDir = ck.Progress, rd.Dir
	s.log.Info().Str("out", s.out).Str("checkpoint", rd.Path).Int("iteration", s.ps.Iteration).Msg("resuming from checkpoint")
	return nil
}

// checkKernels refuses to continue the run in dir, checkpointed on the
// float kernels was, on the kernels now: the rows after the checkpoint
// would not be those an uninterrupted run computes. A checkpoint from
// before kernels were recorded (was "") is taken as it is.
func checkKernels(dir, was, now string) error {
	if was == "" || was == now {
		return nil
	}
	return &words.AdviceError{Msg: "{resuming}: ", Err: ErrInexactResume,
		After: fmt.Sprintf(": %s was trained on the float kernels %q, and this process runs %q; continue it on its own kernels ({kernels}, or the OPENBLAS_CORETYPE and ATEN_CPU_CAPABILITY it ran with), or start it over with {force}", dir, was, now)}
}

// checkGivenSince refuses a resume from a checkpoint (rd, restored) with
// fewer frames than the member's Generation.GivenSince: it would redo
// rows with settings other than the ones they were trained with.
func (s *session) checkGivenSince(rd rundir.CheckpointRead) error {
	f := s.tr.Frames()
	if s.opts.member.Given == nil || f >= s.opts.member.GivenSince {
		return nil
	}
	why := "it is the newest checkpoint"
	if rd.Refused != nil {
		why = fmt.Sprintf("the newest failed its check (%v)", rd.Refused)
	}
	return fmt.Errorf("train: resume: %w: checkpoint %s (%s) is at %d frames, before %d, where the settings given now took over: the rows between were trained with other settings, and redoing them with these would not be exact",
		ErrInexactResume, rd.Path, why, f, s.opts.member.GivenSince)
}

// open writes config.toml and opens what the run appends to: train.csv,
// eval.csv and (Generation.Episodes) episodes.csv, cut after the checkpoint,
// the videos and the artifacts (events, policies).
func (s *session) open() error {
	var err error
	if err = safefile.WriteAtomic(filepath.Join(s.out, rundir.ConfigFile), []byte(s.plan.Text)); err != nil {
		return err
	}
	if s.tlog, err = rundir.OpenTrainLog(s.out, s.plan.Logged, s.ps.Iteration); err != nil {
		return err
	}
	if s.elog, err = rundir.OpenEvalLog(s.out, s.ps.Iteration); err != nil {
		return err
	}
	if s.opts.member.Episodes {
		if s.eps, err = rundir.OpenEpisodeLog(s.out, s.ps.Iteration); err != nil {
			return err
		}
	}
	if s.vids, err = startVideos(s.out, s.reuse, s.ps.Iteration, s.plan.Seed, s.opts); err != nil {
		return err
	}
	s.art, err = openArtifacts(s.out, s.ckptDir, s.plan, s.tr, s.reuse == rundir.Continue, s.opts.Version)
	return err
}

// close releases what build and open made.
func (s *session) close() {
	if s.art != nil {
		s.art.close()
	}
	if s.elog != nil {
		s.elog.Close()
	}
	if s.eps != nil {
		s.eps.Close()
	}
	if s.tlog != nil {
		s.tlog.Close()
	}
	if s.tr != nil {
		s.tr.Close()
	}
}

// train runs the iterations (ppo.Run, s.iteration after each) and turns
// how they stopped into Train's result.
func (s *session) train(ctx context.Context) (Result, error) {
	plan, runOpts := s.plan, s.runOpts
	ev := s.log.Info().Str("env", plan.Env).Str("controller", plan.ControllerName()).Int64("seed", plan.Seed).
		Int("iterations", runOpts.Iterations).Int("from", s.ps.Iteration).Int64("frames", s.tr.Frames())
	if runOpts.Frames > 0 { // frames done, then the budget: the start line says both apart
		ev = ev.Int64("frame_budget", runOpts.Frames)
	}
	s.ps.Kernels = ppo.Kernels() // recorded in every checkpoint (checkKernels)
	ev.Str("networks", s.tr.Networks()).Str("kernels", s.ps.Kernels).Str("out", s.out).Msg("training")
	if s.opts.Monitor != nil {
		s.opts.Monitor.Start(s.ps.Iteration, runOpts.Iterations, s.tr.Frames(), runOpts.Frames)
	}
	s.prev, s.havePrev = s.ps.PrevReward, s.ps.HavePrev
	if s.ctl != nil {
		s.prev, s.havePrev = s.ctl.Previous()
	}
	s.segStart, s.baseWall, s.lastFrames = time.Now(), s.ps.WallS, s.tr.Frames()
	err := ppo.Run(ctx, s.tr, s.ctl, runOpts, func(rep ppo.Report) error { return s.iteration(ctx, rep) })
	if s.opts.Monitor != nil {
		s.opts.Monitor.Finish()
	}
	if errors.Is(err, errPaused) {
		if ferr := s.art.final(); ferr != nil {
			return Result{}, fmt.Errorf("train: paused at iteration %d; checkpoint written, but %s failed: %w", s.ps.Iteration, policy.Final, ferr)
		}
		return Result{Paused: true, Frames: s.lastFrames}, nil
	}
	if err != nil && ctx.Err() != nil {
		return Result{}, s.interrupted()
	}
	if err != nil {
		return Result{}, fmt.Errorf("train: %w", err)
	}
	return s.finish()
}

// appendRows appends an iteration's episodes to episodes.csv (when the
// run records them), then its train.csv row.
func (s *session) appendRows(st ppo.IterStats, row rundir.TrainRow) error {
	if s.eps != nil {
		if err := s.eps.Append(st.Iteration, st.TotalFrames, st.Returns); err != nil {
			return err
		}
	}
	return s.tlog.Append(row)
}

// iteration records one iteration: its train.csv row and artifacts, its
// evaluation if any, then a checkpoint when one is due or the run pauses
// here, and the monitor.
func (s *session) iteration(ctx context.Context, rep ppo.Report) error {
	st, t0 := rep.Stats, time.Now()
	s.ph.iteration(rep)
	s.ps.WallS = s.baseWall + time.Since(s.segStart).Seconds()
	s.ps.CtrlS += rep.ControllerTime.Seconds()
	row, err := s.trainRow(st)
	if err != nil {
		return err
	}
	if err := s.appendRows(st, row); err != nil {
		return err
	}
	if err := s.art.iteration(rep, row); err != nil {
		return err
	}
	if rep.Eval != nil {
		if err := s.evaluated(ctx, st, rep.Eval); err != nil {
			return err
		}
	}
	s.ps.Iteration, s.lastFrames = st.Iteration+1, st.TotalFrames
	runOpts, tc := s.runOpts, time.Now()
	s.ph.io += tc.Sub(t0)
	pause := s.ps.Iteration < runOpts.Iterations && pausesAt(runOpts, s.opts.member.Until, s.lastFrames)
	if pause || s.ps.Iteration%s.plan.CheckpointEvery == 0 && s.ps.Iteration < runOpts.Iterations && !runOpts.BudgetReached(s.lastFrames) {
		if err := s.checkpoint(); err != nil {
			return err
		}
		s.ph.checkpoint += time.Since(tc)
	}
	if s.opts.Monitor != nil {
		s.opts.Monitor.Iteration(s.ps, rep)
	}
	if pause {
		return errPaused
	}
	return nil
}

// trainRow is an iteration's train.csv row; it moves R_{t−1} on.
func (s *session) trainRow(st ppo.IterStats) (rundir.TrainRow, error) {
	hv, err := st.Hyper.ValuesOf(s.plan.Logged)
	if err != nil {
		return rundir.TrainRow{}, err
	}
	row := rundir.TrainRow{Iteration: st.Iteration, Frames: st.TotalFrames, WallTimeS: s.ps.WallS, ControllerTimeS: s.ps.CtrlS,
		TrainReward: st.Reward, Episodes: len(st.Returns), Hyper: hv, Rejected: s.tr.Rejected()}
	row.Objective, row.HaveObjective = s.plan.Objective.Value(st.Result(), s.prev, s.havePrev)
	s.prev, s.havePrev = st.Reward, true
	if s.ctl == nil {
		s.ps.PrevReward, s.ps.HavePrev = s.prev, s.havePrev
	}
	for _, r := range st.Returns {
		row.MeanReturn += r
	}
	if len(st.Returns) > 0 {
		row.MeanReturn /= float64(len(st.Returns))
	}
	return row, nil
}

// evaluated records an evaluation: its eval.csv row (mean return, mean
// episode length, the returns' population standard deviation) and, when
// due, its video.
func (s *session) evaluated(ctx context.Context, st ppo.IterStats, ev *ppo.EvalStats) error {
	steps := 0
	for _, l := range ev.Lengths {
		steps += l
	}
	if len(ev.Lengths) > 0 {
		steps /= len(ev.Lengths)
	}
	var sq float64
	for _, r := range ev.Returns {
		sq += (r - ev.Mean) * (r - ev.Mean)
	}
	std := 0.0
	if n := len(ev.Returns); n > 0 {
		std = math.Sqrt(sq / float64(n))
	}
	if err := s.elog.Append(rundir.EvalRow{Iteration: st.Iteration, Frames: st.TotalFrames, WallTimeS: s.ps.WallS, ControllerTimeS: s.ps.CtrlS,
		Return: ev.Mean, Steps: steps, Episodes: len(ev.Returns), Std: std}); err != nil {
		return err
	}
	s.ps.LastEval, s.ps.HaveEval = ev.Mean, true
	if s.vids == nil {
		return nil
	}
	last := st.Iteration == s.runOpts.Iterations-1 || s.runOpts.BudgetReached(st.TotalFrames)
	return s.vids.evaluated(ctx, st.Iteration, last, s.art.policy)
}

// checkpoint writes the trainer's and the controller's state with the
// progress, then the artifacts' (events, best policy).
func (s *session) checkpoint() error {
	if s.tr.Iteration() != s.ps.Iteration {
		// Never pair a trainer with logs of another iteration: the
		// previous checkpoint stays.
		return fmt.Errorf("checkpoint: the trainer is at iteration %d, the logs at %d", s.tr.Iteration(), s.ps.Iteration)
	}
	c := rundir.Checkpoint{Progress: s.ps}
	var err error
	if c.Trainer, err = s.tr.Snapshot(); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if s.ctl != nil {
		if c.Controller, err = s.ctl.Snapshot(); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	if err := rundir.WriteCheckpoint(s.out, c); err != nil {
		return err
	}
	return s.art.checkpoint()
}

// interrupted checkpoints a run stopped by its context and says how to
// continue it.
func (s *session) interrupted() error {
	if err := s.checkpoint(); err != nil {
		return fmt.Errorf("train: interrupted at iteration %d, and the checkpoint failed: %w", s.ps.Iteration, err)
	}
	if err := s.art.final(); err != nil {
		return fmt.Errorf("train: interrupted at iteration %d; checkpoint written, but %s failed: %w", s.ps.Iteration, policy.Final, err)
	}
	return fmt.Errorf("train: %w", &rundir.StoppedError{Dir: s.out, Iteration: s.ps.Iteration})
}

// finish writes a finished run's policy-final and summary.json (which
// marks it finished), then removes the checkpoint.
func (s *session) finish() (Result, error) {
	ps, plan, tf := s.ps, s.plan, time.Now()
	sum := rundir.Summary{
		Env: plan.Env, Controller: plan.ControllerName(), Seed: plan.Seed, Iterations: ps.Iteration, FrameBudget: s.runOpts.Frames,
		Frames: s.lastFrames, WallTimeS: ps.WallS, ControllerTimeS: ps.CtrlS, FinalTrainReward: s.prev,
		RejectedUpdates: s.tr.Rejected(), HyperctlVersion: s.opts.Version, Kernels: ppo.Kernels(),
	}
	if ps.WallS > 0 {
		sum.FramesPerSecond = float64(s.lastFrames) / ps.WallS
	}
	if ps.HaveEval {
		v := ps.LastEval
		sum.FinalEvalReturn = &v
	}
	if s.ctl != nil {
		if cfg, ok := s.ctl.Current(); ok {
			sum.FinalHyper = s.ctl.Space().Map(cfg)
		}
	}
	if err := s.art.final(); err != nil {
		return Result{}, err
	}
	if err := rundir.WriteSummary(s.out, sum); err != nil {
		return Result{}, err
	}
	_ = rundir.RemoveCheckpoint(s.out)
	s.ph.io += time.Since(tf)
	s.ph.log(s.log, time.Since(s.segStart))
	return Result{Summary: sum}, nil
}

// pausesAt reports whether a run pausing at until frames stops once it
// has collected frames: until is set, reached, and before the run's own
// frame budget ends it.
func pausesAt(run ppoconfig.RunOptions, until, frames int64) bool {
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
			return nil, fmt.Errorf("controller %s: %w", configs.Population, &words.AdviceError{Msg: "a population member trains only under {population}, which gives it its hyperparameters for each generation; {run-population}"})
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
