package ppo

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/hyperctl/hyperctl/controller"
)

// RunOptions configure Run.
type RunOptions struct {
	// Iterations is the length of the whole run: Run continues from the
	// trainer's Iteration() up to Iterations. Without a frame budget it is
	// also the horizon of the learning-rate annealing.
	Iterations int
	// Frames is the run's frame budget (0: none). With a budget, Run stops
	// after the first iteration at which the trainer's total frames reach
	// Frames (Iterations still caps the run), and the learning rate anneals
	// over the budget's frames instead of the iterations (AnnealedLRFrames),
	// so runs that pick different batch sizes are compared at equal
	// experience.
	Frames int64
	// EvalEvery evaluates after every EvalEvery-th iteration (iterations
	// EvalEvery−1, 2·EvalEvery−1, … counted from 0) and after the last one,
	// which runs the trainer's final_eval_episodes episodes instead of its
	// eval_episodes; 0 never evaluates.
	EvalEvery int
	// AnnealTunedLR anneals a tuned lr too (when the trainer's anneal_lr is
	// set): the controller's value v runs as v · anneal(t), on top of the
	// schedule, instead of replacing the annealed lr. With v at the
	// configured lr this is exactly the untuned schedule.
	AnnealTunedLR bool
}

// Report is what Run hands the callback after each iteration.
type Report struct {
	Stats IterStats  // the iteration's outcome, with the hyperparameters it ran with (tuned values and annealed lr applied)
	Eval  *EvalStats // the evaluation after this iteration, or nil
	// ControllerTime is the wall time spent in the controller's Suggest and
	// Observe for this iteration (zero without a controller): the paper's
	// "time elapsed during the hyperparameter search".
	ControllerTime time.Duration
}

// AnnealedLR is CleanRL's linear learning-rate schedule: lr·(1 − it/total)
// for the 0-based iteration it of a run of total iterations (lr at the first
// iteration, lr/total at the last).
func AnnealedLR(lr float64, it, total int) float64 {
	if total <= 0 || it < 0 {
		return lr
	}
	frac := 1 - float64(it)/float64(total)
	if frac < 1/float64(total) {
		frac = 1 / float64(total)
	}
	return lr * frac
}

// AnnealedLRFrames is the linear schedule over a frame budget:
// lr·(1 − before/budget) for an iteration that starts with before frames
// collected and collects iterFrames, floored at lr·iterFrames/budget (one
// iteration's share of the budget, as AnnealedLR floors at 1/total). It is
// CleanRL's schedule with frames as the clock: with a fixed batch size it
// equals AnnealedLR over the iterations the budget takes.
func AnnealedLRFrames(lr float64, before, budget int64, iterFrames int) float64 {
	if budget <= 0 || before < 0 {
		return lr
	}
	b := float64(budget)
	frac := 1 - float64(before)/b
	floor := math.Min(1, float64(max(iterFrames, 1))/b)
	return lr * math.Min(1, math.Max(frac, floor))
}

// IterationFrames is the frames an iteration with batch size batch collects
// on numEnvs copies: batch rounded up to a multiple of numEnvs.
func IterationFrames(batch, numEnvs int) int {
	n := max(numEnvs, 1)
	return (batch + n - 1) / n * n
}

// HyperFor returns the hyperparameters of iteration it of a run with the
// length opts (Iterations, and Frames when it has a frame budget), which
// starts with before frames collected: base.Hyper, with the controller's
// suggestion applied (values for the names of its space, which must be
// Hyper keys; nil names means no controller) and, when base.AnnealLR is set
// and lr is not tuned (or opts.AnnealTunedLR is set), the annealed learning
// rate (AnnealedLR over the iterations, or AnnealedLRFrames over the frame
// budget) of the lr in force. A tuned lr_scale multiplies that annealed lr
// (see Hyper). A suggested value outside its key's range is an error naming
// the key.
func HyperFor(base Config, it int, before int64, opts RunOptions, names []string, values controller.Config) (Hyper, error) {
	h := base.Hyper
	if len(names) != len(values) {
		return h, fmt.Errorf("ppo: %d tuned names for %d values", len(names), len(values))
	}
	for i, name := range names {
		if err := h.Set(name, values[i]); err != nil {
			return h, fmt.Errorf("ppo: iteration %d: %w", it, err)
		}
	}
	if base.AnnealLR && (opts.AnnealTunedLR || !slices.Contains(names, "lr")) {
		if opts.Frames > 0 {
			h.LR = AnnealedLRFrames(h.LR, before, opts.Frames, IterationFrames(h.BatchSize, base.NumEnvs))
		} else {
			h.LR = AnnealedLR(h.LR, it, opts.Iterations)
		}
	}
	return h, nil
}

