package analysis_test

import (
	"fmt"

	"github.com/hyperctl/hyperctl/experiment/analysis"
)

// rliable's two statistics on one environment's scores: the interquartile
// mean (the 25 % trimmed mean) and the probability that a run of one row
// scores higher than a run of the other, ties counting one half.
func ExampleIQM() {
	tuned := []float64{-4, 10, 11, 12, 13, 14, 15, 90}
	fixed := []float64{9, 10, 11, 12}
	fmt.Printf("IQM %.2f, P(tuned > fixed) %.4f\n", analysis.IQM(tuned), analysis.ProbImprovement(tuned, fixed))
	// Output:
	// IQM 12.50, P(tuned > fixed) 0.7344
}

// RL Baselines3 Zoo's tuned PPO scores, which a report shows each row
// beside (Set.Published; `hyperctl report --published rl-zoo`).
func ExampleRLZooScores() {
	for _, env := range []string{"hopper", "ant", "swimmer"} {
		p := analysis.RLZooScores()[env]
		fmt.Printf("%s: %g at %g frames\n", env, p.Score, p.Frames)
	}
	// Output:
	// hopper: 2410 at 1e+06 frames
	// ant: 1327 at 1e+06 frames
	// swimmer: 282 at 1e+06 frames
}
