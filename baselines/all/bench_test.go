package all_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/hyperband"
	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/baselines/random"
	"github.com/hyperctl/hyperctl/baselines/randomstart"
	"github.com/hyperctl/hyperctl/controller"
)

// paperMethods are the HyperController paper's baselines (Section V).
var paperMethods = []string{"gpucb", "pb2", "hyperband", "random", "randomstart"}

// BenchmarkFullRun is one full 1000-iteration run of a baseline's
// decisions through the driver (decision interval 5, so 200 decisions),
// with synthetic feedback (methodtest.PaperGain plus N(0, 0.3²) noise), over
// the paper's four hyperparameters. ns/op is the time of the whole run.
func BenchmarkFullRun(b *testing.B) {
	space := methodtest.PaperSpace(b)
	for _, name := range paperMethods {
		b.Run(name, func(b *testing.B) {
			for i := range b.N {
				ctl := methodtest.Build(b, name, nil, space, 5, uint64(i))
				f := methodtest.NewFeedback(space, methodtest.PaperGain, 0.3, uint64(i))
				for it := range 1000 {
					f.Step(b, ctl, it)
				}
			}
		})
	}
}

// BenchmarkCheapDecision times one decision (Suggest) plus one observation
// of Random, Random Start and HyperBand called directly, over the paper's
// space. HyperBand restarts (Init) whenever its brackets are spent, so the
// figure averages over whole schedules, sampling and ranking included.
func BenchmarkCheapDecision(b *testing.B) {
	space := methodtest.PaperSpace(b)
	for _, c := range []struct {
		name string
		set  controller.Settings
	}{
		{"random", &random.Settings{}},
		{"randomstart", &randomstart.Settings{}},
		{"hyperband/r=18", &hyperband.Settings{R: 18, Eta: 3}},
		{"hyperband/r=81", &hyperband.Settings{R: 81, Eta: 3}},
	} {
		b.Run(c.name, func(b *testing.B) {
			m, err := c.set.New()
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			if err := m.Init(space, rng); err != nil {
				b.Fatal(err)
			}
			hb, _ := m.(*hyperband.HyperBand)
			dst := make(controller.Config, space.Dim())
			o := controller.Observation{Objective: 0.5, Reward: 1, PrevReward: 0.5}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if hb != nil && hb.Done() {
					if err := m.Init(space, rng); err != nil {
						b.Fatal(err)
					}
				}
				if err := m.Suggest(dst); err != nil {
					b.Fatal(err)
				}
				o.Iteration, o.Config, o.Objective = i, dst, math.Sin(float64(i))
				if err := m.Observe(o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
