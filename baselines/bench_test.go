package baselines

import (
	"fmt"
	"math"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
)

// paperGain is the synthetic feedback of the speed benchmarks: a smooth
// per-iteration reward gain over the paper's four hyperparameters (in unit
// coordinates) plus N(0, 0.3²) noise.
func paperGain(_ int, u []float64) float64 {
	return 1 - sq(u[0]-0.3) - sq(u[1]-0.5) - 2*sq(u[2]-0.8) - sq(u[3]-0.6)
}

// BenchmarkFullRun is one full 1000-iteration run of a method's decisions
// through the driver (decision interval 5, so 200 decisions), with
// synthetic feedback, over the paper's four hyperparameters. ns/op is the
// time of the whole run.
func BenchmarkFullRun(b *testing.B) {
	space := paperSpace(b)
	for _, name := range allMethods {
		b.Run(name, func(b *testing.B) {
			for i := range b.N {
				ctl := build(b, name, nil, space, 5, uint64(i))
				f := newFeedback(space, paperGain, 0.3, uint64(i))
				for it := range 1000 {
					f.Step(b, ctl, it)
				}
			}
		})
	}
}

// BenchmarkDecision times one decision (Suggest) of a GP method holding n
// data points (one per decision period) over the paper's space: the state
// is restored before every timed Suggest, so each op sees the same data.
func BenchmarkDecision(b *testing.B) {
	space := paperSpace(b)
	for _, name := range []string{"gpucb", "pb2"} {
		for _, n := range []int{10, 50, 100, 200, 300, 400} {
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
				ctl := build(b, name, nil, space, 1, 1)
				f := newFeedback(space, paperGain, 0.3, 1)
				// With interval 1 every iteration after the first is one data
				// point; the Suggest of iteration n+1 sees n points.
				for it := range n + 1 {
					f.Step(b, ctl, it)
				}
				m := ctl.Method()
				state, err := m.MarshalBinary()
				if err != nil {
					b.Fatal(err)
				}
				dst := make(controller.Config, space.Dim())
				b.ResetTimer()
				for range b.N {
					b.StopTimer()
					if err := m.UnmarshalBinary(state); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					if err := m.Suggest(dst); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				x := 0
				switch mm := m.(type) {
				case *GPUCB:
					x = len(mm.st.Y)
				case *PB2:
					x = mm.Window()
				}
				b.ReportMetric(float64(x), "points")
			})
		}
	}
}

// BenchmarkCheapDecision times one decision (Suggest) plus one observation
// of Random, Random Start and HyperBand called directly, over the paper's
// space. HyperBand restarts (Init) whenever its brackets are spent, so the
// figure averages over whole schedules, sampling and ranking included.
func BenchmarkCheapDecision(b *testing.B) {
	space := paperSpace(b)
	for _, c := range []struct {
		name string
		set  controller.Settings
	}{
		{"random", &RandomSettings{}},
		{"randomstart", &RandomStartSettings{}},
		{"hyperband/r=18", &HyperBandSettings{R: 18, Eta: 3}},
		{"hyperband/r=81", &HyperBandSettings{R: 81, Eta: 3}},
	} {
		b.Run(c.name, func(b *testing.B) {
			m, err := c.set.New()
			if err != nil {
				b.Fatal(err)
			}
			rng := newRand(1)
			if err := m.Init(space, rng); err != nil {
				b.Fatal(err)
			}
			hb, _ := m.(*HyperBand)
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
