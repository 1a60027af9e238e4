package bilevel

import (
	"fmt"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
)

// BenchmarkDecision times one decision (Suggest: ML-II fit and UCB
// maximisation) holding n data points over the paper's four
// hyperparameters; the state is restored before every timed Suggest. The
// cost is GP-UCB's (the same GP and maximiser); only β differs.
func BenchmarkDecision(b *testing.B) {
	space := methodtest.PaperSpace(b)
	for _, n := range []int{10, 50, 200} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { methodtest.Decision(b, build(b, nil, space, 1, 1), n) })
	}
}

// BenchmarkRegretLGDS runs bilevel on the LGDS regret benchmark of
// `hyperctl bench regret` (n = 1000 rounds, seeds 1–5, h = 2 and 4) with
// the O(·) constant of φ(N) at the theory's 1 and scaled down (the
// default is 0.05 since issue 17; baselines/all's
// BenchmarkBilevelDefaultsRegret is the sweep that chose it), at decision interval 5 and at the inner-horizon rule's
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
				methodtest.Regret(b, Name, &s, h, 1000, c.interval, 5)
			})
		}
	}
}
