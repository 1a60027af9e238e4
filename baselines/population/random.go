package population

import (
	"fmt"
	"math"
)

// Random search (Bergstra and Bengio 2012, the baseline of the PBT, PB2 and
// MF-PBT papers): N configurations drawn uniformly from the tuned space,
// each key in its own scale, trained to the full budget without exploits;
// the answer is the member with the best selection evaluation. The draw is
// Initial's, so the random search and the population of one seed start
// from the same configurations (and member 0 from the trainer's defaults
// when the run config starts there); Step with method RandomSearch keeps
// every member at every ready point.

// Best returns the member with the highest evaluation return in evals,
// the first of equal ones (the pick of result.json). A NaN marks a member
// without an evaluation and is skipped; when no member has one, or a
// return is infinite, it is an error naming the member.
func Best(evals []float64) (int, error) {
	best := -1
	for k, e := range evals {
		switch {
		case math.IsNaN(e):
			continue
		case math.IsInf(e, 0):
			return -1, fmt.Errorf("best member: member %d has evaluation return %v; want a finite number", k, e)
		case best < 0 || e > evals[best]:
			best = k
		}
	}
	if best < 0 {
		return -1, fmt.Errorf("best member: none of the %d members has an evaluation return", len(evals))
	}
	return best, nil
}
