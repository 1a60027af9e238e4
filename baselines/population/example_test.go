package population_test

import (
	"fmt"

	"github.com/hyperctl/hyperctl/baselines/population"
)

// MF-PBT's step after generation 9 of 8 members in two sub-populations
// (members 0–3 evolve every ready interval, 4–7 every 10th).
func ExampleMFPBTMoves() {
	scores := []float64{5, 1, 9, 3, 8, 2, 7, 4}
	moves, err := population.MFPBTMoves(population.DefaultFrequencies(), 9, scores)
	if err != nil {
		fmt.Println(err)
		return
	}
	for k, m := range moves {
		if m.Weights >= 0 {
			fmt.Printf("member %d: weights of %d, configuration of %d, explore %v\n", k, m.Weights, m.Config, m.Explore)
		}
	}
	// Output:
	// member 1: weights of 2, configuration of 2, explore true
	// member 3: weights of 4, configuration of 4, explore false
	// member 5: weights of 4, configuration of 4, explore true
	// member 7: weights of 2, configuration of 4, explore false
}

// Successive halving of 8 members over 1M frames, no rung before 100,000
// frames, halving at each rung.
func ExampleRungs() {
	rungs, err := population.Rungs(8, 2, 100_000, 1_000_000)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rungs {
		fmt.Printf("%d members to %d frames\n", r.Members, r.Frames)
	}
	fmt.Println("frames used:", population.FramesUsed(rungs))
	// Output:
	// 8 members to 125000 frames
	// 4 members to 250000 frames
	// 2 members to 500000 frames
	// 1 members to 1000000 frames
	// frames used: 2500000
}

// Which members continue after a rung: the top 2 by training score.
func ExamplePromote() {
	kept, err := population.Promote([]int{0, 1, 2, 3}, []float64{10, 40, 30, 20}, 2)
	fmt.Println(kept, err)
	// Output: [1 2] <nil>
}

// Welch's t-test on two members' last 5 episode returns.
func ExampleWelch() {
	r, err := population.Welch([]float64{6, 7, 8, 9, 10}, []float64{1, 2, 3, 4, 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("t = %.1f, df = %.1f, p = %.4f\n", r.T, r.DF, r.P)
	// Output: t = 5.0, df = 8.0, p = 0.0011
}

// Jaderberg et al.'s test at its defaults: is the donor significantly
// better than the member?
func ExampleSignificantlyBetter() {
	member := []float64{10, 11, 9, 10, 12, 8, 10, 11, 9, 10}
	donor := []float64{20, 21, 19, 20, 22, 18, 20, 21, 19, 20}
	ok, _ := population.SignificantlyBetter(member, donor, population.DefaultTTestEpisodes, population.DefaultTTestLevel)
	fmt.Println(ok)
	// Output: true
}
