package bilevel

import (
	"fmt"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/controller"
)

// BenchmarkDecision times one decision (Suggest: ML-II fit and UCB
// maximisation) holding n data points over the paper's four
// hyperparameters; the state is restored before every timed Suggest. The
// cost is GP-UCB's (the same GP and maximiser); only β differs.
func BenchmarkDecision(b *testing.B) {
	space := methodtest.PaperSpace(b)
	gain := func(_ int, u []float64) float64 {
		return 1 - methodtest.Sq(u[0]-0.3) - methodtest.Sq(u[1]-0.5) - 2*methodtest.Sq(u[2]-0.8) - methodtest.Sq(u[3]-0.6)
	}
	for _, n := range []int{10, 50, 200} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			ctl := build(b, nil, space, 1, 1)
			f := methodtest.NewFeedback(space, gain, 0.3, 1)
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
		})
	}
}

// BenchmarkRegretLGDS runs bilevel on the LGDS regret benchmark of
// `hyperctl bench regret` (n = 1000 rounds, seeds 1–5, h = 2 and 4) with
// the O(·) constant of φ(N) at the theory's 1 (the default) and scaled
// down, at decision interval 5 and at the inner-horizon rule's
// recommendations for 1000 rounds of one step each (convex: 32, PL: 100).
// It reports R_n (mean over the seeds) and its standard error; one op is
// all five seeds, so run it with -benchtime 1x.
func BenchmarkRegretLGDS(b *testing.B) {
	for _, h := range []int{2, 4} {
		for _, c := range []struct {
			interval int
			scale    float64
		}{{5, 1}, {5, 0.1}, {5, 0.03}, {32, 1}, {32, 0.1}, {100, 1}} {
			b.Run(fmt.Sprintf("h=%d/interval=%d/phi_scale=%g", h, c.interval, c.scale), func(b *testing.B) {
				s := DefaultSettings()
				s.PhiScale = c.scale
				var mean, se float64
				for range b.N {
					mean, se = methodtest.MeanSE(methodtest.RegretLGDS(b, Name, &s, h, 1000, c.interval, 5))
				}
				b.ReportMetric(mean, "R_n")
				b.ReportMetric(se, "R_n_se")
			})
		}
	}
}
