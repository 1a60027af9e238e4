// Package randompolicy estimates the return of a uniformly random policy on
// a registered environment: the 0 of the normalised scores that hyperctl
// report aggregates over environments.
//
// The estimate is deterministic. Episode k (k = 0, 1, …) runs on a fresh
// instance of the environment (envs.Make, with its time limit), reset with
// seed+k, and draws every action coordinate uniformly from the action box
// with NumPy's Generator(PCG64(seed+k)) (envs/rng), coordinate by
// coordinate, step by step. A fresh instance per episode makes an episode
// depend on its seed alone, as policy.Evaluate does.
package randompolicy

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/hyperctl/hyperctl/envs"
	"github.com/hyperctl/hyperctl/envs/rng"
)

// DefaultEpisodes is the number of episodes hyperctl report averages.
const DefaultEpisodes = 30

// DefaultSeed is the seed of the first episode hyperctl report uses.
const DefaultSeed = 0

// Estimate is the return of a uniformly random policy on one environment.
type Estimate struct {
	Env      string    // the name the estimate was asked for
	ID       string    // the environment's Gymnasium id
	Episodes int       // number of episodes
	Seed     int64     // episode k uses seed Seed+k
	Returns  []float64 // undiscounted return of each episode
	Steps    int       // environment steps over all episodes
	Mean     float64   // mean of Returns
	// StdErr is the standard error of Mean: the sample standard deviation
	// of Returns over √Episodes (0 for one episode).
	StdErr float64
}

// memo holds the estimates made so far in this process: an estimate is
// deterministic (under one envs.CapEpisodes cap), so a second report in
// one process (the test of the committed reports writes many) reuses it
// instead of running the episodes again.
var memo struct {
	sync.Mutex
	m map[memoKey]Estimate
}

type memoKey struct {
	env      string
	episodes int
	seed     int64
	cap      int // envs.EpisodeCap
}

// Return runs episodes episodes of the uniformly random policy on env (a
// name envs.Make accepts; the environments must be registered, e.g. by
// importing envs/all). An estimate already made in this process is
// returned without running the episodes again.
func Return(ctx context.Context, env string, episodes int, seed int64) (Estimate, error) {
	key := memoKey{env, episodes, seed, envs.EpisodeCap()}
	memo.Lock()
	est, ok := memo.m[key]
	memo.Unlock()
	if ok {
		est.Returns = slices.Clone(est.Returns)
		return est, nil
	}
	est, err := estimate(ctx, env, episodes, seed)
	if err != nil {
		return est, err
	}
	memo.Lock()
	if memo.m == nil {
		memo.m = map[memoKey]Estimate{}
	}
	memo.m[key] = est
	memo.Unlock()
	est.Returns = slices.Clone(est.Returns)
	return est, nil
}

// estimate runs the episodes of Return.
func estimate(ctx context.Context, env string, episodes int, seed int64) (Estimate, error) {
	est := Estimate{Env: env, Episodes: episodes, Seed: seed}
	if episodes < 1 {
		return est, fmt.Errorf("random policy on %s: episodes = %d, want >= 1", env, episodes)
	}
	if seed < 0 {
		return est, fmt.Errorf("random policy on %s: seed = %d, want >= 0", env, seed)
	}
	spec, err := envs.Lookup(env)
	if err != nil {
		return est, fmt.Errorf("random policy: %w", err)
	}
	est.ID = spec.ID
	for i, lo := range spec.Action.Low {
		if hi := spec.Action.High[i]; math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(hi >= lo) {
			return est, fmt.Errorf("random policy on %s: action dimension %d has bounds [%g, %g]; a uniform action needs a finite box", spec.ID, i, lo, hi)
		}
	}
	for k := 0; k < episodes; k++ {
		ret, steps, err := episode(ctx, env, spec, seed+int64(k))
		if err != nil {
			return est, fmt.Errorf("random policy on %s: episode %d (seed %d): %w", spec.ID, k, seed+int64(k), err)
		}
		est.Returns = append(est.Returns, ret)
		est.Steps += steps
	}
	for _, r := range est.Returns {
		est.Mean += r
	}
	est.Mean /= float64(episodes)
	if episodes > 1 {
		var ss float64
		for _, r := range est.Returns {
			ss += (r - est.Mean) * (r - est.Mean)
		}
		est.StdErr = math.Sqrt(ss/float64(episodes-1)) / math.Sqrt(float64(episodes))
	}
	return est, nil
}

// maxSteps stops an episode of an environment without a time limit.
const maxSteps = 100_000

// episode runs one random episode on a fresh instance.
func episode(ctx context.Context, name string, spec envs.Spec, seed int64) (ret float64, steps int, err error) {
	e, err := envs.Make(name)
	if err != nil {
		return 0, 0, err
	}
	defer e.Close()
	if _, err := e.Reset(seed); err != nil {
		return 0, 0, fmt.Errorf("reset: %w", err)
	}
	g := rng.New(uint64(seed))
	act := make([]float64, spec.Action.Dim())
	for steps < maxSteps {
		if steps%256 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, steps, err
			}
		}
		for j := range act {
			act[j] = g.Uniform(spec.Action.Low[j], spec.Action.High[j])
		}
		tr, err := e.Step(act)
		if err != nil {
			return 0, steps, fmt.Errorf("step %d: %w", steps, err)
		}
		ret += tr.Reward
		steps++
		if tr.Terminated || tr.Truncated {
			break
		}
	}
	return ret, steps, nil
}
