package kladaptive_test

import (
	"fmt"

	"github.com/hyperctl/hyperctl/baselines/kladaptive"
)

// The rule with rsl_rl's settings, starting from lr 1e-3: a KL above
// 2 × 0.01 divides the lr by 1.5, one below 0.005 (and above 0) multiplies
// it, one in between or zero leaves it, and the bounds clamp it.
func ExampleSettings_Next() {
	s := kladaptive.DefaultSettings()
	lr := 1e-3
	for _, kl := range []float64{0.05, 0.01, 0, 0.001, 0.001} {
		lr = s.Next(lr, kl)
		fmt.Printf("KL %-5g -> lr %.4g\n", kl, lr)
	}
	fmt.Printf("from 9e-3, KL 0.001 -> %g; from 1.2e-5, KL 1 -> %g\n", s.Next(9e-3, 0.001), s.Next(1.2e-5, 1))
	// Output:
	// KL 0.05  -> lr 0.0006667
	// KL 0.01  -> lr 0.0006667
	// KL 0     -> lr 0.0006667
	// KL 0.001 -> lr 0.001
	// KL 0.001 -> lr 0.0015
	// from 9e-3, KL 0.001 -> 0.01; from 1.2e-5, KL 1 -> 1e-05
}
