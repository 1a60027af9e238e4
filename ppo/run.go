package ppo

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hyperctl/hyperctl/controller"
)

// RunOptions configure Run.
type RunOptions struct {
	// Iterations is the length of the whole run: Run continues from the
	// trainer's Iteration() up to Iterations. It is also the horizon of the
	// learning-rate annealing.
	Iterations int
	// EvalEvery evaluates after every EvalEvery-th iteration (iterations
	// EvalEvery−1, 2·EvalEvery−1, … counted from 0) and after the last one;
	// 0 never evaluates.
	EvalEvery int
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

// HyperFor returns the hyperparameters of iteration it of a run of total
// iterations: base.Hyper, with the controller's suggestion applied (values
// for the names of its space, which must be Hyper keys; nil names means no
// controller) and, when base.AnnealLR is set and lr is not tuned, the
// annealed learning rate. A suggested value outside its key's range is an
// error naming the key.
func HyperFor(base Config, it, total int, names []string, values controller.Config) (Hyper, error) {
	h := base.Hyper
	if len(names) != len(values) {
		return h, fmt.Errorf("ppo: %d tuned names for %d values", len(names), len(values))
	}
	for i, name := range names {
		if err := h.Set(name, values[i]); err != nil {
			return h, fmt.Errorf("ppo: iteration %d: %w", it, err)
		}
	}
	if base.AnnealLR && !slices.Contains(names, "lr") {
		h.LR = AnnealedLR(base.LR, it, total)
	}
	return h, nil
}

// Run trains t from its current iteration up to opts.Iterations. Before
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
	for it := t.Iteration(); it < opts.Iterations; it++ {
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
		h, err := HyperFor(base, it, opts.Iterations, names, values)
		if err != nil {
			return err
		}
		st, err := t.Iterate(ctx, h)
		if err != nil {
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
		if opts.EvalEvery > 0 && ((it+1)%opts.EvalEvery == 0 || it == opts.Iterations-1) {
			// The iteration is trained: its evaluation and report complete
			// even if ctx is cancelled meanwhile, so a caller that
			// checkpoints on cancellation has logged every iteration the
			// trainer ran (an evaluation is bounded by the time limit).
			es, err := t.Evaluate(context.WithoutCancel(ctx), 0)
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
