package deltabo_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hyperctl/hyperctl/baselines/deltabo"
	_ "github.com/hyperctl/hyperctl/baselines/gpucb" // registers gpucb
	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/controller"
)

var sq = methodtest.Sq

// target is a stationary bimodal function on [0, 1]²: the global mode 1 at
// (0.3, 0.8), a second mode 0.6 at (0.8, 0.2).
func target(u []float64) float64 {
	return math.Exp(-(sq(u[0]-0.3)+sq(u[1]-0.8))/(2*0.15*0.15)) + 0.6*math.Exp(-(sq(u[0]-0.8)+sq(u[1]-0.2))/(2*0.1*0.1))
}

// sources: a similar task (the target plus a small smooth difference); a
// misleading one (the mode heights swapped, so the source's best region is
// the target's second mode); and an unrelated one (a single mode where the
// target is near 0).
var sources = map[string]func(u []float64) float64{
	"similar": func(u []float64) float64 { return target(u) + 0.1*math.Sin(3*u[0]+2*u[1]) },
	"misleading": func(u []float64) float64 {
		return 0.6*math.Exp(-(sq(u[0]-0.3)+sq(u[1]-0.8))/(2*0.15*0.15)) + math.Exp(-(sq(u[0]-0.8)+sq(u[1]-0.2))/(2*0.1*0.1))
	},
	"unrelated": func(u []float64) float64 { return math.Exp(-(sq(u[0]-0.85) + sq(u[1]-0.85)) / (2 * 0.1 * 0.1)) },
}

// sourceRecords are 200 iterations of a source run at uniform random
// configurations, objective f + N(0, 0.05²).
func sourceRecords(f func([]float64) float64, seed uint64) []deltabo.Record {
	rng := rand.New(rand.NewPCG(seed, 99))
	var out []deltabo.Record
	for it := range 200 {
		u := []float64{rng.Float64(), rng.Float64()}
		out = append(out, deltabo.Record{Iteration: it, Time: float64(it), Config: map[string]float64{"a": u[0], "b": u[1]},
			Objective: f(u) + 0.05*rng.NormFloat64()})
	}
	return out
}

// regret runs a controller for rounds decisions (interval 1, the delta
// objective of a reward that grows by target + N(0, 0.05²) per iteration)
// and returns its per-round regrets max f − f(x_t).
func regret(t *testing.T, name string, set controller.Settings, rounds int, seed uint64) []float64 {
	t.Helper()
	space := methodtest.UnitSpace(t, 2)
	ctl, err := controller.Build(name, set, space, controller.Options{Interval: 1, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	noise := rand.New(rand.NewPCG(seed, 5))
	fmax := target([]float64{0.3, 0.8})
	var r float64
	var out []float64
	// Iteration 0 has no delta objective; rounds decisions follow.
	for it := 0; it <= rounds; it++ {
		cfg, err := ctl.Suggest()
		if err != nil {
			t.Fatal(err)
		}
		if it > 0 {
			out = append(out, fmax-target(cfg))
		}
		r += target(cfg) + 0.05*noise.NormFloat64()
		if err := ctl.Observe(controller.Result{Reward: r, Elapsed: time.Millisecond}); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func sum(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

// Transfer from a similar source beats plain GP-UCB, and a dissimilar
// source (misleading or unrelated) does not break DeltaBO: over 40 rounds on a 2-D
// bimodal target, 5 seeds, both methods at their default settings
// (DeltaBO with progress = "none": the target is stationary):
//
//   - similar source: DeltaBO's mean cumulative regret is at most half of
//     GP-UCB's;
//   - misleading and unrelated sources: DeltaBO's mean cumulative regret,
//     and its mean regret over the last 10 rounds, are at most 1.5×
//     GP-UCB's;
//   - misleading source: its last 10 rounds are near the global maximum
//     (mean regret <= 0.1; the second mode has regret 0.4), i.e. it is not
//     trapped where the source points.
func TestTransferBeatsGPUCB(t *testing.T) {
	const rounds, seeds = 40, 5
	var gpucb, gpucbLast float64
	last := map[string]float64{}
	delta := map[string]float64{}
	for seed := uint64(1); seed <= seeds; seed++ {
		g := regret(t, "gpucb", nil, rounds, seed)
		gpucb += sum(g) / seeds
		gpucbLast += sum(g[rounds-10:]) / 10 / seeds
		for name, f := range sources {
			s := deltabo.DefaultSettings()
			s.Progress = "none"
			s.Records = sourceRecords(f, seed)
			r := regret(t, deltabo.Name, &s, rounds, seed)
			delta[name] += sum(r) / seeds
			last[name] += sum(r[rounds-10:]) / 10 / seeds
		}
	}
	t.Logf("mean cumulative regret over %d rounds, %d seeds: gpucb %.3f; deltabo: similar %.3f, misleading %.3f, unrelated %.3f", rounds, seeds, gpucb, delta["similar"], delta["misleading"], delta["unrelated"])
	t.Logf("mean per-round regret in the last 10 rounds: gpucb %.3f; deltabo: similar %.3f, misleading %.3f, unrelated %.3f", gpucbLast, last["similar"], last["misleading"], last["unrelated"])
	if delta["similar"] > 0.5*gpucb {
		t.Errorf("similar source: DeltaBO regret %.3f, want <= half of GP-UCB's %.3f", delta["similar"], gpucb)
	}
	for _, name := range []string{"misleading", "unrelated"} {
		if delta[name] > 1.5*gpucb || last[name] > 1.5*gpucbLast {
			t.Errorf("%s source: DeltaBO regret %.3f (want <= 1.5 × GP-UCB's %.3f), last-10 mean regret %.3f (want <= 1.5 × GP-UCB's %.3f)", name, delta[name], gpucb, last[name], gpucbLast)
		}
	}
	if last["misleading"] > 0.1 {
		t.Errorf("misleading source: last-10 mean regret %.3f, want <= 0.1 (the second mode has 0.4)", last["misleading"])
	}
}
