package all_test

import (
	"fmt"
	"testing"

	"github.com/hyperctl/hyperctl/baselines/bilevel"
	"github.com/hyperctl/hyperctl/baselines/internal/methodtest"
	"github.com/hyperctl/hyperctl/kalman"
)

// BenchmarkBilevelDefaultsRegret is the sweep behind bilevel's default
// phi_scale (results/bilevel-defaults): bilevel with the O(·) constant of
// φ(N) from the theory's 1 down to 0.01, and random and gpucb as
// references, on the LGDS regret benchmark (n = 1000 rounds, d = 10, s = 1,
// decision interval 5, seeds 1–10) with h = 2, 3, 4 hyperparameters and
// persistence ρ = 0.95 (the default, a drifting objective) and 0.999
// (nearly stationary). Each sub-benchmark logs R_n per seed (-v) and
// reports its mean and standard error; one op is all ten seeds, so run it
// with -benchtime 1x.
func BenchmarkBilevelDefaultsRegret(b *testing.B) {
	for _, rho := range []float64{0.95, 0.999} {
		for _, h := range []int{2, 3, 4} {
			cfg := kalman.DefaultBanditConfig(h)
			cfg.Rho = rho
			for _, ref := range []string{"random", "gpucb"} {
				b.Run(fmt.Sprintf("rho=%g/h=%d/%s", rho, h, ref), func(b *testing.B) {
					methodtest.RegretOn(b, ref, nil, cfg, 1000, 5, 10)
				})
			}
			for _, scale := range []float64{1, 0.3, 0.1, 0.05, 0.03, 0.01} {
				b.Run(fmt.Sprintf("rho=%g/h=%d/bilevel/phi_scale=%g", rho, h, scale), func(b *testing.B) {
					s := bilevel.DefaultSettings()
					s.PhiScale = scale
					methodtest.RegretOn(b, bilevel.Name, &s, cfg, 1000, 5, 10)
				})
			}
		}
	}
}