// candidates asks ctl (nil: no controller) for the candidates to try at
// this iteration, adding the time it took to ctlTime.
func candidates(ctl *controller.Controller, ctlTime *time.Duration) ([]controller.Config, controller.TrialSpec, bool, error) {
	if ctl == nil {
		return nil, controller.TrialSpec{}, false, nil
	}
	start := time.Now()
	defer func() { *ctlTime += time.Since(start) }()
	return ctl.Candidates()
}

// BudgetReached reports whether a run with options opts is over once frames
// have been collected: it has a frame budget and frames reach it.
func (opts RunOptions) BudgetReached(frames int64) bool {
	return opts.Frames > 0 && frames >= opts.Frames
}

// Run trains t from its current iteration up to opts.Iterations, or until
// the frame budget opts.Frames is reached (see RunOptions). Before
// every iteration it asks ctl (nil: fixed hyperparameters, the reference
// baseline) for the tuned hyperparameters, builds the iteration's Hyper
// from the trainer's configuration with HyperFor, runs Iterate, reports the
// result to ctl, evaluates when due, and calls each (if non-nil) with the
// report; an error from each stops the run and is returned. Cancelling ctx
// stops Run between iterations with ctx.Err(): an iteration that started
// is trained, evaluated when due and reported. A controller restored
// together with the trainer must be at the same iteration.
func Run(ctx context.Context, t *Trainer, ctl *controller.Controller, opts RunOptions, each func(Report) error) error {
	if opts.Iterations < 0 {
		return fmt.Errorf("ppo: run: iterations = %d, want >= 0", opts.Iterations)
	}
	if opts.EvalEvery < 0 {
		return fmt.Errorf("ppo: run: eval_every = %d, want >= 0", opts.EvalEvery)
	}
	if opts.Frames < 0 {
		return fmt.Errorf("ppo: run: frames = %d, want >= 0 (0: no frame budget)", opts.Frames)
	}
	base := t.Config()
	var names []string
	if ctl != nil {
		names = ctl.Space().Names()
		for _, name := range names {
			if _, err := LookupHyperKey(name); err != nil {
				return fmt.Errorf("ppo: run: controller space: %w", err)
			}
		}
		if ctl.Iteration() != t.Iteration() {
			return fmt.Errorf("ppo: run: controller is at iteration %d, trainer at %d", ctl.Iteration(), t.Iteration())
		}
	}
	for it := t.Iteration(); it < opts.Iterations && !opts.BudgetReached(t.Frames()); it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		var values controller.Config
		var ctlTime time.Duration
		if ctl != nil {
			start := time.Now()
			v, err := ctl.Suggest()
			ctlTime = time.Since(start)
			if err != nil {
				return fmt.Errorf("ppo: run: %w", err)
			}
			values = v
		}
		h, err := HyperFor(base, it, t.Frames(), opts, names, values)
		if err != nil {
			return err
		}
		var st IterStats
		if cands, spec, ok, err := candidates(ctl, &ctlTime); err != nil {
			return fmt.Errorf("ppo: run: %w", err)
		} else if ok {
			hs := make([]Hyper, len(cands))
			for k, c := range cands {
				if hs[k], err = HyperFor(base, it, t.Frames(), opts, names, c); err != nil {
					return fmt.Errorf("ppo: run: candidate %d: %w", k, err)
				}
			}
			if st, err = t.IterateTrials(ctx, hs, spec); err != nil {
				return err
			}
			ctlTime += st.Trial.SearchTime
			if err := ctl.Choose(cands[st.Trial.Chosen]); err != nil {
				return fmt.Errorf("ppo: run: %w", err)
			}
		} else if st, err = t.Iterate(ctx, h); err != nil {
			return err
		}
		if ctl != nil {
			start := time.Now()
			err := ctl.Observe(st.Result())
			ctlTime += time.Since(start)
			if err != nil {
				return fmt.Errorf("ppo: run: %w", err)
			}
		}
		rep := Report{Stats: st, ControllerTime: ctlTime}
		last := it == opts.Iterations-1 || opts.BudgetReached(st.TotalFrames)
		if opts.EvalEvery > 0 && ((it+1)%opts.EvalEvery == 0 || last) {
			// The iteration is trained: its evaluation and report complete
			// even if ctx is cancelled meanwhile, so a caller that
			// checkpoints on cancellation has logged every iteration the
			// trainer ran (an evaluation is bounded by the time limit).
			episodes := 0 // the configured eval_episodes
			if last {
				episodes = base.FinalEvalEpisodes
			}
			es, err := t.Evaluate(context.WithoutCancel(ctx), episodes)
			if err != nil {
				return fmt.Errorf("ppo: run: %w", err)
			}
			rep.Eval = &es
		}
		if each != nil {
			if err := each(rep); err != nil {
				return err
			}
		}
	}
	return nil
}
