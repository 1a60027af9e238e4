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
