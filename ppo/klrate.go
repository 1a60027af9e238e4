package ppo

import (
	"context"
	"math"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/ppo/ppoconfig"
)

// This file is the trainer's side of a controller that moves the learning
// rate inside the update (controller.LRRule, the KL-adaptive rule of
// baselines/kladaptive): the KL it measures and the lr in force during an
// update.

// lrControl is the learning rate during one update under an LRRule. The
// learner calls step before every minibatch's gradient step, with the
// minibatch's mean KL, and uses the lr it returns for that step; endEpoch
// after every epoch.
type lrControl struct {
	rule    controller.LRRule
	measure controller.KLMeasure
	lr      float64 // in force, before lr_scale
	sum     float64 // the open epoch's minibatch KLs (PerEpoch)
	n       int
}

// step records a minibatch's KL and returns the lr of its gradient step:
// per minibatch, the rule's new lr; per epoch, the lr in force.
func (c *lrControl) step(kl float64) float64 {
	if c.measure == controller.PerMinibatch {
		c.lr = c.rule.NextLR(c.lr, kl)
	} else {
		c.sum += kl
		c.n++
	}
	return c.lr
}

// endEpoch applies the rule, per epoch, to the mean of the epoch's
// minibatch KLs: the new lr is the next epoch's.
func (c *lrControl) endEpoch() {
	if c.measure == controller.PerEpoch && c.n > 0 {
		c.lr = c.rule.NextLR(c.lr, c.sum/float64(c.n))
	}
	c.sum, c.n = 0, 0
}

// gaussianKL is KL(π_old ‖ π) between two diagonal Gaussians of one frame,
// in rsl_rl's form (its 1e-5 inside the logarithm included):
//
//	Σ_j log(σ_j/σ_old,j + 1e-5) + (σ_old,j² + (μ_old,j − μ_j)²)/(2σ_j²) − ½.
func gaussianKL(oldMu, mu []float32, oldStd, std []float64) float64 {
	var kl float64
	for j, s := range std {
		d := float64(oldMu[j]) - float64(mu[j])
		kl += math.Log(s/oldStd[j]+1e-5) + (oldStd[j]*oldStd[j]+d*d)/(2*s*s) - 0.5
	}
	return kl
}

// meanKL is the mean gaussianKL over the minibatch idx of b between the
// policy that collected b (b.oldMean, b.oldLogStd) and the current one as
// the last forward pass computed it (ln.mub, ln.lsb: gradient's, so the
// parameters before the minibatch's step).
func (ln *learner) meanKL(b *updateBatch, idx []int) float64 {
	ad := ln.l.actDim
	oldStd, std := make([]float64, ad), make([]float64, ad)
	for j := range ad {
		oldStd[j] = math.Exp(float64(b.oldLogStd[j]))
		std[j] = math.Exp(float64(ln.lsb[j]))
	}
	var sum float64
	for k, i := range idx {
		sum += gaussianKL(b.oldMean[i*ad:(i+1)*ad], ln.mub[k*ad:(k+1)*ad], oldStd, std)
	}
	return sum / float64(len(idx))
}

// IterateLR is Iterate under a controller that moves the learning rate
// inside the update (controller.LRRule): the update starts from h.LR; rule
// sets the lr before each minibatch's gradient step (measure
// controller.PerMinibatch) or after each epoch (controller.PerEpoch) from
// the mean analytic KL of the current policy from the one that collected
// the batch (gaussianKL), and the Adam step size is that lr × h.LRScale.
// The stats' LR is the lr the update ended with, the one the next
// iteration starts from: h.LR again when the update was rejected (its lr
// changes are rolled back with the parameters).
func (t *Trainer) IterateLR(ctx context.Context, h ppoconfig.Hyper, rule controller.LRRule) (IterStats, error) {
	if err := t.ready(ctx); err != nil {
		return IterStats{}, err
	}
	if err := h.Validate(); err != nil {
		return IterStats{}, err
	}
	lc := &lrControl{rule: rule, measure: rule.Measure(), lr: h.LR}
	return t.run(func() (IterStats, error) { return t.iterate(h, lc) })
}
