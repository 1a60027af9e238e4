package hyperband_test

import (
	"fmt"

	"github.com/hyperctl/hyperctl/baselines/hyperband"
)

// Brackets with R = 81 and η = 3 is Li et al.'s Table 1: five brackets,
// each successive halving from n configurations at r units of resource.
func ExampleBrackets() {
	for _, b := range hyperband.Brackets(81, 3) {
		fmt.Printf("s=%d:", b.S)
		for i := range b.N {
			fmt.Printf(" %d@%g", b.N[i], b.R[i])
		}
		fmt.Println()
	}
	// Output:
	// s=4: 81@1 27@3 9@9 3@27 1@81
	// s=3: 34@3 11@9 3@27 1@81
	// s=2: 15@9 5@27 1@81
	// s=1: 8@27 2@81
	// s=0: 5@81
}

// With the controller's defaults (R = 18 decision periods, η = 3) the
// brackets fit in one training run: their whole-period resources add up to
// 156 periods, 780 iterations at the paper's decision interval of 5.
func ExampleBrackets_onlineDefaults() {
	set := hyperband.DefaultSettings()
	total := 0
	for _, b := range hyperband.Brackets(set.R, set.Eta) {
		for i := range b.N {
			total += b.N[i] * b.Periods[i]
		}
	}
	fmt.Println(total, "periods")
	// Output:
	// 156 periods
}
