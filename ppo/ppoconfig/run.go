package ppoconfig

import (
	"fmt"
	"math"
	"slices"

	"github.com/hyperctl/hyperctl/controller"
)

// RunOptions are the length of a run and its evaluations, as ppo.Run
// takes them, and with the Config the learning-rate schedule (HyperFor).
type RunOptions struct {
	// Iterations is the length of the whole run: ppo.Run continues from
	// the trainer's Iteration() up to Iterations. Without a frame budget it
	// is also the horizon of the learning-rate annealing.
	Iterations int
	// Frames is the run's frame budget (0: none). With a budget, ppo.Run
	// stops after the first iteration at which the trainer's total frames
	// reach Frames (Iterations still caps the run), and the learning rate
	// anneals over the budget's frames instead of the iterations
	// (AnnealedLRFrames), so runs that pick different batch sizes are
	// compared at equal experience.
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

// BudgetReached reports whether a run with options opts is over once frames
// have been collected: it has a frame budget and frames reach it.
func (opts RunOptions) BudgetReached(frames int64) bool {
	return opts.Frames > 0 && frames >= opts.Frames
}
