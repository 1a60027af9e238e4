package ppo

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// Report is what Run hands the callback after each iteration.
type Report struct {
	Stats IterStats  // the iteration's outcome, with the hyperparameters it ran with (tuned values and annealed lr applied)
	Eval  *EvalStats // the evaluation after this iteration, or nil
	// ControllerTime is the wall time spent in the controller's Suggest and
	// Observe for this iteration (zero without a controller): the paper's
	// "time elapsed during the hyperparameter search".
	ControllerTime time.Duration
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

// lrRule returns ctl's LRRule ability and the index of lr in its space
// (nil without a controller or the ability).
func lrRule(ctl *controller.Controller) (controller.LRRule, int) {
	if ctl == nil {
		return nil, -1
	}
	rule, i, ok := ctl.LRRule()
	if !ok {
		return nil, -1
	}
	return rule, i
}

// Run trains t from its current iteration up to opts.Iterations, or until
// the frame budget opts.Frames is reached (see ppoconfig.RunOptions). Before
// every iteration it asks ctl (nil: fixed hyperparameters, the reference
// baseline) for the tuned hyperparameters, builds the iteration's Hyper
// from the trainer's configuration with ppoconfig.HyperFor, runs Iterate, reports the
// result to ctl (under a controller with the LRRule ability, the update
// runs with IterateLR and the lr it ended with is put in force with
// Choose), evaluates when due, and calls each (if non-nil) with the
// report; an error from each stops the run and is returned. Cancelling ctx
// stops Run between iterations with ctx.Err(): an iteration that started
// is trained, evaluated when due and reported. A controller restored
// together with the trainer must be at the same iteration.
func Run(ctx context.Context, t *Trainer, ctl *controller.Controller, opts ppoconfig.RunOptions, each func(Report) error) error {
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
			if _, err := ppoconfig.LookupHyperKey(name); err != nil {
				return fmt.Errorf("ppo: run: controller space: %w", err)
			}
		}
		if ctl.Iteration() != t.Iteration() {
			return fmt.Errorf("ppo: run: controller is at iteration %d, trainer at %d", ctl.Iteration(), t.Iteration())
		}
	}
	rule, lrIndex := lrRule(ctl)
	if rule != nil && base.AnnealLR && opts.AnnealTunedLR {
		return fmt.Errorf("ppo: run: controller %s moves lr within the update, which an annealed tuned lr would undo at every iteration; run it with AnnealTunedLR off (tuned_lr = \"replace\")", ctl.Name())
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
		h, err := ppoconfig.HyperFor(base, it, t.Frames(), opts, names, values)
		if err != nil {
			return err
		}
		var st IterStats
		if cands, spec, ok, err := candidates(ctl, &ctlTime); err != nil {
			return fmt.Errorf("ppo: run: %w", err)
		} else if ok {
			hs := make([]ppoconfig.Hyper, len(cands))
			for k, c := range cands {
				if hs[k], err = ppoconfig.HyperFor(base, it, t.Frames(), opts, names, c); err != nil {
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
		} else if rule != nil {
			if st, err = t.IterateLR(ctx, h, rule); err != nil {
				return err
			}
			// The lr the update ended with is in force from now on.
			cfg := slices.Clone(values)
			cfg[lrIndex] = st.LR
			if err := ctl.Choose(cfg); err != nil {
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
