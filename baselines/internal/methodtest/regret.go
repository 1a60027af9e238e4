package methodtest

import (
	"context"
	"testing"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/kalman"
)

// RegretLGDS runs the registered method name with the given settings on
// the LGDS bandits of `hyperctl bench regret` (package kalman's default
// bandit with h hyperparameters, n rounds, decision interval interval,
// seeds 1…seeds for bandit and controller alike, as the CLI with --seed 1)
// and returns the final cumulative regret R_n per seed. With nil settings
// (the method's defaults) the numbers equal the CLI's for the same flags.
func RegretLGDS(tb testing.TB, name string, settings controller.Settings, h, n, interval, seeds int) []float64 {
	tb.Helper()
	return RegretBandit(tb, name, settings, kalman.DefaultBanditConfig(h), n, interval, seeds)
}

// RegretBandit is RegretLGDS on the bandit cfg (e.g. the default bandit
// with another persistence ρ, as `hyperctl bench regret --rho`).
func RegretBandit(tb testing.TB, name string, settings controller.Settings, cfg kalman.BanditConfig, n, interval, seeds int) []float64 {
	tb.Helper()
	out := make([]float64, 0, seeds)
	for k := range seeds {
		seed := uint64(1 + k)
		b, err := kalman.NewBandit(cfg, n, seed)
		if err != nil {
			tb.Fatal(err)
		}
		path, err := kalman.RunController(context.Background(), b, name, settings, 10, 1, interval, seed)
		if err != nil {
			tb.Fatalf("%s, seed %d: %v", name, seed, err)
		}
		out = append(out, path[len(path)-1])
	}
	return out
}
