package ppo

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"

	"github.com/hyperctl/hyperctl/envs"
)

// Test environments, registered under names no real environment uses.
//
// ppotest-target: the observation is a target point in [−1, 1]²; the reward
// is 1 − |a − target|²; a new target is drawn every step; episodes last 10
// steps (time limit: truncation). A policy whose mean tracks the target
// earns up to 10 per episode; the initial one (mean ≈ 0, σ = 1) about −17.
//
// ppotest-det: the same, but the targets follow a fixed sequence (no
// randomness), episodes last 8 steps, so with 16 steps per environment per
// iteration every iteration starts fresh episodes: a restored trainer sees
// exactly the data an uninterrupted one sees.
func init() {
	box := func(n int, lo, hi float64) envs.Box {
		b := envs.Box{Low: make([]float64, n), High: make([]float64, n)}
		for i := range b.Low {
			b.Low[i], b.High[i] = lo, hi
		}
		return b
	}
	envs.MustRegister(envs.Spec{ID: "PPOTestTarget-v0", Name: "ppotest-target", Observation: box(2, -1, 1), Action: box(2, -2, 2), MaxEpisodeSteps: 10},
		func() (envs.Env, error) { return &targetEnv{random: true}, nil })
	envs.MustRegister(envs.Spec{ID: "PPOTestDet-v0", Name: "ppotest-det", Observation: box(2, -1, 1), Action: box(2, -2, 2), MaxEpisodeSteps: 8},
		func() (envs.Env, error) { return &targetEnv{}, nil })
}

type targetEnv struct {
	random bool
	pcg    *rand.PCG
	rng    *rand.Rand
	k      int
	obs    []float64
	closed bool
}

func (e *targetEnv) Spec() envs.Spec {
	s, _ := envs.Lookup(map[bool]string{true: "ppotest-target", false: "ppotest-det"}[e.random])
	return s
}

func (e *targetEnv) draw() {
	if e.obs == nil {
		e.obs = make([]float64, 2)
	}
	if e.random {
		e.obs[0], e.obs[1] = 2*e.rng.Float64()-1, 2*e.rng.Float64()-1
		return
	}
	e.obs[0], e.obs[1] = math.Sin(1.7*float64(e.k)), math.Cos(0.9*float64(e.k))
}

func (e *targetEnv) Reset(seed int64) ([]float64, error) {
	if e.closed {
		return nil, envs.ErrClosed
	}
	if seed >= 0 || e.rng == nil {
		s := uint64(max(seed, 0))
		e.pcg = rand.NewPCG(s, s+1)
		e.rng = rand.New(e.pcg)
	}
	e.k = 0
	e.draw()
	return e.obs, nil
}

func (e *targetEnv) Step(a []float64) (envs.Transition, error) {
	if e.closed {
		return envs.Transition{}, envs.ErrClosed
	}
	if err := envs.CheckAction(e.Spec(), a); err != nil {
		return envs.Transition{}, err
	}
	d0, d1 := a[0]-e.obs[0], a[1]-e.obs[1]
	r := 1 - d0*d0 - d1*d1
	e.k++
	e.draw()
	return envs.Transition{Obs: e.obs, Reward: r}, nil
}

func (e *targetEnv) Close() error { e.closed = true; return nil }

// SaveState and LoadState make the toy environments envs.StateSavers (the
// trainer's snapshot needs them): the generator, the step and the target.
func (e *targetEnv) SaveState() ([]byte, error) {
	var out []byte
	if e.pcg != nil {
		b, err := e.pcg.MarshalBinary()
		if err != nil {
			return nil, err
		}
		out = append(out, 1)
		out = append(out, b...)
	} else {
		out = append(out, 0)
		out = append(out, make([]byte, 20)...)
	}
	out = binary.LittleEndian.AppendUint64(out, uint64(e.k))
	obs := e.obs
	if obs == nil {
		obs = []float64{math.NaN(), math.NaN()}
	}
	for _, v := range obs {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
	}
	return out, nil
}

func (e *targetEnv) LoadState(b []byte) error {
	if len(b) != 1+20+8+16 {
		return errors.New("toy env state: wrong length")
	}
	var pcg *rand.PCG
	if b[0] == 1 {
		pcg = rand.NewPCG(0, 0)
		if err := pcg.UnmarshalBinary(b[1:21]); err != nil {
			return err
		}
	}
	e.pcg, e.rng = pcg, nil
	if pcg != nil {
		e.rng = rand.New(pcg)
	}
	e.k = int(binary.LittleEndian.Uint64(b[21:29]))
	e.obs = []float64{math.Float64frombits(binary.LittleEndian.Uint64(b[29:37])), math.Float64frombits(binary.LittleEndian.Uint64(b[37:45]))}
	if math.IsNaN(e.obs[0]) {
		e.obs = nil
	}
	return nil
}
