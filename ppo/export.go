package ppo

import (
	"errors"
	"fmt"
	"runtime"
	"slices"

	"github.com/hyperctl/hyperctl/ppo/policy"
)

// Policy returns the current policy in its deployable form (package
// policy): actor, critic and log std copied out of libtorch, weights
// transposed to PyTorch's [out, in], the observation normalisation frozen as
// it is now, the action bounds, and the iteration and frame counters. The
// caller fills in the evaluation return, seed, controller and version
// before saving. The trainer is unchanged.
func (t *Trainer) Policy() (*policy.Policy, error) {
	if t.ln == nil {
		return nil, errors.New("ppo: policy: trainer is closed")
	}
	if t.broken != nil {
		return nil, fmt.Errorf("ppo: policy: the trainer is not at a consistent state (%v)", t.broken)
	}
	runtime.LockOSThread()
	theta, _, _, err := t.ln.state()
	runtime.UnlockOSThread()
	if err != nil {
		return nil, fmt.Errorf("ppo: policy: %w", err)
	}
	l := t.l
	layers := func(ls []layer) []policy.Layer {
		out := make([]policy.Layer, len(ls))
		for k, ly := range ls {
			w := l.segment(theta, ly.w) // [in, out]
			pl := policy.Layer{In: ly.in, Out: ly.out, W: make([]float32, ly.in*ly.out), B: slices.Clone(l.segment(theta, ly.b))}
			for i := 0; i < ly.in; i++ {
				for o := 0; o < ly.out; o++ {
					pl.W[o*ly.in+i] = w[i*ly.out+o]
				}
			}
			out[k] = pl
		}
		return out
	}
	p := &policy.Policy{
		Meta: policy.Meta{
			Env: t.spec.ID, ObsSize: t.od, ActSize: t.ad,
			Architecture: policy.Architecture{Activation: t.base.Activation},
			ObsNorm:      t.obsNorm(),
			ActionLow:    slices.Clone(t.spec.Action.Low), ActionHigh: slices.Clone(t.spec.Action.High),
			Iteration: t.iteration - 1, Frames: t.frames, Seed: t.seed,
		},
		Actor:  layers(l.actor),
		Critic: layers(l.critic),
		LogStd: slices.Clone(l.segment(theta, l.logStd)),
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("ppo: %w", err)
	}
	return p, nil
}

// obsNorm is the observation normalisation in force, as package policy
// describes it (copied).
func (t *Trainer) obsNorm() policy.ObsNorm {
	return policy.ObsNorm{Enabled: t.base.NormObs, Mean: slices.Clone(t.obsRMS.Mean), Var: slices.Clone(t.obsRMS.Var),
		Clip: t.base.ObsClip, Epsilon: normEps}
}
