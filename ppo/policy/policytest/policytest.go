// Package policytest builds policies with seeded random weights for tests.
package policytest

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/ppo/policy"
)

// Random returns a policy for env (id and sizes) with seeded random
// weights (scaled by 1/√fan-in), biases, log std, non-trivial observation
// statistics (clip 5) and action bounds [−0.5−0.1j, 0.7] that the mean
// often exceeds.
func Random(seed uint64, env string, obs, act int, hidden []int, activation string) *policy.Policy {
	rng := rand.New(rand.NewPCG(seed, 7))
	layers := func(out int) []policy.Layer {
		var ls []policy.Layer
		in := obs
		for _, h := range append(slices.Clone(hidden), out) {
			l := policy.Layer{In: in, Out: h, W: make([]float32, in*h), B: make([]float32, h)}
			for i := range l.W {
				l.W[i] = float32(rng.NormFloat64() / math.Sqrt(float64(in)))
			}
			for i := range l.B {
				l.B[i] = float32(0.1 * rng.NormFloat64())
			}
			ls = append(ls, l)
			in = h
		}
		return ls
	}
	p := &policy.Policy{
		Meta: policy.Meta{
			Env: env, ObsSize: obs, ActSize: act,
			Architecture: policy.Architecture{Activation: activation},
			ObsNorm:      policy.ObsNorm{Enabled: true, Clip: 5, Epsilon: policy.NormEpsilon},
			Iteration:    3, Frames: 6144, Seed: 4, HyperctlVersion: "test",
		},
		Actor: layers(act), Critic: layers(1), LogStd: make([]float32, act),
	}
	for j := 0; j < obs; j++ {
		p.Meta.ObsNorm.Mean = append(p.Meta.ObsNorm.Mean, rng.NormFloat64())
		p.Meta.ObsNorm.Var = append(p.Meta.ObsNorm.Var, 0.05+rng.Float64()*3)
	}
	for j := 0; j < act; j++ {
		p.Meta.ActionLow = append(p.Meta.ActionLow, -0.5-0.1*float64(j))
		p.Meta.ActionHigh = append(p.Meta.ActionHigh, 0.7)
		p.LogStd[j] = float32(-0.5 * rng.Float64())
	}
	ret := 12.5
	p.Meta.EvalReturn = &ret
	return p
}

// ForEnv returns a Random policy (64×64 tanh) for a registered environment,
// with its action bounds.
func ForEnv(spec envs.Spec, seed uint64) *policy.Policy {
	p := Random(seed, spec.ID, spec.Observation.Dim(), spec.Action.Dim(), []int{64, 64}, "tanh")
	p.Meta.ActionLow, p.Meta.ActionHigh = slices.Clone(spec.Action.Low), slices.Clone(spec.Action.High)
	return p
}
