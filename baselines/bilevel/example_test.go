package bilevel_test

import (
	"fmt"

	"github.com/hyperctl/hyperctl/baselines/bilevel"
)

// Horizon turns the paper's inner-horizon rules into a decision interval
// for the default run: 1000 PPO iterations of 320 gradient steps (10 epochs
// of 2048/64 minibatches). N ≍ T (convex inner problems) asks for short
// periods and many outer rounds; N ≍ T² (the PL condition) for long ones (k = √(c·1000/320) ≈ 1.8 and ∛(c·1000²/320) ≈ 14.6 with
// c = 1, rounded).
func ExampleHorizon() {
	for _, h := range []string{bilevel.Convex, bilevel.PL} {
		interval, rounds, err := bilevel.Horizon(1000, 320, h, 1)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: interval %d iterations, %d outer rounds\n", h, interval, rounds)
	}
	// Output:
	// convex: interval 2 iterations, 500 outer rounds
	// pl: interval 15 iterations, 67 outer rounds
}
