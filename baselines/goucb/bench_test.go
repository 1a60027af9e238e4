package goucb

import (
	"fmt"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
)

// BenchmarkDecision times one decision (Suggest) over the paper's four
// hyperparameters (d_w = 151) after n decision periods (interval 1, T =
// 200, so Phase I is the first 15): the state is restored before every
// timed Suggest, so each op closes the same period (one Sherman–Morrison
// update, or the oracle fit at n = 15) and runs the same optimistic
// search (eigendecomposition of Σ, 256 candidates, 4 × 50 projected
// ascent steps).
func BenchmarkDecision(b *testing.B) {
	space := methodtest.PaperSpace(b)
	for _, c := range []struct {
		name  string
		n     int
		gamma float64
	}{{"phase1", 5, 1}, {"oracle-fit", 15, 1}, {"phase2", 50, 1}, {"phase2", 200, 1}, {"phase2-discount0.95", 200, 0.95}} {
		b.Run(fmt.Sprintf("%s/n=%d", c.name, c.n), func(b *testing.B) {
			s := DefaultSettings()
			s.Rounds, s.Discount = 200, c.gamma
			methodtest.Decision(b, methodtest.Build(b, Name, &s, space, 1, 1), c.n)
		})
	}
}

// BenchmarkRegretLGDS runs GO-UCB variants on the LGDS regret benchmark of
// `hyperctl bench regret` (n = 1000 rounds, decision interval 5, seeds
// 1–5, h = 2 and 4): the defaults (T = 200 = the run's decisions), the
// discounted variant for the drifting objective, a wider ball (S = 1), the
// paper's Appendix D.1 radius, and the paper's Phase II sums with Phase I
// folded in. It reports R_n (mean over seeds) and its standard error; one
// op is all five seeds, so run it with -benchtime 1x.
func BenchmarkRegretLGDS(b *testing.B) {
	for _, h := range []int{2, 4} {
		for _, c := range []struct {
			name string
			mod  func(*Settings)
		}{
			{"default", func(*Settings) {}},
			{"discount=0.9", func(s *Settings) { s.Discount = 0.9 }},
			{"discount=0.7", func(s *Settings) { s.Discount = 0.7 }},
			{"weight_bound=1", func(s *Settings) { s.WeightBound = 1 }},
			{"beta=paper", func(s *Settings) { s.Beta = BetaPaper }},
			{"phase1_in_sigma", func(s *Settings) { s.Phase1InSigma = true }},
		} {
			b.Run(fmt.Sprintf("h=%d/%s", h, c.name), func(b *testing.B) {
				s := DefaultSettings()
				c.mod(&s)
				methodtest.Regret(b, Name, &s, h, 1000, 5, 5)
			})
		}
	}
}
